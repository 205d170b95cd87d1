import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import type { ExecutionContext } from 'ava';

/** Spawns a process that the test owns: it is killed (with its group) when the test ends. */
export function spawnTracked(t: ExecutionContext, command: string, args: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], ...options });
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return child;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

/** Collects a process's output until it exits (its pipes closed). */
export function collect(child: ChildProcess): Promise<Finished> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (c: Buffer) => out.push(c));
  child.stderr?.on('data', (c: Buffer) => err.push(c));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err).toString('utf8') }));
  });
}

/** Resolves once `predicate` holds for the bytes read so far from `stream`. */
export function waitForOutput(stream: NodeJS.ReadableStream, predicate: (text: string) => boolean, timeoutMs = 60_000): Promise<string> {
  // The timeout guards against a hang, not a slow start: on a busy machine a process can take
  // many seconds to print its first line. A stream that ends first fails at once, with what it said.
  let text = '';
  return new Promise((resolve, reject) => {
    const done = (): void => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', onEnd);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`timed out waiting for output; got so far: ${text.slice(-500)}`));
    }, timeoutMs);
    const onData = (c: Buffer): void => {
      text += c.toString('utf8');
      if (predicate(text)) {
        done();
        resolve(text);
      }
    };
    const onEnd = (): void => {
      done();
      reject(new Error(`the output ended before what was waited for; it said: ${text.slice(-500)}`));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
  });
}

export function delay(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export interface NamingProcess {
  pid: number;
  args: string;
}

/** Processes other than this one whose command line holds `text` (Linux: /proc; else ps). */
export function processesNaming(text: string): NamingProcess[] {
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
