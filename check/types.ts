/**
 * What `check` found, in one model that every report renders: the Markdown job summary, JUnit,
 * SARIF, the GitHub annotations and the console text.
 */
import type { Severity } from '../lib/violation.js';
import type { ReplayResult, ReplaySummary } from '../replay/index.js';
import type { ProbeRun } from '../validators/probes/report.js';

/** `breaking`: a breaking change in replay; `violation`: a spec violation in the live traffic;
 * `probe`: a failed probe; `stale`: a baseline entry that no longer occurs; `fuzz`: a finding of
 * `--fuzz-seconds` (its file is the cassette that replays it). */
export type FindingKind = 'breaking' | 'changed' | 'violation' | 'probe' | 'stale' | 'fuzz';

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
  /** `check --shard K/N`: this run is one part; merge-reports puts the parts together. */
  shard?: ShardPart;
  /** `check --fuzz-seconds N`: what the fuzzing after the replays did (its findings are in
   * `findings`, kind `fuzz`). */
  fuzz?: CheckFuzz;
}

export interface CheckFuzz {
  seed: number;
  seconds: number;
  cases: number;
  durationMs: number;
  findings: number;
  /** Where the findings' cassettes were written. */
  out: string;
  /** Why the fuzzing stopped early (the server went away, or would not start). */
  error?: string;
}

/** A baseline entry no cassette of a part had: stale, unless another part's cassettes had it.
 * `rank` is its place among every entry of the baseline (the order stale entries are listed in). */
export interface StaleCandidate {
  rank: number;
  finding: Finding;
}

/**
 * What merge-reports needs of one part of a sharded check (check/merge-reports.ts): which of the
 * unsharded run's cassettes it was given, where its findings of each begin, and the baseline
 * entries it could not judge alone. A part lists no stale finding itself (an entry missing from
 * its cassettes may occur in another part's), so its own verdict leaves staleness out.
 */
export interface ShardPart {
  index: number;
  total: number;
  /** How many cassettes the globs matched before the split (every part matched the same). */
  of: number;
  /** The places (0-based, in the unsharded run's order) of the cassettes this part was given;
   * `cassettes[i]` is the one at `positions[i]` (unless the base build failed: then none ran). */
  positions: number[];
  /** How many of `findings` each cassette has, in order (findings are listed cassette by
   * cassette). */
  findings: number[];
  /** Baseline entries no cassette of this part had (none when the part could not run). */
  stale: StaleCandidate[];
  /** Fingerprints of the baseline entries some cassette of this part had. */
  seen: string[];
}

/** 0 passed, 1 a breaking change or a violation at --fail-on, 2 could not run. */
export const EXIT: Record<CheckVerdict, number> = { pass: 0, fail: 1, error: 2 };
