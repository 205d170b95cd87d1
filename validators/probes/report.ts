/**
 * Probe results in validate's report model: each failure is a Violation (the probe in place of
 * the session, the exchange in the message), so json, junit, sarif and github come from
 * validators/reports/formats.ts and `--fail-on` counts the same way. Expected failures (baseline)
 * become `info`; stale baseline entries become errors; inconclusive results are `info` notes.
 * The text format lists every probe, passes and non-applicable ones included.
 */
import { relative } from 'node:path';
import type { Violation } from '../../lib/violation.js';
import { render, type Format } from '../reports/formats.js';
import type { ValidationRun } from '../reports/summary.js';
import { probeRulesForReports } from './catalogue.js';
import type { BaselineEntry } from './baseline.js';
import type { ProbeOutcome, ProbeResult } from './types.js';
import type { TransportKind } from '../../lib/cassette/cassette.js';
import { short } from './support.js';

export interface ProbeRun {
  cassette: string;
  target: string;
  transport: TransportKind;
  results: ProbeResult[];
  stale: BaselineEntry[];
  baselineFile?: string;
}

export function toValidationRun(run: ProbeRun): ValidationRun {
  const violations: (Violation & { cassette: string })[] = [];
  const base = (r: ProbeResult, i: number) => ({
    rule: r.rule,
    session: r.probe,
    seq: i + 1,
    direction: 'server-to-client' as const,
    path: '',
    spec: r.spec,
    cassette: run.cassette,
  });
  run.results.forEach((r, i) => {
    const io = `${r.sent !== undefined ? ` Sent: ${short(r.sent, 600)}.` : ''}${r.received !== undefined ? ` Got: ${short(r.received, 600)}.` : ''}`;
    if (r.outcome === 'fail') {
      violations.push(
        r.baseline === 'expected'
          ? { ...base(r, i), severity: 'info', message: `expected failure (listed in ${run.baselineFile}): ${r.reason}.${io}` }
          : { ...base(r, i), severity: r.severity, message: `probe ${r.probe} failed: ${r.reason}.${io}` },
      );
    } else if (r.outcome === 'inconclusive') {
      violations.push({ ...base(r, i), severity: 'info', message: `probe ${r.probe} inconclusive: ${r.reason}.${io}` });
    } else if (r.baseline === 'stale') {
      violations.push({
        ...base(r, i),
        severity: 'error',
        message: `stale expected failure: probe ${r.probe} now passes ${r.rule}; remove it from ${run.baselineFile}`,
      });
    }
  });
  return { cassettes: [{ path: run.cassette, sessions: 1, messages: run.results.length }], violations };
}

const LABEL: Record<ProbeOutcome, string> = {
  pass: 'pass',
  fail: 'FAIL',
  'not-applicable': 'n/a',
  inconclusive: 'inconclusive',
  skipped: 'skipped',
};

export function counts(results: readonly ProbeResult[]): Record<ProbeOutcome | 'expected' | 'stale', number> {
  const c = { pass: 0, fail: 0, 'not-applicable': 0, inconclusive: 0, skipped: 0, expected: 0, stale: 0 };
  for (const r of results) {
    c[r.outcome] += 1;
    if (r.baseline === 'expected') c.expected += 1;
    if (r.baseline === 'stale') c.stale += 1;
  }
  return c;
}

function text(run: ProbeRun, colour: boolean): string {
  const paint = (code: number, s: string) => (colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const lines = [`probe ${relative(process.cwd(), run.cassette)} → ${run.target} (${run.transport})`];
  for (const r of run.results) {
    let label = LABEL[r.outcome];
    if (r.outcome === 'fail') label = r.baseline === 'expected' ? 'expected' : `FAIL ${r.severity}`;
    if (r.baseline === 'stale') label = 'STALE';
    const painted =
      r.outcome === 'pass' && r.baseline !== 'stale'
        ? paint(32, label.padEnd(13))
        : r.outcome === 'fail' || r.baseline === 'stale'
          ? paint(r.baseline === 'expected' ? 36 : 31, label.padEnd(13))
          : paint(2, label.padEnd(13));
    lines.push(`${painted} ${r.probe.padEnd(27)} ${r.rule.padEnd(23)} ${r.reason}`);
    if (r.outcome === 'fail' || r.outcome === 'inconclusive') {
      if (r.sent !== undefined) lines.push(`${' '.repeat(14)}sent: ${short(r.sent, 400)}`);
      if (r.received !== undefined) lines.push(`${' '.repeat(14)}got:  ${short(r.received, 400)}`);
      lines.push(`${' '.repeat(14)}${paint(2, r.spec)}`);
    }
  }
  for (const e of run.stale)
    lines.push(`${paint(31, 'STALE'.padEnd(13))} ${e.text}: listed in ${run.baselineFile} but passes now; remove the entry`);
  const c = counts(run.results);
  lines.push(
    '',
    `${c.pass} passed, ${c.fail} failed${c.expected ? ` (${c.expected} expected)` : ''}, ${c.inconclusive} inconclusive, ${c['not-applicable']} not applicable, ${c.skipped} skipped${c.stale ? `, ${c.stale} stale baseline entr${c.stale === 1 ? 'y' : 'ies'}` : ''}`,
  );
  return lines.join('\n') + '\n';
}

export function renderProbeRun(format: Format, run: ProbeRun, colour = false): string {
  if (format === 'text') return text(run, colour);
  const used = new Set(run.results.map((r) => r.rule));
  const rules = probeRulesForReports().filter((r) => used.has(r.id));
  const out = render(format, toValidationRun(run), rules, false);
  if (format !== 'json') return out;
  // The json report keeps validate's shape and adds every probe result.
  const doc = JSON.parse(out) as Record<string, unknown>;
  doc.probes = run.results;
  doc.target = { label: run.target, transport: run.transport };
  doc.stale = run.stale.map((e) => e.text);
  doc.counts = counts(run.results);
  return JSON.stringify(doc, null, 2) + '\n';
}
