import type { Severity } from '../../lib/violation.js';
import type { Plan } from './plan.js';
import type { Target } from './target.js';
import type { TransportKind } from '../../lib/cassette/cassette.js';

/**
 * `pass`: the server did what the rule asks. `fail`: it did not (the result says what was sent
 * and what came back). `not-applicable`: the recorded traffic or the server gives the probe
 * nothing to work on. `inconclusive`: the answer does not decide the rule (the spec allows it, or
 * a precondition failed). `skipped`: the probe would have re-sent a request that may act twice
 * (no --allow-side-effects).
 */
export type ProbeOutcome = 'pass' | 'fail' | 'not-applicable' | 'inconclusive' | 'skipped';

export interface ProbeResult {
  /** The probe that ran (several rules may be judged from one probe's exchanges). */
  probe: string;
  /** The rule ID in the rule catalogue (RULES.md) (Obs `P`). */
  rule: string;
  outcome: ProbeOutcome;
  /** For a fail: error for MUST-level rules, warning for SHOULD. */
  severity: Severity;
  /** Why: what was expected and what happened, or why the probe did not apply. */
  reason: string;
  /** What was sent: the JSON-RPC message, plus the HTTP method and headers on HTTP. */
  sent?: unknown;
  /** What came back: the response (and HTTP status and headers), or the exit of the process. */
  received?: unknown;
  spec: string;
  /** Set by an expected-failures file: a listed failure (`expected`), or a listed probe that
   * no longer fails (`stale`). */
  baseline?: 'expected' | 'stale';
}

export interface ProbeOptions {
  /** Per-request deadline in ms. */
  timeoutMs: number;
  allowSideEffects: boolean;
  /** How long a stdio server may take to exit after stdin is closed. */
  eofGraceMs: number;
}

export interface ProbeContext {
  plan: Plan;
  target: Target;
  options: ProbeOptions;
}

export interface Probe {
  id: string;
  /** The rules this probe judges, for the report and the docs' table. */
  rules: readonly string[];
  title: string;
  transport?: TransportKind;
  run(ctx: ProbeContext): Promise<ProbeResult[]>;
}
