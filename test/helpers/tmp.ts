import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import { processesNaming } from './proc.js';

/** A fresh directory for one test, removed (once nothing works in it) when the test ends. */
export function tempDir(t: ExecutionContext, prefix = 'mcp-cassette-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.teardown(() => removeDir(dir));
  return dir;
}

/**
 * Removes a test's directory once no process names it on its command line. A recorder that
 * exits with its server leaves the cassette write to a detached finisher (its job, cassette path
 * included, is its argument), and a finisher that comes late still takes the cassette's lock, for
 * a moment, after the work is done: removing the directory under it fails (ENOTEMPTY) or races.
 * Waiting for those processes is the cleanup a test owes; one still there after `timeoutMs` is a
 * process the test leaked, and that fails the test with its command line.
 */
export async function removeDir(dir: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let left = processesNaming(dir);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    left = processesNaming(dir);
  }
  rmSync(dir, { recursive: true, force: true });
  if (left.length > 0) {
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // it ended in between
      }
    }
    throw new Error(
      `processes still working in ${dir} after ${timeoutMs} ms (killed now): ${left.map((p) => `${p.pid} ${p.args}`).join('; ')}`,
    );
  }
}
