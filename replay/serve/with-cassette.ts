/**
 * `withCassette(name, options, fn)`: the test-runner side of record modes. It decides from the
 * mode (MCP_CASSETTE_MODE, then `options.mode`, then `once`) and the cassette on disk whether the
 * test talks to the real server through the recording proxy, to `mcp-cassette serve`, or to the
 * real server directly, hands `fn` a server command (stdio) or URL (Streamable HTTP), and after
 * `fn` checks the outcome: a replay that met an unmatched request throws `MCPC_SERVE_FAILED`; a
 * recording is moved into place only when `fn` succeeded, so a failing test never leaves a half
 * cassette behind for the next run to replay.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { cliPath } from '../../lib/paths.js';
import { formatSummary } from './serve-summary.js';
import type { MatchMode } from './matcher.js';
import { decide, effectiveMode, ServeError, type Action, type RecordMode } from './modes.js';
import type { ServeReport } from './run-serve.js';

/** A real Streamable HTTP server: its endpoint, and headers to send it (credentials). */
export interface RealHttpServer {
  url: string;
  headers?: Record<string, string>;
}

export interface WithCassetteOptions {
  /** The real server: its command line (stdio) or its Streamable HTTP endpoint. Needed to record;
   * optional for mode `none`. */
  server?: string[] | RealHttpServer;
  /** Where cassettes live when `name` is a bare name (default `./cassettes`). */
  dir?: string;
  /** Record mode; MCP_CASSETTE_MODE overrides it. */
  mode?: RecordMode;
  /** How the test talks to the cassette or the server, in every mode: `stdio` (a server command;
   * default for a command) or `http` (a URL; default for a URL). When it differs from the real
   * server's, `serve` bridges the two. */
  transport?: 'stdio' | 'http';
  match?: MatchMode;
  /** `fast` (default), `recorded` or `xN`. */
  timing?: string;
  ignore?: string[];
  /** Fail the test when recorded requests went unused. */
  failOnUnused?: boolean;
  /** Environment for the mode lookup and the processes started (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** How long to wait after `fn` for servers and recorders to finish (default 15 s). */
  settleMs?: number;
}

export interface CassetteRun {
  /** The effective mode and what it means for this run. */
  mode: RecordMode;
  action: Action;
  /** The cassette's path. */
  cassette: string;
  /** stdio: the server command to start (`command` + `args`, as SDK stdio transports take them). */
  command?: string;
  args?: string[];
  /** Streamable HTTP: the endpoint to connect to. */
  url?: string;
}

export function cassettePath(name: string, dir = 'cassettes'): string {
  if (isAbsolute(name) || name.includes('/') || name.endsWith('.json'))
    return resolve(name.endsWith('.json') ? name : `${name}.cassette.json`);
  return resolve(dir, `${name}.cassette.json`);
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Where the `serve` processes of one `withCassette` call write their reports. */
const reportsOf = (work: string) => join(work, 'reports');

function readReports(work: string): ServeReport[] {
  const dir = reportsOf(work);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.startsWith('serve-') && f.endsWith('.json'))
    .flatMap((f) => {
      try {
        return [JSON.parse(readFileSync(join(dir, f), 'utf8')) as ServeReport];
      } catch {
        return []; // being written
      }
    });
}

/** Waits for `predicate`, polling; false when the deadline passed. */
async function until(predicate: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) return false;
    await sleep(25);
  }
  return true;
}

function serveFlags(options: WithCassetteOptions, work: string): string[] {
  return [
    '--report',
    join(reportsOf(work), 'serve-{pid}.json'),
    '--log-level',
    'warn',
    ...(options.match ? ['--match', options.match] : []),
    ...(options.timing ? ['--timing', options.timing] : []),
    ...(options.ignore ?? []).flatMap((p) => ['--ignore', p]),
    ...(options.failOnUnused ? ['--fail-on-unused'] : []),
  ];
}

