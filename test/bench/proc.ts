/** Process helpers for the benchmarks: spawning, waiting, and reading a process's memory. */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, node, root, node22Peer } from '../helpers/paths.js';

export { cli, node, root };
export const benchDir = join(root, 'dist', 'test', 'bench');
export const benchServer = join(benchDir, 'bench-server.js');
export const pipeFloor = join(benchDir, 'pipe-floor.js');
export const httpFloor = join(benchDir, 'http-floor.js');
export const talkbackProxy = join(benchDir, 'talkback-proxy.js');
export const rssReport = join(benchDir, 'rss-report.js');
export const forceLoopback = join(root, 'test', 'servers', 'force-loopback.cjs');
export const mcpProxyBin = node22Peer('node_modules', 'mcp-proxy', 'dist', 'bin', 'mcp-proxy.mjs');
export const supergatewayBin = join(root, 'node_modules', 'supergateway', 'dist', 'index.js');

/**
 * Extra node flags for mcp-cassette's own processes and the floors: `BENCH_CPU_PROF=<dir>` writes
 * a CPU profile of each (and of the validator's worker thread) there, for
 * `node dist/test/bench/profile-summary.js <dir>`.
 */
export function proxyNodeFlags(): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

export function start(argv: string[], options: SpawnOptions = {}): ChildProcess {
  const child = spawn(node, argv, { stdio: ['pipe', 'pipe', 'inherit'], ...options });
  child.on('error', (err) => process.stderr.write(`bench: cannot start ${argv.join(' ')}: ${err.message}\n`));
  return child;
}

export function ended(child: ChildProcess): Promise<void> {
  return new Promise((r) => (child.exitCode !== null || child.signalCode !== null ? r() : child.once('close', () => r())));
}

/** Resolves with the first stdout line (a URL, for the HTTP proxies); rejects after `ms`. */
export function firstLine(child: ChildProcess, ms = 15_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`no output line after ${ms} ms (got ${JSON.stringify(text)})`)), ms);
    const onData = (c: Buffer): void => {
      text += c.toString();
      if (text.includes('\n')) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve(text.split('\n')[0]!.trim());
      }
    };
    child.stdout!.on('data', onData);
    child.once('close', () => reject(new Error(`the process ended before printing a line (${JSON.stringify(text)})`)));
  });
}

/**
 * The port a peer started with `--require forceLoopback` (and port 0) listens on: the preload's
 * line on its stderr, which must be a pipe; the rest of its stderr is read to nowhere.
 */
export function loopbackPort(child: ChildProcess, ms = 15_000): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    let found = false;
    const timer = setTimeout(() => reject(new Error(`no force-loopback line after ${ms} ms (got ${JSON.stringify(text)})`)), ms);
    child.stderr!.on('data', (c: Buffer) => {
      if (found) return;
      text += c.toString();
      const m = /^force-loopback: listening on 127\.0\.0\.1:(\d+)$/m.exec(text);
      if (!m) return;
      found = true;
      clearTimeout(timer);
      resolve(Number(m[1]));
    });
    child.once('close', () => reject(new Error(`the process ended before it listened (${JSON.stringify(text)})`)));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** A process's resident memory now and at its peak so far (MB), from /proc/<pid>/status. */
export function memory(pid: number): { rssMb: number; peakMb: number } | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string): number => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
}

/** Stops a process: `signal`, then SIGKILL if it is still there after `graceMs`. */
export async function stop(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM', graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await ended(child);
  clearTimeout(timer);
}

/**
 * CPU milliseconds used so far (user + system): this process's own, all threads
 * (process.cpuUsage), and that of the children it has reaped (cutime + cstime of /proc/self/stat,
 * in 10 ms ticks): a child's CPU counts here once it has exited and been waited for.
 */
export function cpuClock(): { selfMs: number; childrenMs: number } {
  const u = process.cpuUsage();
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { selfMs: (u.user + u.system) / 1000, childrenMs: ((Number(f[13]) + Number(f[14])) * 1000) / 100 };
}
