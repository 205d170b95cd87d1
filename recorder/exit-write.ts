import { readdirSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { SettleResult } from '../lib/cassette/settle.js';
import { spawnFinisher, type FinisherJob } from './finisher-job.js';
import type { Pruned } from './rotation/retention.js';

/**
 * How a stdio recording that exits with its server gets its cassette written (recorder/finisher.ts
 * has the why). When it costs a few milliseconds, the recorder writes it itself before it exits:
 * its journal needs no judging (live validation judged every message, or is off), and the
 * journal and the cassette are small (the write rewrites the whole file). Otherwise, or when
 * anything stands in the way (another process holds the cassette's lock, the write fails), a
 * background finisher does it; it also takes the journals that dead recorders left in a
 * `--cassette-dir`. Either way a journal stays until the cassette holds its sessions, and every
 * reader settles what is left.
 */

/** Above this, a journal or the cassette it goes into is written by the finisher. */
const WRITE_HERE_UP_TO = 2 * 1024 * 1024;

export interface ExitWrite {
  /** What was written here, before the exit. */
  results: SettleResult[];
  /** Cassettes the retention policy deleted (`--cassette-dir`). */
  pruned: Pruned[];
  /** Cassette files of the directory its recorders did not write, which retention left alone,
   * and the line that says so. */
  leftAlone?: { files: number; message: string };
  /** The finisher's pid, when one was started. */
  finisher?: number;
}

/** Loads what writing at exit needs while the session runs (called once the server is up), so
 * that the exit pays only for the write. */
export function preloadExitWrite(afterMs = 1000): void {
  setTimeout(() => void import('../lib/cassette/settle.js').catch(() => {}), afterMs).unref();
}

/** `job`: the recorder's journals and where they go (a cassette, or a directory's). `judged`:
 * false when live validation did not judge every message, so the write needs the validator: the
 * finisher starts at once, without loading the settler here first (some 20 ms at exit). */
export async function writeAtExit(job: FinisherJob, logFile?: string, judged = true): Promise<ExitWrite> {
  if (!judged) {
    const pid = spawnFinisher(job, logFile);
    return { results: [], pruned: [], ...(pid !== undefined ? { finisher: pid } : {}) };
  }
  const results: SettleResult[] = [];
  const left: string[] = [];
  const settle = await import('../lib/cassette/settle.js');
  const { settleJournals } = settle;
  for (const journal of job.journals) {
    const cassette = job.cassette ?? ownerOf(journal);
    if (!cassette || size(journal) > WRITE_HERE_UP_TO || size(cassette) > WRITE_HERE_UP_TO) {
      left.push(journal);
      continue;
    }
    try {
      const r = await settleJournals(cassette, { mine: [journal], only: [journal], noJudging: true, light: true, lockRetries: 0 });
      if (r.journals.includes(journal)) results.push(r);
      else left.push(journal);
    } catch {
      left.push(journal); // a lock held elsewhere, a write that failed: the finisher tries again
    }
  }
  let pruned: Pruned[] = [];
  let leftAlone: ExitWrite['leftAlone'];
  if (job.dir && left.length === 0 && job.retention) {
    const retention = await import('./rotation/retention.js');
    const r = retention.prune(job.dir, job.retention);
    pruned = r.pruned;
    if (r.leftAlone > 0) leftAlone = { files: r.leftAlone, message: retention.leftAloneLine(job.dir, r.leftAlone) };
  }
  // Journals that killed recorders left (beside the cassette, or in the directory): the finisher's.
  const others = job.dir ? journalsIn(job.dir) : job.cassette ? settle.listJournals(job.cassette) : [];
  const orphans = deadOnes(others, job.journals, settle).length > 0;
  const said = leftAlone ? { leftAlone } : {};
  if (left.length === 0 && !orphans) return { results, pruned, ...said };
  const pid = spawnFinisher({ ...job, journals: left }, logFile);
  return { results, pruned, ...said, ...(pid !== undefined ? { finisher: pid } : {}) };
}

/** The journals of a `--cassette-dir` directory. */
function journalsIn(dir: string): string[] {
  try {
    return readdirSync(dir)
      .filter((n) => n.startsWith('.') && n.endsWith('.journal'))
      .map((n) => join(dir, n));
  } catch {
    return [];
  }
}

/** Of `journals`, those whose recorder is gone (not `mine`): the finisher folds them. */
function deadOnes(journals: readonly string[], mine: readonly string[], settle: typeof import('../lib/cassette/settle.js')): string[] {
  return journals.filter((path) => {
    if (mine.includes(path)) return false;
    try {
      return !settle.ownerAlive(settle.openJournalHeader(path));
    } catch {
      return true; // unreadable: the finisher says so
    }
  });
}

/** The cassette a journal of a directory belongs to: `.<cassette>.<session id>.journal`. */
function ownerOf(journal: string): string | undefined {
  const m = /^\.(.+\.cassette\.json)\.[^.]+\.journal$/.exec(basename(journal));
  return m ? join(dirname(journal), m[1]!) : undefined;
}

function size(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}
