import type { Direction } from './message.js';

/**
 * A spec violation: data, never an exception (STYLE guideline 6). Shared by the validators, the
 * recorder (which stores and alerts on them) and the reports.
 */
export type Severity = 'error' | 'warning' | 'info';

export interface Violation {
  rule: string;
  severity: Severity;
  session: string;
  seq: number;
  direction: Direction;
  /** JSON Pointer into the message's JSON ('' = the whole frame). */
  path: string;
  message: string;
  /** Link to the spec section the rule cites. */
  spec: string;
}

export const SEVERITY_ORDER: Record<Severity, number> = { info: 0, warning: 1, error: 2 };
