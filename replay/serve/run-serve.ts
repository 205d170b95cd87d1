/**
 * `mcp-cassette serve <cassette> [--listen host:port] [options] [-- <real server command> | --upstream <url>]`:
 * the cassette as a mock MCP server over stdio (default) or Streamable HTTP. Returns the exit
 * status: 0 when every request was answered from the cassette (or the real server, in the modes
 * that use it), 1 when one was not (or a client answered a server→client request differently, or
 * `--fail-on-unused` and something recorded went unused), 2 for usage errors and missing or
 * invalid cassettes (thrown as coded errors).
 *
 * Record modes pick the path. Recording with the client and the real server on the same
 * transport runs the recording proxy in our place (`record -- <command>`, or `record --upstream`
 * when no `--header` is to be added), so the cassette is byte-exact; passthrough over stdio runs
 * the server itself. Everything else (across transports, passthrough over HTTP, headers to add)
 * is bridged by the serve engine with an empty cassette and the real server as its fallback,
 * which records what passed (or, in passthrough, nothing). Over stdio, `once` and `all` record in
 * runs that span a client's processes (runs.ts).
 */
import { spawn } from 'node:child_process';
import { emptyCassette } from '../../lib/cassette/cassette.js';
import { loadCassette } from '../../lib/cassette/store.js';
import { loadCassetteInput } from '../../lib/cassette/cassette-set.js';
import { isDirectory } from '../../lib/cassette/directory.js';
import { createLogger, LOG_FORMATS, type LogFormat, type Logger } from '../../lib/log.js';
import { CassetteError } from '../../lib/errors.js';
import { cliPath } from '../../lib/paths.js';
import { parseHeaderOptions } from '../../lib/http-headers.js';
import { compileIgnore } from '../normalise.js';
import { ServeEngine } from './engine.js';
import type { Fallback } from './live-session.js';
import { emptyServeSummary, formatSummary, type ServeSummary } from './serve-summary.js';
import { parseTiming } from './timing.js';
import { serveHttp } from './http.js';
import { MATCH_MODES, type MatchMode } from './matcher.js';
import { decide, effectiveMode, ServeError, type Action, type RecordMode } from './modes.js';
import { beginRun, soloRun, type Run } from './runs.js';
import { serveStdio } from './stdio.js';
import { writeReportText } from '../../lib/cli-output.js';
import { bracketHost, splitHostPort } from '../../lib/listen.js';

export interface ServeArgs {
  /** The cassette (the first one, when several were given). */
  cassette: string;
  /** Every cassette file or directory given, when more than one: served as one cassette. */
  cassettes?: string[];
  /** The real server, for record modes that need one: its command line (stdio)… */
  command: string[];
  /** …or its Streamable HTTP endpoint. */
  upstream?: string;
  /** `Name: value` headers for every request to the upstream (credentials). */
  header?: string[];
  listen?: string;
  match?: string;
  timing?: string;
  ignore?: string[];
  mode?: string;
  /** The recording run this process belongs to (see runs.ts; default MCP_CASSETTE_RUN). */
  run?: string;
  /** Write the JSON summary here (`{pid}` is replaced by our pid); written once at start with
   * `running: true`, so a test helper can tell how many serve processes a client started. */
  report?: string;
  failOnUnused?: boolean;
  allowHost?: string[];
  allowOrigin?: string[];
  answerTimeout?: number;
  logLevel?: string;
  /** json or pretty; absent: pretty on a terminal (lib/log.ts). */
  logFormat?: string;
  logFile?: string;
}

export interface ServeIo {
  stdin: NodeJS.ReadableStream;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  /** HTTP mode runs until this aborts (the CLI wires SIGINT and SIGTERM to it). */
  stop?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

export interface ServeReport extends ServeSummary {
  running: boolean;
  pid: number;
  cassette: string;
  transport: 'stdio' | 'http';
  mode: RecordMode;
  action: Action;
  url?: string;
  exitCode?: number;
}

export function parseListen(text: string): { host: string; port: number } {
  const address = splitHostPort(text.trim());
  if (!address) throw new ServeError('MCPC_SERVE_USAGE', `--listen ${JSON.stringify(text)} is not host:port or port`);
  return { host: address.host ?? '127.0.0.1', port: address.port };
}

function reportPath(pattern: string | undefined): string | undefined {
  return pattern?.replace(/\{pid\}/g, String(process.pid));
}

/** The summary file, rewritten as the run goes; `-` (HTTP only) prints the final one on stdout. */
function writeReport(path: string | undefined, report: ServeReport, stdout: ServeIo['stdout']): void {
  if (!path || (path === '-' && report.running)) return;
  writeReportText(path, JSON.stringify(report, null, 2) + '\n', stdout);
}

/** Runs another process in our place with our stdio (record and passthrough modes). */
function runInPlace(argv: string[], io: ServeIo): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), { stdio: 'inherit', ...(io.env ? { env: io.env } : {}) });
    const forward = (s: NodeJS.Signals) => () => child.kill(s);
    const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => [s, forward(s)] as const);
    for (const [s, h] of handlers) process.on(s, h);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      for (const [s, h] of handlers) process.off(s, h);
      resolve(code ?? (signal ? 128 + 15 : 1));
    });
  });
}

