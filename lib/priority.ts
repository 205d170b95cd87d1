/**
 * Lowering a process's CPU priority so that background work (a finisher folding a journal) never
 * competes with what a host waits for. POSIX nice alone is not enough on Linux: a detached child
 * (setsid) gets its own scheduler autogroup, and nice only ranks processes within one group, so a
 * niced finisher in its own group still takes an equal share beside every other session. Writing
 * the group's own nice value (/proc/<pid>/autogroup) ranks the whole group below the others.
 */
import { writeFileSync } from 'node:fs';
import { setPriority } from 'node:os';

/** Best effort: where not allowed or not supported, the process keeps its priority. */
export function lowerPriority(pid: number, nice: number): void {
  try {
    setPriority(pid, nice);
  } catch {
    // not allowed here
  }
  if (process.platform !== 'linux') return;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // autogroup scheduling is off (no such file) or the process is gone
  }
}
