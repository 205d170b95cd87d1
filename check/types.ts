/**
 * What `check` found, in one model that every report renders: the Markdown job summary, JUnit,
 * SARIF, the GitHub annotations and the console text.
 */
import type { Severity } from '../lib/violation.js';
import type { ReplayResult, ReplaySummary } from '../replay/index.js';
import type { ProbeRun } from '../validators/probes/report.js';

/** `breaking`: a breaking change in replay; `violation`: a spec violation in the live traffic;
 * `probe`: a failed probe; `stale`: a baseline entry that no longer occurs. */
export type FindingKind = 'breaking' | 'changed' | 'violation' | 'probe' | 'stale';

export interface Finding {
  kind: FindingKind;
  /** The rule ID (violation, probe, stale validate entry) or the change code (breaking, stale
   * replay entry). */
  id: string;
  severity: Severity;
  /** Listed in the expected-failures file: reported, never failing. */
  expected: boolean;
  /** A violation the recorded traffic did not have (same rule and path). */
  isNew?: boolean;
  message: string;
  /** The file the finding is located in (a cassette, or the baseline for a stale entry). */
  file: string;
  /** 1-based line in `file`: the recorded message's, the session's, or the baseline entry's. */
  line: number;
  /** 1-based session of the cassette. */
  session?: number;
  /** `seq` of the recorded client message the finding belongs to (the interaction). */
  seq?: number;
  method?: string;
  name?: string;
  /** JSON Pointer into the message. */
  path?: string;
  /** A violation the live validator of check's recording proxy saw in traffic the proxy stored
   * masked (a credential): it stands, though the stored message no longer shows it. */
  evidence?: 'masked';
  recorded?: unknown;
  live?: unknown;
  spec?: string;
  /** A failed probe: its index in the cassette's probe results. */
  probeResult?: number;
  /** Stable across runs and edits of the file (no line, no time): SARIF partialFingerprints. */
  fingerprint: string;
}

/** One recorded client request replayed (JUnit: one test case). */
export interface CheckedInteraction {
  session: number;
  seq: number;
  method: string;
  name?: string;
  outcome: string;
  durationMs?: number;
}

export interface CassetteCheck {
  /** Absolute path of the cassette replayed (in base-vs-PR mode, the fresh one). */
  path: string;
  /** The committed cassette it came from, in base-vs-PR mode. */
  source?: string;
  replay: ReplayResult;
  interactions: CheckedInteraction[];
  probe?: ProbeRun;
}

export type CheckVerdict = 'pass' | 'fail' | 'error';

/** The replay's counts summed over the cassettes, and the rest of the findings counted. */
export interface CheckCounts
  extends Pick<ReplaySummary, 'sessions' | 'interactions' | 'same' | 'breaking' | 'changed' | 'warning' | 'compatible'> {
  cassettes: number;
  violations: { error: number; warning: number; info: number };
  newViolations: number;
  probesFailed: number;
  expected: number;
  stale: number;
}

export interface CheckRun {
  /** The PR build: its command or URL. */
  target: string;
  /** Base-vs-PR mode: the base build the cassettes were recorded from. */
  baselineBuild?: string;
  expectedFailures?: string;
  failOn: 'error' | 'warning';
  startedAt: string;
  durationMs: number;
  cassettes: CassetteCheck[];
  findings: Finding[];
  /** Why the check could not run to the end (exit 2). */
  errors: string[];
  verdict: CheckVerdict;
  counts: CheckCounts;
}

/** 0 passed, 1 a breaking change or a violation at --fail-on, 2 could not run. */
export const EXIT: Record<CheckVerdict, number> = { pass: 0, fail: 1, error: 2 };
