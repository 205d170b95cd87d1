import { mkdirSync } from 'node:fs';
import { CassetteError, ioReason } from '../../lib/errors.js';
import type { JournalHeader, JournalSink } from '../../lib/cassette/journal.js';
import type { Logger } from '../../lib/log.js';
import type { MetricsSink } from '../../lib/metrics.js';
import { CassetteDir, type FoldSettings } from './cassette-dir.js';
import { recordingCounters, type RecordingCounters } from './counters.js';
import type { DirArgs } from './dir-args.js';
import { ensureDirOwner, stampWriter } from './ownership.js';
import { RotatingJournal } from './rotating-journal.js';

export type OpenJournal = (cassette: string, header: JournalHeader, t0: number) => JournalSink;

/** A recorder's cassette directory: the journal factory the proxy writes through, and the end. */
export interface DirRecording {
  openJournal: OpenJournal;
  counters: RecordingCounters;
  /** After the proxy closed its journal: waits for the last cassettes to be written; false when
   * some journals could not be (they stay for `recover`). */
  finish(): Promise<boolean>;
  /** Or: stops folding and returns the journals left to fold, for the finisher. */
  handOff(): string[];
}

/**
 * Starts recording into a directory. `logger()` gives the logger once it exists (the stdio proxy
 * spawns its server before the logger is made). `fold`: --sample and judge-at-write for each
 * cassette as it closes; `summary()`: fields added to the `recording stopped` line; `metrics`:
 * where rotations, pruning, pauses and what was not recorded are counted.
 */
export function startDirRecording(
  args: DirArgs,
  logger: () => Logger | undefined,
  options: { fold?: FoldSettings; summary?: () => Record<string, unknown>; metrics?: MetricsSink } = {},
): DirRecording {
  const { fold, metrics } = options;
  let owner: string;
  try {
    mkdirSync(args.dir, { recursive: true });
    // Every cassette written here says it is this directory's (ownership.ts): retention deletes
    // no other.
    owner = ensureDirOwner(args.dir);
  } catch (err) {
    throw new CassetteError(
      'MCPC_FILE_UNWRITABLE',
      `cannot create the cassette directory ${args.dir} or its identity file (${ioReason(err)}); give a --cassette-dir you can write`,
      { cause: err },
    );
  }
  const counters = recordingCounters;
  const info = (fields: Record<string, unknown>, message: string): void => logger()?.info(fields, message);
  const warn = (fields: Record<string, unknown>, message: string): void => logger()?.warn(fields, message);
  const dir = new CassetteDir({
    dir: args.dir,
    retention: args.retention,
    counters,
    info,
    warn,
    ...(fold ? { fold } : {}),
    ...(metrics ? { metrics } : {}),
  });
  return {
    counters,
    openJournal(_cassette, header, t0) {
      try {
        return new RotatingJournal({
          dir: args.dir,
          header: stampWriter(header, owner, args.replica),
          replica: args.replica,
          t0,
          policy: args.rotate,
          counters,
          closed: (file) => dir.closed(file),
          ...forceAfter(),
          ...(metrics ? { metrics } : {}),
          info,
          warn,
        });
      } catch (err) {
        throw new CassetteError(
          'MCPC_FILE_UNWRITABLE',
          `cannot write a journal in the cassette directory ${args.dir} (${ioReason(err)}); give a --cassette-dir you can write`,
          { cause: err },
        );
      }
    },
    handOff() {
      const left = dir.handOff();
      logger()?.info({ dir: args.dir, ...counters, ...options.summary?.() }, 'recording stopped');
      return left;
    },
    async finish() {
      const left = await dir.drain();
      logger()?.info({ dir: args.dir, ...counters, ...options.summary?.() }, 'recording stopped');
      if (left > 0) {
        process.stderr.write(
          `mcp-cassette: ${left} closed journal(s) in ${args.dir} could not be written as cassettes yet; once there is room, run:\n  mcp-cassette recover ${args.dir}\n`,
        );
        return false;
      }
      return true;
    },
  };
}

/** How long a due HTTP rotation waits for in-flight requests before it moves them to the next
 * cassette: 30 s, or `MCPC_ROTATE_FORCE_AFTER_MS` (milliseconds, a positive integer). */
function forceAfter(): { forceAfterMs?: number } {
  const ms = Number(process.env.MCPC_ROTATE_FORCE_AFTER_MS);
  return Number.isInteger(ms) && ms > 0 ? { forceAfterMs: ms } : {};
}
