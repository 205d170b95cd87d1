/**
 * What the live validator did in this process, as counters a metrics endpoint can read at any
 * time (`liveValidationStats()`: one object per process, updated in place, never replaced).
 *
 * The live validator never holds up forwarding: when it falls behind by more than its backlog
 * bound it sheds, which is counted here, said in the end-of-session summary, and made good when
 * the cassette is written (every message of the sessions is judged then, offline, so the stored
 * verdicts are complete and the same as if nothing had been shed).
 */
export interface LiveValidationStats {
  /** Validator worker threads running now (gauge). */
  workers: number;
  /** Bytes handed to the workers and not yet judged, plus bytes held for routing (gauge). */
  backlogBytes: number;
  /** Bytes ever handed to the workers: with backlogBytes, how far the validator has judged
   * (`tappedBytes - backlogBytes`), which `record --otel` waits for before a span leaves. */
  tappedBytes: number;
  /** The bound on backlogBytes past which the live validator sheds. */
  maxBacklogBytes: number;
  /** Messages the live validator judged. */
  judgedLive: number;
  /** Times the live validator shed (fell behind past the bound, or was cut off at the end of a
   * session before it caught up). */
  shedEvents: number;
  /** Traffic bytes not judged live because of shedding. */
  shedBytes: number;
  /** Messages not judged live, counted when the cassette is written. */
  shedMessages: number;
  /** Messages judged when the cassette was written (every message of a session that shed). */
  judgedAtWrite: number;
  /** Violations found by judging at cassette write. */
  violationsAtWrite: number;
}

const stats: LiveValidationStats = {
  workers: 0,
  backlogBytes: 0,
  tappedBytes: 0,
  maxBacklogBytes: 0,
  judgedLive: 0,
  shedEvents: 0,
  shedBytes: 0,
  shedMessages: 0,
  judgedAtWrite: 0,
  violationsAtWrite: 0,
};

/** The process's live-validation counters (the same object every call). */
export function liveValidationStats(): LiveValidationStats {
  return stats;
}

/** The default backlog bound; `MCPC_LIVE_MAX_BACKLOG` (bytes) overrides it. */
export const DEFAULT_MAX_BACKLOG = 64 * 1024 * 1024;

/** The backlog bound in force: `MCPC_LIVE_MAX_BACKLOG` when it is a positive integer. */
export function maxBacklogBytes(): number {
  const v = Number(process.env.MCPC_LIVE_MAX_BACKLOG);
  return Number.isInteger(v) && v > 0 ? v : DEFAULT_MAX_BACKLOG;
}
