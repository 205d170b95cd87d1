/**
 * `mcp-cassette serve <cassette> [--listen host:port] [options] [-- <real server command>]`: the
 * cassette as a mock MCP server over stdio (default) or Streamable HTTP. Returns the exit status:
 * 0 when every request was answered from the cassette, 1 when one was not (or a client answered a
 * server→client request differently, or `--fail-on-unused` and something recorded went unused),
 * 2 for usage errors and missing or invalid cassettes (thrown as coded errors).
 */
import { spawn } from 'node:child_process';
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { loadCassette } from '../../lib/cassette/store.js';
import { createLogger, type Logger } from '../../lib/log.js';
import { cliPath } from '../../lib/paths.js';
import { compileIgnore } from '../normalise.js';
import { formatSummary, parseTiming, ServeEngine, type ServeSummary } from './engine.js';
import { StdioFallback } from './fallback.js';
import { serveHttp } from './http.js';
import { MATCH_MODES, type MatchMode } from './matcher.js';
import { decide, effectiveMode, ServeError } from './modes.js';
import { serveStdio } from './stdio.js';

export interface ServeArgs {
  cassette: string;
  /** The real server, for record modes that need one. */
  command: string[];
  listen?: string;
  match?: string;
  timing?: string;
  ignore?: string[];
  mode?: string;
  /** Write the JSON summary here (`{pid}` is replaced by our pid); written once at start with
   * `running: true`, so a test helper can tell how many serve processes a client started. */
  report?: string;
  failOnUnused?: boolean;
  allowHost?: string[];
  allowOrigin?: string[];
  answerTimeout?: number;
  logLevel?: string;
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
  url?: string;
  exitCode?: number;
}

export function parseListen(text: string): { host: string; port: number } {
  const m = /^(?:(\[[^\]]+\]|[^:]+):)?(\d+)$/.exec(text.trim());
  if (!m) throw new ServeError('MCPC_SERVE_USAGE', `--listen ${JSON.stringify(text)} is not host:port or port`);
  return { host: m[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port: Number(m[2]) };
}

function reportPath(pattern: string | undefined): string | undefined {
  return pattern?.replace(/\{pid\}/g, String(process.pid));
}

function writeReport(path: string | undefined, report: ServeReport): void {
  if (!path) return;
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, JSON.stringify(report, null, 2) + '\n');
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

export async function serveCommand(args: ServeArgs, io: ServeIo): Promise<number> {
  const match = (args.match ?? 'params') as MatchMode;
  if (!MATCH_MODES.includes(match)) throw new ServeError('MCPC_SERVE_USAGE', `--match ${JSON.stringify(args.match)}: use one of ${MATCH_MODES.join(', ')}`);
  const timing = parseTiming(args.timing ?? 'fast');
  if (!timing) throw new ServeError('MCPC_SERVE_USAGE', `--timing ${JSON.stringify(args.timing)}: use fast, recorded or xN (x2 is twice as fast)`);
  const listen = args.listen !== undefined ? parseListen(args.listen) : undefined;
  const env = io.env ?? process.env;
  const mode = args.mode !== undefined || env.MCP_CASSETTE_MODE ? effectiveMode(args.mode, env) : args.command.length > 0 ? 'once' : 'none';
  const action = decide(mode, args.cassette, args.command.length > 0);

  if (action === 'record' || action === 'passthrough') {
    if (listen) throw new ServeError('MCPC_SERVE_USAGE', `record mode ${mode} with --listen: record a Streamable HTTP server with \`mcp-cassette record --upstream <url>\` instead`);
    const argv = action === 'passthrough'
      ? args.command
      : [process.execPath, cliPath, 'record', '--cassette', args.cassette, '--log-level', args.logLevel ?? 'warn',
        ...(mode === 'all' ? ['--overwrite'] : []), ...(args.logFile ? ['--log-file', args.logFile] : []), '--', ...args.command];
    return runInPlace(argv, io);
  }

  const logger: Logger = await createLogger({ level: args.logLevel ?? 'info', ...(args.logFile ? { file: args.logFile } : {}) });
  const cassette = loadCassette(args.cassette);
  const fallback = action === 'replay-and-record' ? new StdioFallback(args.command, args.cassette, logger) : undefined;
  const engine = new ServeEngine(cassette, {
    match,
    timing,
    ignore: (args.ignore ?? []).map(compileIgnore),
    ...(args.answerTimeout !== undefined ? { answerTimeoutMs: args.answerTimeout } : {}),
    logger,
    ...(fallback ? { fallback } : {}),
  });
  const report = reportPath(args.report);
  const base = { pid: process.pid, cassette: args.cassette, transport: listen ? 'http' as const : 'stdio' as const };
  writeReport(report, { ...engine.summary(), ...base, running: true });

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
  writeReport(report, { ...summary, failed, ...base, ...(url ? { url } : {}), running: false, exitCode });
  return exitCode;
}
