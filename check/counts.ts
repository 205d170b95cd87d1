/**
 * The counts row of a check: the replay's counts summed over the cassettes, and the findings
 * counted by kind. `check` counts its run, merge-reports a merged one, alike.
 */
import type { CheckCounts, CheckRun } from './types.js';

export function emptyCounts(): CheckCounts {
  return {
    cassettes: 0,
    sessions: 0,
    interactions: 0,
    same: 0,
    breaking: 0,
    changed: 0,
    warning: 0,
    compatible: 0,
    violations: { error: 0, warning: 0, info: 0 },
    newViolations: 0,
    probesFailed: 0,
    expected: 0,
    stale: 0,
  };
}

/** The counts of a run's cassettes and findings (merge-reports counts a merged run again). */
export function countRun(run: CheckRun): CheckCounts {
  const c = emptyCounts();
  c.cassettes = run.cassettes.length;
  for (const x of run.cassettes) {
    const s = x.replay.summary;
    c.sessions += s.sessions;
    c.interactions += s.interactions;
    c.same += s.same;
    c.breaking += s.breaking;
    c.changed += s.changed ?? 0;
    c.warning += s.warning;
    c.compatible += s.compatible;
  }
  for (const f of run.findings) {
    if (f.expected) c.expected += 1;
    if (f.kind === 'violation') {
      c.violations[f.severity] += 1;
      if (f.isNew && !f.expected) c.newViolations += 1;
    }
    if (f.kind === 'probe' && !f.expected) c.probesFailed += 1;
    if (f.kind === 'stale') c.stale += 1;
  }
  return c;
}
