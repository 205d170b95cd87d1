import { spawn } from 'node:child_process';
import { cliPath } from '../lib/paths.js';
import { lowerPriority } from '../lib/priority.js';
import type { RetentionPolicy } from './rotation/retention.js';

/** What a recorder hands its finisher (recorder/finisher.ts), as one JSON argument, and how it
 * starts it. Its own module, so that neither the recorder's exit nor the entry point loads the
 * finisher itself (the settler, the cassette store). */
export interface FinisherJob {
  /** `--cassette`: the cassette the journals go into. */
  cassette?: string;
  /** `--cassette-dir`: the directory whose closed journals each go into their own cassette. */
  dir?: string;
  /** The recorder's own journals (folded even if the recorder has not exited yet). */
  journals: string[];
  retention?: RetentionPolicy;
}

/** The hidden command the recorder starts. */
export const FINISH_COMMAND = 'finish-journal';

/** The finisher runs below the host's own servers' priority (nice 10, and its scheduler group too):
 * it is never what a host that starts servers at once waits for. */
const FINISHER_NICE = 10;

/** Starts the finisher for `job`, detached, with no pipe of the host's (a host waits for every
 * stdio stream of its server to close before it calls the server gone). Returns its pid. */
export function spawnFinisher(job: FinisherJob, logFile?: string): number | undefined {
  const child = spawn(process.execPath, [cliPath, FINISH_COMMAND, JSON.stringify(job), ...(logFile ? [logFile] : [])], {
    detached: true,
    stdio: 'ignore',
    windowsHide: true,
  });
  child.on('error', () => {
    // Cannot start (no process left for it): the next read of the cassette settles the journal.
  });
  child.unref();
  if (child.pid !== undefined) lowerPriority(child.pid, FINISHER_NICE);
  return child.pid;
}