/** Starts a long-running CLI process (serve --listen, record --upstream) and reads its URL. */
async function startListener(
  argv: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ child: ChildProcess; url: string; stderr: () => string; exit: Promise<number | null> }> {
  const child = spawn(process.execPath, argv, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let err = '';
  child.stderr!.on('data', (c: Buffer) => (err += c.toString('utf8')));
  const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(
      () => rej(new ServeError('MCPC_SERVE_TIMEOUT', `mcp-cassette did not print its URL within 15 s: ${err.slice(-500)}`)),
      15_000,
    );
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        res(out.slice(0, nl).trim());
      }
    });
    void exit.then((code) => {
      clearTimeout(timer);
      rej(new ServeError('MCPC_SERVE_FAILED', `mcp-cassette exited (${code}) before listening: ${err.trim().slice(-500)}`));
    });
  });
  return { child, url, stderr: () => err, exit };
}

async function stopListener(l: { child: ChildProcess; exit: Promise<number | null> }, settleMs: number): Promise<number | null> {
  l.child.kill('SIGTERM');
  const timer = setTimeout(() => l.child.kill('SIGKILL'), settleMs);
  const code = await l.exit;
  clearTimeout(timer);
  return code;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

async function attempt<T>(fn: () => Promise<T> | T): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await fn() };
  } catch (error) {
    return { ok: false, error };
  }
}

/** `serve` flags naming the real server: `--upstream` (and headers), or `-- <command>`. */
function realServerFlags(server: string[] | RealHttpServer): { flags: string[]; tail: string[] } {
  if (Array.isArray(server)) return { flags: [], tail: ['--', ...server] };
  return {
    flags: ['--upstream', server.url, ...Object.entries(server.headers ?? {}).flatMap(([k, v]) => ['--header', `${k}: ${v}`])],
    tail: [],
  };
}

