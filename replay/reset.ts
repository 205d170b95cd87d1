/**
 * `replay --reset <command>`: a shell command that puts a stateful server's data back where the
 * recording started (a fixture copied over, a database truncated), run before each replay run and
 * each calibration run, so that what differs between runs is volatility, not state.
 */
import { spawnSync } from 'node:child_process';
import { CassetteError } from '../lib/errors.js';

export function runReset(command: string): void {
  const done = spawnSync(command, { shell: true, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8', timeout: 120_000 });
  if (done.error || done.status !== 0) {
    const why = done.error
      ? done.error.message
      : done.signal
        ? `it was killed by ${done.signal}`
        : `it exited with ${String(done.status)}${done.stderr.trim() ? `: ${done.stderr.trim().split('\n').slice(-3).join(' / ')}` : ''}`;
    throw new CassetteError(
      'MCPC_USAGE',
      `--reset "${command}" failed (${why}); fix the command (it runs in a shell before each run) and try again. Nothing was replayed after it.`,
    );
  }
}
