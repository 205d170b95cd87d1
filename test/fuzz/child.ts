/**
 * The fuzz suite's processes: each CLI it runs (record, the readers, the hostile server) as a
 * child it can drive, time-box and kill, and the checks every one of them must pass (its
 * documented exit status, never a stack trace on stderr).
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** A guard against a hang, not a timing assertion: no healthy step comes near it. */
export const stepTimeoutMs = 60_000;

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
  timedOut: boolean;
}

/** What `drive` gets: the child, a wait for `n` lines on stdout, and a wait for a match on stderr
 * (undefined when the child exits first). */
export interface Driver {
  child: ChildProcess;
  lines(n: number): Promise<void>;
  stderrMatch(re: RegExp): Promise<RegExpExecArray | undefined>;
}

const live = new Set<ChildProcess>();
/** Kills every process a run started and has not seen exit (a test's teardown, the CLI's exit). */
export function killAll(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
}

/** Spawns a process the run owns (killed by killAll). */
export function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.on('close', () => live.delete(child));
  return child;
}

/** Runs a command; `drive` may write to the child and returns when stdin may be closed. */
export function run(args: string[], env: NodeJS.ProcessEnv, drive?: (d: Driver) => Promise<void>): Promise<Ran> {
  const child = track(spawn(process.execPath, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env } }));
  const out: Buffer[] = [];
  let err = '';
  let newlines = 0;
  const waiters = new Set<() => void>();
  const wake = (): void => {
    for (const w of waiters) w();
  };
  child.stdout!.on('data', (c: Buffer) => {
    out.push(c);
    for (const byte of c) if (byte === 0x0a) newlines += 1;
    wake();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString('utf8');
    wake();
  });
  child.stdin!.on('error', () => {}); // a proxy that died shows up in its exit status
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill('SIGKILL');
  }, stepTimeoutMs);
  const closed = new Promise<Ran>((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: err, timedOut });
    });
  });
  /** Resolves with `test()`'s first defined value, or undefined once the child closed. */
  const until = <T>(test: () => T | undefined): Promise<T | undefined> =>
    Promise.race([
      new Promise<T | undefined>((resolve) => {
        const check = (): void => {
          const v = test();
          if (v !== undefined) {
            waiters.delete(check);
            resolve(v);
          }
        };
        waiters.add(check);
        check();
      }),
      closed.then(() => test()),
    ]);
  const driver: Driver = {
    child,
    lines: async (n) => {
      await until(() => (newlines >= n ? true : undefined));
    },
    stderrMatch: (re) => until(() => re.exec(err) ?? undefined),
  };
  void (drive ? drive(driver) : Promise.resolve()).then(
    () => child.stdin!.end(),
    () => child.stdin!.end(),
  );
  return closed;
}

/** The first stderr line that looks like a stack trace or an internal error, if any. */
export function stackTraceLine(stderr: string): string | undefined {
  return stderr
    .split('\n')
    .find(
      (l) =>
        /^\s+at \S/.test(l) || /\b\w*Error: .*\/(dist|lib|node_modules|recorder|replay|validators)\//.test(l) || /internal error/i.test(l),
    );
}

/** Adds one line to `failures` unless `r` ended with an allowed status and no stack trace. */
export function check(failures: string[], step: string, r: Ran, allowed: number[]): boolean {
  const trace = stackTraceLine(r.stderr);
  const problems: string[] = [];
  if (r.timedOut) problems.push(`hung (killed after ${String(stepTimeoutMs / 1000)} s)`);
  else if (r.signal) problems.push(`killed by ${r.signal}`);
  else if (!allowed.includes(r.code ?? -1)) problems.push(`exit ${String(r.code)} (expected ${allowed.join(' or ')})`);
  if (trace) problems.push(`exit ${String(r.code)}, stack trace on stderr: ${trace.trim().slice(0, 200)}`);
  if (problems.length === 0) return true;
  const tail = r.stderr.trim().split('\n').slice(-2).join(' | ').slice(0, 300);
  failures.push(`${step}: ${problems.join('; ')}${tail && !trace ? ` — stderr: ${tail}` : ''}`);
  return false;
}

/** The first line a child writes on stdout (a URL), or undefined if it exits first. */
export function firstLine(child: ChildProcess): Promise<string | undefined> {
  let text = '';
  return new Promise((resolve) => {
    const onData = (c: Buffer): void => {
      text += c.toString('utf8');
      const at = text.indexOf('\n');
      if (at !== -1) {
        child.stdout!.off('data', onData);
        resolve(text.slice(0, at).trim());
      }
    };
    child.stdout!.on('data', onData);
    child.on('close', () => resolve(undefined));
  });
}
