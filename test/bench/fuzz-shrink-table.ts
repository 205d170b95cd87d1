/**
 * The shrinking half of the fuzz bench's report (fuzz-bench.ts): per seeded defect found, the runs
 * the shrinker spent and the cases it kept (the JSON report's `shrink`: attempts, cases, ms), and
 * the fuzzer's and the servers' CPU from the case that drew it to its cassette; the median over
 * the shrink runs, with the lowest and highest. Then each run's whole: cases, time fuzzing,
 * time shrinking.
 */
import type { Finding } from '../../validators/fuzz/engine.js';
import type { FuzzRound, ShrinkCost } from './fuzz-rounds.js';
import { markdownTable } from './report.js';
import { fmt, int, summary } from './stats.js';

function findingLabel(f: Finding): string {
  const o = f.observed;
  if (o.kind === 'rule') return `rule ${o.rule}`;
  if (o.kind === 'error-misuse') return `error misuse (${o.rule})`;
  return o.kind.replace(/-/g, ' ');
}

function med(values: number[], digits = 0): string {
  const s = summary(values);
  const f = (x: number): string => (digits === 0 ? int(x) : fmt(x, digits));
  return s.min === s.max ? f(s.median) : `${f(s.median)} (${f(s.min)}–${f(s.max)})`;
}

export function shrinkTable(runs: Map<string, FuzzRound[]>, label: (key: string) => string): string[] {
  const rows: string[][] = [];
  const totals: string[][] = [];
  for (const [key, rounds] of runs) {
    const bySignature = new Map<string, ShrinkCost[]>();
    for (const r of rounds)
      for (const s of r.shrinks)
        bySignature.set(s.finding.observed.signature, [...(bySignature.get(s.finding.observed.signature) ?? []), s]);
    for (const costs of bySignature.values()) {
      const f = costs[0]!.finding;
      rows.push([
        label(key),
        findingLabel(f),
        f.observed.tool ?? f.observed.method,
        String(f.firstAt),
        `${med(costs.map((c) => c.finding.shrink.attempts))}`,
        `${med(costs.map((c) => c.finding.shrink.cases))}${costs.every((c) => c.finding.reproducible) ? '' : ' (not reproduced)'}`,
        med(costs.map((c) => c.finding.shrink.ms)),
        med(costs.map((c) => c.finding.shrink.ms / Math.max(1, c.finding.shrink.attempts))),
        med(costs.map((c) => c.selfCpuMs)),
        med(costs.map((c) => c.serverCpuMs)),
      ]);
    }
    totals.push([
      label(key),
      med(rounds.map((r) => r.run.findings.length)),
      med(rounds.map((r) => r.run.cases)),
      med(
        rounds.map((r) => r.run.durationMs / 1000),
        1,
      ),
      med(
        rounds.map((r) => r.run.fuzzMs / 1000),
        1,
      ),
      med(
        rounds.map((r) => r.run.shrinkMs / 1000),
        1,
      ),
      med(
        rounds.map((r) => r.timed.selfCpuMs / 1000),
        1,
      ),
      med(
        rounds.map((r) => r.timed.serverCpuMs / 1000),
        1,
      ),
    ]);
  }
  return [
    markdownTable(
      [
        'transport, era',
        'finding',
        'tool',
        'first drawn by case',
        'shrink runs',
        'cases kept',
        'shrink wall ms',
        'wall ms per run',
        'fuzzer CPU ms',
        'server CPU ms',
      ],
      rows,
    ),
    markdownTable(['transport, era', 'findings', 'cases', 'run s', 'fuzzing s', 'shrinking s', 'fuzzer CPU s', 'servers CPU s'], totals),
  ];
}
