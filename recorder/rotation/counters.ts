import type { MetricsSink } from '../../lib/metrics.js';

/**
 * What `record --cassette-dir` has done so far, for the summary, the logs and metrics
 * (`--metrics-listen` reads `recordingCounters`). Plain numbers, updated in place: reading them
 * costs nothing and never blocks the proxy.
 */
export interface RecordingCounters {
  /** Cassettes closed and written to the directory (rotations, and the last one at exit). */
  cassettesRotated: number;
  /** Closed cassettes deleted by --keep-files, --keep-age or --keep-bytes, and their bytes. */
  cassettesPruned: number;
  bytesPruned: number;
  /** Closed `*.cassette.json` files of the directory that its recorders did not write, which
   * retention leaves alone (as last counted). */
  cassettesLeftAlone: number;
  /** Journal bytes written (every chunk that crossed the proxy, with its record header). */
  bytesRecorded: number;
  /** Messages in the cassettes closed so far (counted by the fold, exactly). */
  messagesRecorded: number;
  /** While recording was paused (disk full, folder unwritable): what crossed the proxy unrecorded.
   * Messages are counted as stdio lines, HTTP request bodies, JSON response bodies and SSE events. */
  bytesNotRecorded: number;
  messagesNotRecorded: number;
  /** Times recording paused, and whether it is paused now. */
  pauses: number;
  paused: boolean;
  /** Closed journals whose cassette could not be written yet (kept, retried, `recover` folds them). */
  foldFailures: number;
}

export function newRecordingCounters(): RecordingCounters {
  return {
    cassettesRotated: 0,
    cassettesPruned: 0,
    bytesPruned: 0,
    cassettesLeftAlone: 0,
    bytesRecorded: 0,
    messagesRecorded: 0,
    bytesNotRecorded: 0,
    messagesNotRecorded: 0,
    pauses: 0,
    paused: false,
    foldFailures: 0,
  };
}

/** The counters of this process's `record --cassette-dir` run (one recorder per process). */
export const recordingCounters: RecordingCounters = newRecordingCounters();

/** Why recording paused, as the `reason` label of `mcp_cassette_unrecorded_total`. */
export function pauseReason(err: unknown): 'no_space' | 'unwritable' {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT' ? 'no_space' : 'unwritable';
}

/** Counts what crossed the proxy unrecorded (while paused), in the counters and the metrics. */
export function countNotRecorded(
  c: RecordingCounters,
  metrics: MetricsSink | undefined,
  bytes: number,
  messages: number,
  reason: string,
): void {
  c.bytesNotRecorded += bytes;
  c.messagesNotRecorded += messages;
  metrics?.count('mcp_cassette_unrecorded_total', { unit: 'bytes', reason }, bytes);
  metrics?.count('mcp_cassette_unrecorded_total', { unit: 'messages', reason }, messages);
}
