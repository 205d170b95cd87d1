import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
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
export function waitForOutput(stream: NodeJS.ReadableStream, predicate: (text: string) => boolean, timeoutMs = 15_000): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.off('data', onData);
      reject(new Error(`timed out waiting for output; got so far: ${text.slice(-500)}`));
    }, timeoutMs);
    const onData = (c: Buffer): void => {
      text += c.toString('utf8');
      if (predicate(text)) {
        clearTimeout(timer);
        stream.off('data', onData);
        resolve(text);
      }
    };
    stream.on('data', onData);
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
