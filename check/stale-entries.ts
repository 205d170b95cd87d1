/**
 * Which entries of the expected-failures file no longer occur (stale: an error, so the baseline
 * stays true). Judged over every cassette of the run, so a part of a sharded check cannot judge
 * alone: it hands on the entries none of its cassettes had (candidates) and the ones some had
 * (seen), and merge-reports keeps a candidate that no part saw (check/merge-reports.ts). An
 * unsharded run's stale entries are its candidates. Every entry has a rank, its place in the
 * baseline (the `validate:` entries, then `replay:`, then `probe:`), which orders them in reports
 * whichever part found them.
 */
import { resolve } from 'node:path';
import { lineOfEntry, type ExpectedFailures } from '../lib/expected-failures.js';
import type { Violation } from '../lib/violation.js';
import { matchExpectedViolations } from '../validators/expected-violations.js';
import { parseBaseline } from '../validators/probes/baseline.js';
import { PROBES } from '../validators/probes/index.js';
import { fingerprint, replayCovers } from './findings.js';
import type { CheckRun, Finding, StaleCandidate } from './types.js';

export interface StaleJudgement {
  /** Entries no cassette of the run had, in baseline order. */
  candidates: StaleCandidate[];
  /** Fingerprints of the entries some cassette had. */
  seen: string[];
}

export function staleEntries(
  run: Pick<CheckRun, 'cassettes'>,
  baseline: ExpectedFailures,
  violations: readonly Violation[],
): StaleJudgement {
  const candidates: StaleCandidate[] = [];
  const seen: string[] = [];
  const print = (text: string): string => fingerprint(['stale', text, baseline.file]);
  let rank = 0;
  const judge = (text: string, isStale: boolean, finding: () => Finding): void => {
    if (isStale) candidates.push({ rank, finding: finding() });
    else seen.push(print(text));
    rank += 1;
  };
  const stale = (id: string, text: string, message: string): Finding => ({
    kind: 'stale',
    id,
    severity: 'error',
    expected: false,
    message,
    file: resolve(baseline.file),
    line: lineOfEntry(baseline.text, text),
    fingerprint: print(text),
  });
  const staleValidate = new Set(matchExpectedViolations(violations, baseline.validate).stale);
  for (const e of baseline.validate)
    judge(e.text, staleValidate.has(e), () =>
      stale(e.rule, e.text, `stale expected failure: ${e.text} no longer occurs; remove it from ${baseline.file}`),
    );
  for (const e of baseline.replay) {
    const hit = run.cassettes.some((c) =>
      c.replay.sessions.some((s) => s.interactions.some((i) => i.differences.some((d) => replayCovers(e, i, d)))),
    );
    judge(e.text, !hit, () => stale(e.kind, e.text, `stale expected change: ${e.text} no longer occurs; remove it from ${baseline.file}`));
  }
  // A probe entry is stale when it passed against some cassette's probes and failed against none;
  // one that neither passed nor failed here (its probe did not apply) is neither.
  const probed = run.cassettes.filter((c) => c.probe);
  if (probed.length === 0) return { candidates, seen };
  const results = probed.flatMap((c) => c.probe!.results);
  const passed = new Set(probed.flatMap((c) => c.probe!.stale.map((e) => e.text)));
  for (const e of parseBaseline(
    baseline.text,
    baseline.file,
    PROBES.map((p) => p.id),
  )) {
    const failed = results.some((r) => r.baseline === 'expected' && r.probe === e.probe && (e.rule === undefined || e.rule === r.rule));
    if (failed || passed.has(e.text))
      judge(e.text, !failed, () =>
        stale(e.rule ?? e.probe, e.text, `stale expected failure: probe ${e.text} passes now; remove it from ${baseline.file}`),
      );
    else rank += 1;
  }
  return { candidates, seen };
}