function parseUpstream(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ServeError('MCPC_SERVE_USAGE', `--upstream ${JSON.stringify(text)} is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new ServeError('MCPC_SERVE_USAGE', `--upstream ${JSON.stringify(text)}: use an http or https URL`);
  return url.href;
}

export async function serveCommand(args: ServeArgs, io: ServeIo): Promise<number> {
  const { match, timing, listen, upstream, headers } = serveSettings(args);
  const env = io.env ?? process.env;
  const hasServer = args.command.length > 0 || upstream !== undefined;
  const mode: RecordMode = args.mode !== undefined || env.MCP_CASSETTE_MODE ? effectiveMode(args.mode, env) : hasServer ? 'once' : 'none';
  const decideNow = (): Action => decide(mode, args.cassette, hasServer);
  let action: Action;
  let run: Run | undefined;
  if (listen) {
    // One process serves the whole run over HTTP.
    action = decideNow();
    if (action === 'record') run = soloRun(args.cassette, mode);
  } else {
    ({ action, run } = await beginRun(
      args.cassette,
      mode,
      decideNow,
      args.run !== undefined ? { ...env, MCP_CASSETTE_RUN: args.run } : env,
    ));
  }
  const report = reportPath(args.report);
  if (report === '-' && !listen)
    throw new ServeError('MCPC_SERVE_USAGE', '--report - (stdout) needs --listen: over stdio, stdout carries the protocol; give a file');
  const base = { pid: process.pid, cassette: args.cassette, transport: listen ? ('http' as const) : ('stdio' as const), mode, action };
  try {
    checkOneCassette(args, action);
    const inPlace = inPlaceCommand(args, action, listen, upstream, headers);
    if (inPlace) {
      writeReport(report, { ...emptyServeSummary(), ...base, running: true }, io.stdout);
      const exitCode = await runInPlace(inPlace, io);
      writeReport(report, { ...emptyServeSummary(), ...base, running: false, exitCode }, io.stdout);
      return exitCode;
    }
    return await serveWithEngine(args, io, { match, timing, listen, upstream, headers, action, report, base });
  } finally {
    await run?.end();
  }
}

/** The options checked and parsed: a usage error (ServeError) names the one that is wrong. */
function serveSettings(args: ServeArgs): Pick<EngineRun, 'match' | 'timing' | 'listen' | 'upstream' | 'headers'> {
  const match = (args.match ?? 'params') as MatchMode;
  if (!MATCH_MODES.includes(match))
    throw new ServeError('MCPC_SERVE_USAGE', `--match ${JSON.stringify(args.match)}: use one of ${MATCH_MODES.join(', ')}`);
  const timing = parseTiming(args.timing ?? 'fast');
  if (!timing)
    throw new ServeError('MCPC_SERVE_USAGE', `--timing ${JSON.stringify(args.timing)}: use fast, recorded or xN (x2 is twice as fast)`);
  const listen = args.listen !== undefined ? parseListen(args.listen) : undefined;
  if (args.upstream !== undefined && args.command.length > 0)
    throw new ServeError('MCPC_SERVE_USAGE', 'give the real server either as a command after -- or as --upstream <url>, not both');
  const upstream = args.upstream !== undefined ? parseUpstream(args.upstream) : undefined;
  const headers = parseHeaderOptions(args.header ?? []);
  if (Object.keys(headers).length > 0 && upstream === undefined)
    throw new ServeError('MCPC_SERVE_USAGE', '--header is for the requests to an --upstream server; give --upstream <url> too');
  if (args.answerTimeout !== undefined && !(args.answerTimeout > 0))
    throw new ServeError('MCPC_SERVE_USAGE', `--answer-timeout ${args.answerTimeout}: give a number of milliseconds above 0`);
  return { match, timing, listen, upstream, headers };
}

/** Replays read the cassettes; a record mode writes into one file (passthrough uses none). */
function checkOneCassette(args: ServeArgs, action: Action): void {
  const writes = action !== 'replay' && action !== 'passthrough';
  if (writes && args.cassettes)
    throw new ServeError(
      'MCPC_SERVE_USAGE',
      `${args.cassettes.length} cassettes were given: serve replays several (record mode none or once), but record modes write into one cassette file; name one file`,
    );
  if (writes && isDirectory(args.cassette))
    throw new ServeError(
      'MCPC_SERVE_USAGE',
      `${args.cassette} is a directory of cassettes: serve replays it (record mode none or once), but record modes write into one cassette file; name a file`,
    );
}

/** The same transport on both sides: the recording proxy, or the server, runs in our place
 * (undefined: serve plays the cassette itself). */
function inPlaceCommand(
  args: ServeArgs,
  action: Action,
  listen: EngineRun['listen'],
  upstream: string | undefined,
  headers: Record<string, string>,
): string[] | undefined {
  if (action === 'record' && !listen && !upstream)
    return [
      process.execPath,
      cliPath,
      'record',
      '--cassette',
      args.cassette,
      '--log-level',
      args.logLevel ?? 'warn',
      ...(args.logFile ? ['--log-file', args.logFile] : []),
      '--',
      ...args.command,
    ];
  // The proxy adds no headers.
  if (action === 'record' && listen && upstream && Object.keys(headers).length === 0)
    return [
      process.execPath,
      cliPath,
      'record',
      '--upstream',
      upstream,
      '--listen',
      `${bracketHost(listen.host)}:${listen.port}`,
      '--cassette',
      args.cassette,
      '--log-level',
      args.logLevel ?? 'warn',
      ...(args.logFile ? ['--log-file', args.logFile] : []),
      ...(args.allowHost ?? []).flatMap((h) => ['--allow-host', h]),
      ...(args.allowOrigin ?? []).flatMap((o) => ['--allow-origin', o]),
    ];
  return action === 'passthrough' && !listen && !upstream ? args.command : undefined;
}

interface EngineRun {
  match: MatchMode;
  timing: NonNullable<ReturnType<typeof parseTiming>>;
  listen: { host: string; port: number } | undefined;
  upstream: string | undefined;
  headers: Record<string, string>;
  action: Action;
  report: string | undefined;
  base: Omit<ServeReport, keyof ServeSummary | 'running' | 'url' | 'exitCode'>;
}

async function serveWithEngine(args: ServeArgs, io: ServeIo, o: EngineRun): Promise<number> {
  const { listen, action, report, base } = o;
  const logger: Logger = await createLogger({
    level: args.logLevel ?? 'info',
    ...(args.logFormat !== undefined ? { format: logFormatOf(args.logFormat) } : {}),
    ...(args.logFile ? { file: args.logFile } : {}),
  });
  // A directory (record --cassette-dir), or several files, is served as one cassette holding
  // every session in them.
  const cassette =
    action === 'replay'
      ? loadCassetteInput(args.cassettes ?? args.cassette).cassette
      : action === 'replay-and-record'
        ? loadCassette(args.cassette)
        : emptyCassette();
  let fallback: Fallback | undefined;
  if (action !== 'replay') {
    const keep = action === 'passthrough' ? {} : { cassette: args.cassette };
    const label =
      action === 'replay-and-record'
        ? 'new episodes (mcp-cassette serve)'
        : action === 'record'
          ? 'recorded by mcp-cassette serve'
          : undefined;
    // Loaded on need: a replay (a host's server command) starts without them.
    fallback = o.upstream
      ? new (await import('./http-fallback.js')).HttpFallback(o.upstream, {
          ...keep,
          logger,
          headers: o.headers,
          ...(label ? { label } : {}),
        })
      : new (await import('./fallback.js')).StdioFallback(args.command, { ...keep, logger, ...(label ? { label } : {}) });
  }
  const engine = new ServeEngine(cassette, {
    match: o.match,
    timing: o.timing,
    ignore: (args.ignore ?? []).map(compileIgnore),
    ...(args.answerTimeout !== undefined ? { answerTimeoutMs: args.answerTimeout } : {}),
    logger,
    ...(fallback ? { fallback } : {}),
  });
  writeReport(report, { ...engine.summary(), ...base, running: true }, io.stdout);
  let url: string | undefined;
  if (listen) {
    const server = await serveHttp(engine, {
      host: listen.host,
      port: listen.port,
      allowHosts: args.allowHost ?? [],
      allowOrigins: args.allowOrigin ?? [],
    });
    url = server.url;
    io.stdout.write(`${url}\n`);
    logger.info({ url, cassette: args.cassette, interactions: engine.interactions.length }, 'serve: listening');
    await new Promise<void>((resolve) => {
      if (io.stop?.aborted) resolve();
      io.stop?.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
  } else {
    await serveStdio(engine, { input: io.stdin, output: io.stdout, ...(io.stop ? { stop: io.stop } : {}) });
  }
  await fallback?.close();

  const summary = engine.summary();
  const failed = summary.failed || (Boolean(args.failOnUnused) && summary.unused.length > 0);
  const exitCode = failed ? 1 : 0;
  io.stderr.write(formatSummary({ ...summary, failed }));
  writeReport(report, { ...summary, failed, ...base, ...(url ? { url } : {}), running: false, exitCode }, io.stdout);
  return exitCode;
}

function logFormatOf(value: string): LogFormat {
  if (!LOG_FORMATS.includes(value as LogFormat))
    throw new CassetteError('MCPC_USAGE', `--log-format must be json or pretty (got ${JSON.stringify(value)})`);
  return value as LogFormat;
}
