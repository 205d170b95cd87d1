import type { Verdict } from '../../lib/cassette/masked-verdicts.js';
import type { Severity } from '../../lib/violation.js';

export interface ValidationRun {
  cassettes: { path: string; sessions: number; messages: number }[];
  /** `evidence: 'masked'`: a stored live verdict whose evidence the cassette holds masked. */
  violations: (Verdict & { cassette: string })[];
}

export interface Summary {
  cassettes: number;
  sessions: number;
  messages: number;
  errors: number;
  warnings: number;
  infos: number;
  byRule: Record<string, { severity: Severity; count: number }>;
  /** How many of the violations are stored live verdicts whose evidence is masked (when any). */
  maskedEvidence?: number;
}

export function summarise(run: ValidationRun): Summary {
  const byRule: Summary['byRule'] = {};
  for (const v of run.violations) {
    byRule[v.rule] ??= { severity: v.severity, count: 0 };
    byRule[v.rule]!.count += 1;
  }
  const masked = run.violations.filter((v) => v.evidence === 'masked').length;
  return {
    cassettes: run.cassettes.length,
    sessions: run.cassettes.reduce((n, c) => n + c.sessions, 0),
    messages: run.cassettes.reduce((n, c) => n + c.messages, 0),
    errors: run.violations.filter((v) => v.severity === 'error').length,
    warnings: run.violations.filter((v) => v.severity === 'warning').length,
    infos: run.violations.filter((v) => v.severity === 'info').length,
    byRule,
    ...(masked > 0 ? { maskedEvidence: masked } : {}),
  };
}
