/**
 * The `validate:` section of an expected-failures file (lib/expected-failures.ts) applied to
 * violations: a violation whose rule (and path, when the entry names one) is listed is expected;
 * an entry that matched no violation at all is stale. `validate --expected-failures` and `check
 * --expected-failures` both judge this way; validate shows expected violations as `info` and a
 * stale entry as an error located in the baseline file, as `probe` does with its own section.
 */
import { resolve } from 'node:path';
import { lineOfEntry, type ExpectedFailures, type ValidateExpectation } from '../lib/expected-failures.js';
import type { Violation } from '../lib/violation.js';
import type { ValidationRun } from './reports/summary.js';

const covers = (e: ValidateExpectation, v: Violation): boolean => e.rule === v.rule && (e.path === undefined || e.path === v.path);

export interface ValidateBaselineMatch<V extends Violation> {
  expected: Set<V>;
  stale: ValidateExpectation[];
}

export function matchExpectedViolations<V extends Violation>(
  violations: readonly V[],
  entries: readonly ValidateExpectation[],
): ValidateBaselineMatch<V> {
  const expected = new Set<V>();
  const stale: ValidateExpectation[] = [];
  for (const e of entries) {
    const hits = violations.filter((v) => covers(e, v));
    if (hits.length === 0) stale.push(e);
    for (const v of hits) expected.add(v);
  }
  return { expected, stale };
}

/** The run as validate reports it with a baseline: expected violations become `info` notes that
 * say so, and each stale entry an error in the baseline file (its `seq` is the entry's line). */
export function applyExpectedViolations(run: ValidationRun, baseline: ExpectedFailures): ValidationRun {
  const { expected, stale } = matchExpectedViolations(run.violations, baseline.validate);
  const file = resolve(baseline.file);
  const violations = run.violations.map((v) =>
    expected.has(v) ? { ...v, severity: 'info' as const, message: `expected failure (listed in ${baseline.file}): ${v.message}` } : v,
  );
  for (const e of stale) {
    violations.push({
      rule: e.rule,
      severity: 'error',
      session: 'baseline',
      seq: lineOfEntry(baseline.text, e.text),
      direction: 'server-to-client',
      path: e.path ?? '',
      message: `stale expected failure: ${e.text} no longer occurs; remove it from ${baseline.file}`,
      spec: '',
      cassette: file,
    });
  }
  return { cassettes: run.cassettes, violations };
}
