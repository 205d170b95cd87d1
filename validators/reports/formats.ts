import { relative } from 'node:path';
import type { Rule } from '../rule.js';
import { distinctRules, severityOf, specLink } from '../rule.js';
import { summarise, type ValidationRun } from './summary.js';
import { annotationData, annotationProperty, xmlText } from '../../lib/report-escape.js';

export const FORMATS = ['text', 'json', 'junit', 'sarif', 'github'] as const;
export type Format = (typeof FORMATS)[number];

export function render(format: Format, run: ValidationRun, allRules: readonly Rule[], colour = false): string {
  const rules = distinctRules(allRules);
  switch (format) {
    case 'json':
      return (
        JSON.stringify(
          {
            violations: run.violations.map(({ rule, severity, session, seq, direction, path, message, spec, cassette }) => ({
              rule,
              severity,
              session,
              seq,
              direction,
              path,
              message,
              spec,
              cassette,
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
            return `::${level} file=${annotationProperty(relative(process.cwd(), v.cassette))},title=${annotationProperty(v.rule)}::${annotationData(`${v.message} (session ${v.session}, message #${v.seq}${v.path ? `, ${v.path}` : ''}) ${v.spec}`)}`;
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
      `${sev} ${v.rule} ${relative(process.cwd(), v.cassette)} session ${v.session} #${v.seq} ${v.direction === 'client-to-server' ? 'C>S' : 'S>C'}${v.path ? ` ${v.path}` : ''}: ${v.message}`,
    );
    lines.push(`        ${paint(2, v.spec)}`);
  }
  const s = summarise(run);
  if (lines.length) lines.push('');
  const rules = Object.entries(s.byRule).sort((a, b) => b[1].count - a[1].count);
  for (const [id, r] of rules) lines.push(`  ${String(r.count).padStart(5)}  ${r.severity.padEnd(7)}  ${id}`);
  lines.push(
    `${s.errors} errors, ${s.warnings} warnings, ${s.infos} infos in ${s.messages} messages, ${s.sessions} sessions, ${s.cassettes} cassette${s.cassettes === 1 ? '' : 's'}`,
  );
  return lines.join('\n') + '\n';
}

function junit(run: ValidationRun, rules: readonly Rule[]): string {
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const total = run.cassettes.length * rules.length;
  const failing = new Set(run.violations.filter((v) => v.severity === 'error').map((v) => `${v.cassette}\u0000${v.rule}`));
  out.push(`<testsuites name="mcp-cassette validate" tests="${total}" failures="${failing.size}">`);
  for (const c of run.cassettes) {
    const mine = run.violations.filter((v) => v.cassette === c.path);
    const failures = rules.filter((r) => mine.some((v) => v.rule === r.id && v.severity === 'error')).length;
    out.push(`  <testsuite name="${xmlText(relative(process.cwd(), c.path))}" tests="${rules.length}" failures="${failures}">`);
    for (const r of rules) {
      const hits = mine.filter((v) => v.rule === r.id);
      const errors = hits.filter((v) => v.severity === 'error');
      out.push(`    <testcase classname="${xmlText(r.id)}" name="${xmlText(r.title)}">`);
      if (errors.length)
        out.push(
          `      <failure message="${xmlText(`${errors.length} violation(s) of ${r.id}`)}" type="${severityOf(r)}">${xmlText(errors.map((v) => `session ${v.session} #${v.seq} ${v.path}: ${v.message}`).join('\n'))}</failure>`,
        );
      const soft = hits.filter((v) => v.severity !== 'error');
      if (soft.length)
        out.push(
          `      <system-out>${xmlText(soft.map((v) => `${v.severity}: session ${v.session} #${v.seq} ${v.path}: ${v.message}`).join('\n'))}</system-out>`,
        );
      out.push('    </testcase>');
    }
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

function sarif(run: ValidationRun, rules: readonly Rule[]): object {
  return {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'mcp-cassette',
            informationUri: 'https://github.com/modelcontextprotocol/modelcontextprotocol',
            rules: rules.map((r) => ({
              id: r.id,
              shortDescription: { text: r.title },
              helpUri: specLink(r.source),
              defaultConfiguration: { level: sarifLevel(severityOf(r)) },
            })),
          },
        },
        results: run.violations.map((v) => ({
          ruleId: v.rule,
          ruleIndex: rules.findIndex((r) => r.id === v.rule),
          level: sarifLevel(v.severity),
          message: { text: v.message },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: relative(process.cwd(), v.cassette).split('\\').join('/') } },
              logicalLocations: [{ fullyQualifiedName: `${v.session}/${v.seq}${v.path}`, kind: 'object' }],
            },
          ],
          properties: { session: v.session, seq: v.seq, direction: v.direction, path: v.path, spec: v.spec },
        })),
      },
    ],
  };
}

function sarifLevel(s: string): 'error' | 'warning' | 'note' {
  return s === 'error' ? 'error' : s === 'warning' ? 'warning' : 'note';
}
