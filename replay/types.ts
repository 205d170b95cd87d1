/**
 * The structured result of a replay: what `replayCassette` returns, what every report renders and
 * what the JSON report holds (its schema is replay/replay-report.schema.json).
 */
import type { TransportKind } from '../lib/cassette/cassette.js';
import type { MaskedToken } from './normalise.js';

export type { MaskedToken };

/** How much a difference matters: `breaking`, a client that worked may now fail (a contract
 * broke); `changed`, the output changed while the contract held (fails by default, as a
 * regression test should; the `content` policy can make it a warning); `warning`, something to
 * look at; `compatible`, the server offers more. */
export type Verdict = 'breaking' | 'changed' | 'warning' | 'compatible';

export const VERDICT_RANK: Record<Verdict, number> = { compatible: 0, warning: 1, changed: 2, breaking: 3 };

/** One difference between what the recorded server answered and what the live server answered. */
export interface Difference {
  verdict: Verdict;
  /** A stable identifier for the kind of change, e.g. `tool-removed`, `input-enum-shrunk`. */
  kind: string;
  /** JSON Pointer into the (normalised) message where the difference sits, `''` for the whole message. */
  path: string;
  message: string;
  recorded?: unknown;
  live?: unknown;
}

/** `same`: equal after normalisation; otherwise the worst verdict among its differences. */
export type InteractionOutcome = 'same' | Verdict | 'skipped' | 'unanswered';

/** One recorded client request (or the session's notification stream) and how the live server answered it. */
export interface InteractionResult {
  /** `seq` of the recorded request in its session; 0 for a GET or DELETE exchange (see
   * `exchange`) and for session-level findings. */
  seq: number;
  /** For the client's GET (listen stream) and DELETE (session end) over Streamable HTTP: the id of
   * the recorded exchange in the session's `exchanges`. */
  exchange?: number;
  /** The JSON-RPC method; `GET` or `DELETE` for those exchanges. */
  method: string;
  /** The tool, prompt or resource the request names, when it names one. */
  name?: string;
  outcome: InteractionOutcome;
  differences: Difference[];
  /** Why an interaction was skipped or could not be compared. */
  note?: string;
  durationMs?: number;
  /** Values left out of the comparison because `--calibrate` learned they are volatile here
   * (recorded and live values at the same path count once); absent when none. */
  volatileSkipped?: number;
  /** Tokens masked as volatile (built-in shapes, calibrated template holes) whose recorded and
   * live values differed: what was not compared, so a reader can check it (at most 50). */
  masked?: MaskedToken[];
}

export type ReplayErrorCode = 'MCPC_REPLAY_SPAWN_FAILED' | 'MCPC_REPLAY_SERVER_EXITED' | 'MCPC_REPLAY_TIMEOUT' | 'MCPC_REPLAY_HTTP_FAILED';

/** Why the replay could not go on: the server would not start, crashed, hung or was unreachable. */
export interface ReplayRunError {
  code: ReplayErrorCode;
  message: string;
  /** 1-based index of the session that was playing. */
  session?: number;
  /** `seq` of the recorded message the replay was waiting on. */
  seq?: number;
}

export interface SessionResult {
  /** 1-based, as `mcp-cassette show` numbers sessions. */
  index: number;
  id: string;
  label?: string;
  transport: TransportKind;
  revision?: string;
  outcome: 'same' | Verdict | 'error' | 'skipped';
  interactions: InteractionResult[];
  error?: ReplayRunError;
  note?: string;
}

export interface ReplaySummary {
  sessions: number;
  interactions: number;
  same: number;
  breaking: number;
  /** Interactions whose worst difference is a changed output (`output-changed`). */
  changed: number;
  warning: number;
  compatible: number;
  skipped: number;
  /** Differences, counted one by one. */
  differences: { breaking: number; changed: number; warning: number; compatible: number };
  /** Volatile values skipped, summed over the interactions (see `InteractionResult.volatileSkipped`). */
  volatileSkipped: number;
}

/** What `--update` did to the cassette file. */
export interface UpdateResult {
  /** Whether the cassette file was rewritten. */
  written: boolean;
  /** 1-based indices of the sessions re-recorded from the live server (those that changed). */
  replaced: number[];
  /** Sessions kept byte for byte: unchanged, skipped, or with nothing to replay. */
  kept: number[];
  /** Sessions that changed but were not replaced, because another process removed or changed
   * them in the file while the replay ran. */
  conflicts: Array<{ id: string; reason: string }>;
  /** Why nothing was written, when nothing was. */
  note?: string;
}

/** What `--calibrate` learned and stored in the cassette's `calibration`. */
export interface CalibrationResult {
  /** Whether the cassette file was rewritten. */
  written: boolean;
  /** Live runs made. */
  runs: number;
  /** The volatile paths learned, per session and request (only those with any). */
  sessions: Array<{
    index: number;
    id: string;
    interactions: Array<{
      request: number;
      seq: number;
      method: string;
      name?: string;
      paths: string[];
      templates?: Record<string, string>;
    }>;
  }>;
  /** What was seen while calibrating and not stored: differences that are not changed values (a
   * tool removed, an error code changed, a call that now fails: another build, or another state),
   * and values that changed beyond tokens (`not-token-volatility`). */
  notVolatile: Array<{ session: number; seq: number; method: string; name?: string; kind: string; message: string }>;
  /** Sessions whose findings were not stored: another process changed or removed them meanwhile. */
  conflicts: Array<{ id: string; reason: string }>;
  /** Why nothing was written, when nothing was. */
  note?: string;
}

export interface ReplayResult {
  cassette: string;
  target: { command?: string[]; url?: string };
  startedAt: string;
  durationMs: number;
  /** `passed`: no breaking change and no changed output (warnings and compatible changes may
   * exist); `breaking`: at least one breaking change; `changed`: no breaking change, at least one
   * changed output (`output-changed` under the default `content: fail` policy); `error`: the
   * replay could not run to the end (see `error`). */
  outcome: 'passed' | 'breaking' | 'changed' | 'error';
  error?: ReplayRunError;
  summary: ReplaySummary;
  sessions: SessionResult[];
  /** Present when the replay ran with `update`. */
  update?: UpdateResult;
  /** Present when the replay ran with `calibrate` (`sessions` and `summary` are then the first run's). */
  calibration?: CalibrationResult;
  /** Present when the cassette is a fuzz finding's (replay/finding.ts): whether the build still
   * does it. The answers are not compared then. */
  finding?: FindingVerdict;
}

/** What the replay of a fuzz finding's cassette saw. */
export interface FindingVerdict {
  kind: string;
  rule?: string;
  signature: string;
  method: string;
  tool?: string;
  /** What the fuzzer saw when it wrote the cassette. */
  recorded: string;
  reproduced: boolean;
  /** What the live server did. */
  how: string;
}
