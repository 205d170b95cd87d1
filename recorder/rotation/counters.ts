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
