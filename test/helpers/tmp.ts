import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';

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

interface NamingProcess {
  pid: number;
  args: string;
}

/** Processes other than this one whose command line holds `text` (Linux: /proc; else ps). */
function processesNaming(text: string): NamingProcess[] {
  const found: NamingProcess[] = [];
  if (process.platform === 'linux') {
    for (const entry of readdirSync('/proc')) {
      const pid = Number(entry);
      if (!Number.isInteger(pid) || pid === process.pid) continue;
      let args: string;
      try {
        args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        continue; // gone, or not ours to read
      }
      if (args.includes(text)) found.push({ pid, args });
    }
    return found;
  }
  if (process.platform === 'win32') return found; // no portable list of command lines
  const out = execFileSync('ps', ['-axww', '-o', 'pid=,args='], { encoding: 'utf8' });
  for (const row of out.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(row);
    if (m && Number(m[1]) !== process.pid && m[2]!.includes(text)) found.push({ pid: Number(m[1]), args: m[2]! });
  }
  return found;
}
