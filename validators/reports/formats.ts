import { relative } from 'node:path';
import type { Rule } from '../rule.js';
import { distinctRules, severityOf, specLink } from '../rule.js';
import { summarise, type ValidationRun } from './summary.js';
import { annotationData, annotationProperty } from '../../lib/report-escape.js';
import { type JunitCase, type JunitSuite, junitReport } from '../../lib/junit.js';
import { MASKED_EVIDENCE_NOTE, verdictText } from '../../lib/cassette/masked-verdicts.js';
import { ruleAnchor, ruleHelp, sarifDriver } from '../../lib/sarif.js';

export const FORMATS = ['text', 'json', 'junit', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

export function render(format: Format, run: ValidationRun, allRules: readonly Rule[], colour = false): string {
  const rules = distinctRules(allRules);
  switch (format) {
    case 'json':
      return (
        JSON.stringify(
          {
            violations: run.violations.map(({ rule, severity, session, seq, direction, path, message, spec, cassette, evidence }) => ({
              rule,
              severity,
              session,
              seq,
              direction,
              path,
              message,
              spec,
              cassette,
              // A stored live verdict whose evidence was masked at capture (lib/cassette/masked-verdicts.ts).
              ...(evidence ? { evidence, seenLive: true } : {}),
            })),
            summary: summarise(run),
          },
          null,
          2,
        ) + '\n'
      );
    case 'junit':
      return junit(run, rules);
    case 'sarif':
      return JSON.stringify(sarif(run, rules), null, 2) + '\n';
    case 'github':
      return (
        run.violations
          .map((v) => {
            const level = v.severity === 'error' ? 'error' : v.severity === 'warning' ? 'warning' : 'notice';
            return `::${level} file=${annotationProperty(relative(process.cwd(), v.cassette))},title=${annotationProperty(v.rule)}::${annotationData(`${verdictText(v)} (session ${v.session}, message #${v.seq}${v.path ? `, ${v.path}` : ''}) ${v.spec}`)}`;
          })
          .join('\n') + (run.violations.length ? '\n' : '')
      );
    default:
      return text(run, colour);
  }
}

function text(run: ValidationRun, colour: boolean): string {
  const paint = (code: number, s: string) => (colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const lines: string[] = [];
  for (const v of run.violations) {
    const sev = v.severity === 'error' ? paint(31, 'error  ') : v.severity === 'warning' ? paint(33, 'warning') : paint(36, 'info   ');
    lines.push(
      `${sev} ${v.rule} ${relative(process.cwd(), v.cassette)} session ${v.session} #${v.seq} ${v.direction === 'client-to-server' ? 'C>S' : 'S>C'}${v.path ? ` ${v.path}` : ''}: ${verdictText(v)}`,
    );
    lines.push(`        ${paint(2, v.spec)}`);
  }
  const s = summarise(run);
  if (lines.length) lines.push('');
  const rules = Object.entries(s.byRule).sort((a, b) => b[1].count - a[1].count);
  for (const [id, r] of rules) lines.push(`  ${String(r.count).padStart(5)}  ${r.severity.padEnd(7)}  ${id}`);
  lines.push(
    `${s.errors} errors, ${s.warnings} warnings, ${s.infos} infos in ${s.messages} messages, ${s.sessions} sessions, ${s.cassettes} cassette${s.cassettes === 1 ? '' : 's'}${s.maskedEvidence ? ` (${s.maskedEvidence} ${MASKED_EVIDENCE_NOTE})` : ''}`,
  );
  return lines.join('\n') + '\n';
}

/** One suite per cassette, one case per rule: failed by its errors, its other verdicts told. */
function junit(run: ValidationRun, rules: readonly Rule[]): string {
  // `session 1 #4 /result/tools: …`, the path left out when the verdict is on the whole message.
  const at = (v: ValidationRun['violations'][number]) => `session ${v.session} #${v.seq}${v.path ? ` ${v.path}` : ''}: ${verdictText(v)}`;
  const suites: JunitSuite[] = run.cassettes.map((c) => {
    const mine = run.violations.filter((v) => v.cassette === c.path);
    const cases = rules.map((r): JunitCase => {
      const hits = mine.filter((v) => v.rule === r.id);
      const errors = hits.filter((v) => v.severity === 'error');
      const soft = hits.filter((v) => v.severity !== 'error');
      return {
        classname: r.id,
        name: r.title,
        ...(errors.length
          ? { failure: { message: `${errors.length} violation(s) of ${r.id}`, type: severityOf(r), text: errors.map(at).join('\n') } }
          : {}),
        ...(soft.length ? { systemOut: soft.map((v) => `${v.severity}: ${at(v)}`).join('\n') } : {}),
      };
    });
    return { name: relative(process.cwd(), c.path), cases };
  });
  return junitReport('mcp-cassette validate', suites);
}

function sarif(run: ValidationRun, rules: readonly Rule[]): object {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            ...sarifDriver(),
            rules: rules.map((r) => ({
              id: r.id,
              shortDescription: { text: r.title },
              ...ruleHelp(r.title, { page: 'rules.md', anchor: ruleAnchor(r.id) }, specLink(r.source)),
              defaultConfiguration: { level: sarifLevel(severityOf(r)) },
            })),
          },
        },
        results: run.violations.map((v) => ({
          ruleId: v.rule,
          ruleIndex: rules.findIndex((r) => r.id === v.rule),
          level: sarifLevel(v.severity),
          message: { text: verdictText(v) },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: relative(process.cwd(), v.cassette).split('\\').join('/') } },
              logicalLocations: [{ fullyQualifiedName: `${v.session}/${v.seq}${v.path}`, kind: 'object' }],
            },
          ],
          properties: {
            session: v.session,
            seq: v.seq,
            direction: v.direction,
            path: v.path,
            spec: v.spec,
            ...(v.evidence ? { evidence: v.evidence, seenLive: true } : {}),
          },
        })),
      },
    ],
  };
}

function sarifLevel(s: string): 'error' | 'warning' | 'note' {
  return s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note';
}
