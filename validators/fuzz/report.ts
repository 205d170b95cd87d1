/**
 * The reports of `mcp-cassette fuzz`, in the forms `check` writes: the console text, a Markdown
 * summary, JUnit (one test case per finding, plus the run) and SARIF 2.1.0 (a result per finding,
 * located in the cassette that replays it), and the run as JSON. A finding that is a rule of the
 * catalogue carries its rule ID; a crash, a hang, a panic or stdout noise carries `fuzz/<kind>`.
 */
import { relative } from 'node:path';
import { junitReport, type JunitCase } from '../../lib/junit.js';
import { ruleAnchor, ruleHelp, sarifDriver } from '../../lib/sarif.js';
import { shellQuote } from '../../lib/shell-quote.js';
import type { Finding, FuzzRun } from './engine.js';

export interface FuzzReportContext {
  run: FuzzRun;
  /** What was fuzzed: the server command or the URL. */
  target: string;
  /** How to replay a finding's cassette: the words after the cassette path. */
  replayArgs: string[];
  cassettes: string[];
  skipped: { tool: string; reason: string }[];
}

const ruleOf = (f: Finding): string => f.observed.rule ?? `fuzz/${f.observed.kind}`;

/** The SARIF title of a finding that is no rule of the catalogue (`fuzz/crash`...), and where
 * docs/fuzz.md explains it; `check --fuzz-seconds` reports them the same way. */
export const fuzzRuleTitle = (id: string): string => `Fuzzing: the server ${id.slice('fuzz/'.length).replace('-', ' ')}`;
export const FUZZ_DOC = { page: 'fuzz.md', anchor: 'what-counts-as-a-finding' } as const;
const where = (f: Finding): string => `${f.observed.method}${f.observed.tool ? ` \`${f.observed.tool}\`` : ''}`;
const rel = (p: string): string => relative(process.cwd(), p) || p;

function replayLine(ctx: FuzzReportContext, f: Finding): string | undefined {
  return f.cassette ? ['mcp-cassette', 'replay', rel(f.cassette), ...ctx.replayArgs].map(shellQuote).join(' ') : undefined;
}

export function renderFuzzText(ctx: FuzzReportContext): string {
  const { run } = ctx;
  const lines = [
    `fuzz ${ctx.target}: ${run.cases} cases, ${run.findings.length} finding(s) in ${(run.durationMs / 1000).toFixed(1)} s (seed ${run.seed}; the same --seed and --runs send the same cases)`,
  ];
  if (run.error) lines.push(`  stopped: ${run.error}`);
  for (const f of run.findings) {
    lines.push(`  ${f.observed.severity === 'error' ? 'ERROR' : 'warning'} ${ruleOf(f)} on ${where(f)}: ${f.observed.message}`);
    lines.push(`    case ${f.case.id} (${f.case.change}); drawn by ${f.count} case(s)`);
    if (f.cassette) {
      lines.push(`    minimal session (${f.shrink.cases} case(s), shrunk in ${f.shrink.attempts} run(s)): ${rel(f.cassette)}`);
      lines.push(`    reproduce: ${replayLine(ctx, f)}`);
    } else lines.push('    not seen again on a fresh server: no cassette written (it depends on more than these requests)');
  }
  for (const s of ctx.skipped) lines.push(`  skipped tool \`${s.tool}\`: ${s.reason}`);
  return `${lines.join('\n')}\n`;
}

export function renderFuzzSummary(ctx: FuzzReportContext): string {
  const { run } = ctx;
  const lines = [
    `## mcp-cassette fuzz: ${run.findings.length ? `${run.findings.length} finding(s)` : 'no findings'}`,
    '',
    `${run.cases} cases against \`${ctx.target}\` in ${(run.durationMs / 1000).toFixed(1)} s, seed ${run.seed}.`,
    '',
  ];
  if (run.error) lines.push(`Stopped: ${run.error}`, '');
  if (run.findings.length) {
    lines.push('| | finding | on | what | cassette |', '|---|---|---|---|---|');
    for (const f of run.findings)
      lines.push(
        `| ${f.observed.severity} | \`${ruleOf(f)}\` | ${where(f).replace(/\|/g, '\\|')} | ${f.observed.message.replace(/\|/g, '\\|').slice(0, 200)} | ${f.cassette ? `\`${rel(f.cassette)}\`` : 'not reproduced'} |`,
      );
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

export function renderFuzzJunit(ctx: FuzzReportContext): string {
  const cases: JunitCase[] = [
    {
      classname: 'mcp-cassette.fuzz',
      name: `${ctx.run.cases} cases against ${ctx.target} (seed ${ctx.run.seed})`,
      durationMs: ctx.run.durationMs,
      ...(ctx.run.error ? { error: { message: ctx.run.error, type: 'stopped' } } : {}),
    },
    ...ctx.run.findings.map(
      (f): JunitCase => ({
        classname: `mcp-cassette.fuzz.${f.observed.kind}`,
        name: `${ruleOf(f)} on ${where(f)}`,
        failure: {
          message: f.observed.message,
          type: ruleOf(f),
          text: [`case ${f.case.id}: ${f.case.change}`, ...(f.cassette ? [`reproduce: ${replayLine(ctx, f)}`] : [])].join('\n'),
        },
      }),
    ),
  ];
  return junitReport('mcp-cassette fuzz', [{ name: 'fuzz', cases }]);
}

export function renderFuzzSarif(ctx: FuzzReportContext): string {
  const ids = [...new Set(ctx.run.findings.map(ruleOf))].sort();
  const rules = ids.map((id) => ({
    id,
    shortDescription: { text: id.startsWith('fuzz/') ? `fuzz: the server ${id.slice(5)}` : id },
    ...ruleHelp(
      id,
      id.startsWith('fuzz/') ? { page: 'fuzz.md', anchor: 'what-counts-as-a-finding' } : { page: 'rules.md', anchor: ruleAnchor(id) },
    ),
  }));
  const results = ctx.run.findings.map((f) => ({
    ruleId: ruleOf(f),
    ruleIndex: ids.indexOf(ruleOf(f)),
    level: f.observed.severity === 'error' ? 'error' : 'warning',
    message: { text: `${f.observed.message} (${where(f)}; case ${f.case.id}: ${f.case.change})` },
    locations: [{ physicalLocation: { artifactLocation: { uri: rel(f.cassette ?? ctx.cassettes[0] ?? '.') } } }],
    partialFingerprints: { findingSignature: f.observed.signature },
  }));
  const log = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [{ tool: { driver: { ...sarifDriver(), rules } }, results }],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

export function renderFuzzJson(ctx: FuzzReportContext): string {
  const { run } = ctx;
  return `${JSON.stringify(
    {
      target: ctx.target,
      seed: run.seed,
      cases: run.cases,
      messages: run.messages,
      durationMs: run.durationMs,
      stoppedBy: run.stoppedBy,
      ...(run.error ? { error: run.error } : {}),
      findings: run.findings.map((f) => ({
        kind: f.observed.kind,
        ...(f.observed.rule ? { rule: f.observed.rule } : {}),
        severity: f.observed.severity,
        signature: f.observed.signature,
        method: f.observed.method,
        ...(f.observed.tool ? { tool: f.observed.tool } : {}),
        message: f.observed.message,
        case: f.case.id,
        change: f.case.change,
        count: f.count,
        firstAt: f.firstAt,
        reproducible: f.reproducible,
        ...(f.cassette ? { cassette: f.cassette } : {}),
        shrink: f.shrink,
      })),
      skipped: ctx.skipped,
    },
    null,
    2,
  )}\n`;
}
