import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ExecutionContext } from 'ava';
import type { Cassette } from '../../../lib/cassette/cassette.js';
import { cli, node } from '../../helpers/paths.js';
import { collect, spawnTracked, waitForOutput, type Finished } from '../../helpers/proc.js';

const run = promisify(execFile);

export interface DirRecorder {
  url: string;
  child: ChildProcess;
  finished: Promise<Finished>;
  /** What the recorder wrote on stderr so far. */
  stderr(): string;
  /** SIGINT, then wait for the exit. */
  stop(): Promise<Finished>;
}

/** `record --upstream <url> --cassette-dir <dir> ...` as a subprocess, logging JSON at info. */
export async function startDirRecorder(
  t: ExecutionContext,
  upstream: string,
  dir: string,
  extra: string[] = [],
  options: { nodeArgs?: string[]; env?: Record<string, string> } = {},
): Promise<DirRecorder> {
  const child = spawnTracked(
    t,
    node,
    [...(options.nodeArgs ?? []), cli, 'record', '--upstream', upstream, '--cassette-dir', dir, '--log-level', 'info', ...extra],
    options.env ? { env: { ...process.env, ...options.env } } : {},
  );
  const finished = collect(child);
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const out = await waitForOutput(child.stdout!, (s) => s.includes('\n'));
  return {
    url: out.split('\n')[0]!.trim(),
    child,
    finished,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGINT');
      return finished;
    },
  };
}

/** The closed cassettes of a directory, by name. */
export function cassetteFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((n) => n.endsWith('.cassette.json') && !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, n));
}

export function journalsIn(dir: string): string[] {
  return readdirSync(dir).filter((n) => n.endsWith('.journal'));
}

export function readJson(path: string): Cassette {
  return JSON.parse(readFileSync(path, 'utf8')) as Cassette;
}

/** The pino line with this message from a recorder's stderr. */
export function logLine(stderr: string, msg: string): Record<string, unknown> | undefined {
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      if (o.msg === msg) return o;
    } catch {
      // not a log line
    }
  }
  return undefined;
}

/** `validate <paths...> --format json`: the exit code and the violations. */
export interface ValidateReport {
  summary: { cassettes: number; sessions: number; messages: number; errors: number };
  violations: { severity: string; rule: string; message: string }[];
}

export async function validateJson(paths: string[]): Promise<ValidateReport> {
  const { stdout } = await run(node, [cli, 'validate', ...paths, '--format', 'json'], { maxBuffer: 64 * 1024 * 1024 });
  return JSON.parse(stdout) as ValidateReport;
}

/** One sample of a Prometheus text exposition (`name{labels}`, exact), or undefined. */
export function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1));
  return undefined;
}

export async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  return res.text();
}

/** Waits until `check` holds (polling the file system), or fails after `ms`. */
export async function until(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export { existsSync, spawnTracked, collect, cli, node };
