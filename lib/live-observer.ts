import type { HttpExchange, SessionEnd } from './cassette/cassette.js';
import type { RecordedMessage } from './message.js';
import type { Violation } from './violation.js';
import type { TransportKind } from './cassette/cassette.js';

/**
 * Part of the live validator's shape (validators/live.ts, the one user: its result type is built
 * from this). Nothing in the recorder calls it: the recorder streams the traffic to a worker
 * thread (LiveWorkerSpec below, messages LiveWorkerInput/LiveWorkerOutput), and the worker
 * (validators/live-worker.ts) runs the validator. The types live in lib/ because both sides of
 * that stream use them, so recorder/ and validators/ never import each other.
 */
export interface LiveObserver {
  /** Judges one frame of a session; returns the violations to keep with the recording.
   * Must not throw: a bug inside is reported and swallowed. */
  message(session: { id: string; transport: TransportKind }, msg: RecordedMessage, exchange?: HttpExchange): Violation[];
  /** The session is over: log the summary and say whether violations at the `--fail-on` level
   * were seen, at once; `delivered` settles, with the alert counts logged, when the alerts still
   * queued are delivered or given up, or when `deadline` settles. The verdict never waits for a
   * webhook. */
  close(deadline: Promise<void>): { failed: boolean; delivered: Promise<void> };
}

/**
 * The live validator runs in a worker thread, so that parsing and judging never hold up the
 * thread that forwards bytes. The composition root names the worker's script and its settings;
 * the recorder starts it and streams the traffic to it.
 */
export interface LiveWorkerSpec {
  /** Absolute path of the worker module (validators/live-worker.js). */
  script: string;
  /** Passed to the worker as workerData (logging and alert settings). */
  data: Record<string, unknown>;
  /** Worker threads (`--validate-workers`, default 1): HTTP sessions are spread over them, each
   * session judged by one; a stdio recording is one session and uses one. */
  workers?: number;
}

/** Main thread → worker, besides the traffic itself (lib/live-journal.ts, lib/live-stdio.ts):
 * sent in batches, one array per flush. */
export type LiveWorkerInput =
  /** The session is over; stdio: how it ended, as the cassette will say (for the session-end rules). */
  | { type: 'finish'; end?: Partial<Pick<SessionEnd, 'initiatedBy' | 'exitCode' | 'signal'>> }
  /** After `finish`: the proxy will wait no longer; log what became of the alerts and say done. */
  | { type: 'deadline' };

/**
 * Where an HTTP violation's message sits before sessions are grouped: the `k`-th message of
 * exchange `x`. The cassette fold turns it into the final session id and seq.
 */
export interface LiveRef {
  x: number;
  k: number;
}

/** Worker → main thread. */
export type LiveWorkerOutput =
  /** The validator is loaded: what was queued for it is being judged now. */
  | { type: 'ready' }
  /** `processed`: traffic bytes taken in; `judged`: messages judged since the last report. */
  | { type: 'violations'; violations: (Violation & { ref?: LiveRef })[]; processed: number; judged: number }
  /** The session's verdict, sent before the last alerts are delivered. */
  | { type: 'verdict'; failed: boolean }
  /** The last alerts are delivered or given up; the worker may be ended. */
  | { type: 'done' };