export async function withCassette<T>(name: string, options: WithCassetteOptions, fn: (run: CassetteRun) => Promise<T> | T): Promise<T> {
  const env = options.env ?? process.env;
  const settleMs = options.settleMs ?? 15_000;
  const cassette = cassettePath(name, options.dir);
  const mode = effectiveMode(options.mode, env);
  const server = options.server;
  const action = decide(mode, cassette, server !== undefined);
  const http = options.transport ? options.transport === 'http' : server !== undefined && !Array.isArray(server);
  const work = mkdtempSync(join(tmpdir(), 'mcp-cassette-run-'));
  const childEnv = { ...env };
  delete childEnv.MCP_CASSETTE_MODE; // the decision is made; the processes we start must not redo it
  const base = { mode, action, cassette };

  try {
    if (action === 'passthrough') {
      const real = server!;
      // The real server as it is, when the test talks its transport.
      if (Array.isArray(real) && !http) return await fn({ ...base, command: real[0]!, args: real.slice(1) });
      if (!Array.isArray(real) && http) return await fn({ ...base, url: real.url });
      // Otherwise bridged by `serve`, which keeps nothing in passthrough.
      const { flags, tail } = realServerFlags(real);
      const argv = [cliPath, 'serve', cassette, '--mode', 'passthrough', '--log-level', 'warn', ...flags];
      return await serveAround(argv, tail, http, base, work, childEnv, settleMs, fn, false);
    }
    if (action === 'record') return await record(cassette, mode, server!, http, work, childEnv, settleMs, fn);
    // Replay, possibly with new episodes recorded.
    const flags = serveFlags(options, work);
    let tail: string[] = [];
    if (action === 'replay-and-record') {
      const real = realServerFlags(server!);
      flags.push('--mode', 'new_episodes', ...real.flags);
      tail = real.tail;
    } else {
      flags.push('--mode', 'none');
    }
    return await serveAround(
      [cliPath, 'serve', cassette, ...flags],
      tail,
      http,
      base,
      work,
      childEnv,
      settleMs,
      fn,
      Boolean(options.failOnUnused),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Runs `fn` against `serve` (argv before the real server's `-- command`, which is `tail`): a
 * listener over HTTP, or a server command over stdio; then waits for serving to end and settles. */
async function serveAround<T>(
  argv: string[],
  tail: string[],
  http: boolean,
  base: Omit<CassetteRun, 'command' | 'args' | 'url'>,
  work: string,
  env: NodeJS.ProcessEnv,
  settleMs: number,
  fn: (run: CassetteRun) => Promise<T> | T,
  failOnUnused: boolean,
): Promise<T> {
  const withReport = argv.includes('--report') ? argv : [...argv, '--report', join(reportsOf(work), 'serve-{pid}.json')];
  if (http) {
    const l = await startListener([...withReport, '--listen', '127.0.0.1:0', ...tail], env);
    const outcome = await attempt(() => fn({ ...base, url: l.url }));
    await stopListener(l, settleMs);
    return settle(outcome, work, failOnUnused);
  }
  // A client may start the command more than once (a version probe first): one run.
  const outcome = await attempt(() => fn({ ...base, command: process.execPath, args: [...withReport, '--run', randomUUID(), ...tail] }));
  const settled = await until(() => readReports(work).every((r) => !r.running), settleMs);
  if (!settled && outcome.ok)
    throw new ServeError(
      'MCPC_SERVE_TIMEOUT',
      `mcp-cassette serve did not finish within ${settleMs} ms after the test (did the client close it?)`,
    );
  return settle(outcome, work, failOnUnused);
}

/** The test's outcome, unless serving failed: then MCPC_SERVE_FAILED with the serve summary
 * (and the test's own error as its cause, since an unmatched request usually explains it).
 * With `failOnUnused`, a recorded request counts as unused only when no `serve` process of the
 * test asked for it (a client may start several, such as the v2 SDK's version probe). */
function settle<T>(outcome: Outcome<T>, dir: string, failOnUnused: boolean): T {
  const reports = readReports(dir);
  const failed: ServeReport[] = reports
    .filter((r) => r.unmatched.length > 0 || r.answerMismatches.length > 0)
    .map((r) => ({ ...r, failed: true }));
  const replays = reports.filter((r) => !r.probe && (r.action === 'replay' || r.action === 'replay-and-record'));
  if (failOnUnused && replays.length > 0) {
    const key = (u: { session: number; seq: number }) => `${u.session}:${u.seq}`;
    const unused = replays[0]!.unused.filter((u) => replays.every((r) => r.unused.some((v) => key(v) === key(u))));
    if (unused.length > 0 && failed.length === 0) failed.push({ ...replays[0]!, unused, failed: true });
  }
  if (failed.length > 0) {
    const text = failed.map((r) => formatSummary(r)).join('');
    const own = outcome.ok ? '' : `\nthe test failed with: ${(outcome.error as Error)?.message ?? String(outcome.error)}`;
    throw new ServeError(
      'MCPC_SERVE_FAILED',
      `the cassette could not answer every request:\n${text}${own}`,
      outcome.ok ? undefined : { cause: outcome.error },
    );
  }
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

async function record<T>(
  cassette: string,
  mode: RecordMode,
  server: string[] | RealHttpServer,
  http: boolean,
  work: string,
  env: NodeJS.ProcessEnv,
  settleMs: number,
  fn: (run: CassetteRun) => Promise<T> | T,
): Promise<T> {
  // Record beside nothing: into a scratch file, moved into place only when the test passed.
  const scratch = join(work, basename(cassette));
  const base = { mode, action: 'record' as const, cassette };
  let result: T;
  if (Array.isArray(server) && !http) {
    result = await fn({
      ...base,
      command: process.execPath,
      args: [cliPath, 'record', '--cassette', scratch, '--log-level', 'warn', '--', ...server],
    });
    // Recorders fold their journals into the cassette after their server exits.
    const done = await until(() => existsSync(scratch) && !readdirSync(work).some((f) => f.endsWith('.journal')), settleMs);
    if (!done && !existsSync(scratch))
      throw new ServeError(
        'MCPC_SERVE_TIMEOUT',
        `nothing was recorded into ${cassette}: did the test start the server command it was given?`,
      );
  } else if (!Array.isArray(server) && http && !server.headers) {
    const l = await startListener(
      [cliPath, 'record', '--upstream', server.url, '--listen', '127.0.0.1:0', '--cassette', scratch, '--log-level', 'warn'],
      env,
    );
    try {
      result = await fn({ ...base, url: l.url });
    } finally {
      await stopListener(l, settleMs);
    }
  } else {
    // Across transports (or with headers the client does not know): `serve` bridges the test's
    // client to the real server and records what passes.
    const { flags, tail } = realServerFlags(server);
    result = await serveAround(
      [cliPath, 'serve', scratch, '--mode', 'all', '--log-level', 'warn', ...flags],
      tail,
      http,
      base,
      work,
      env,
      settleMs,
      fn,
      false,
    );
  }
  if (existsSync(scratch)) {
    mkdirSync(dirname(cassette), { recursive: true });
    copyFileSync(scratch, cassette);
  }
  return result;
}
