import { basename, extname, resolve } from 'node:path';
import { CassetteError } from '../lib/errors.js';
import { createLogger, LOG_FORMATS, resolveLogFormat, type LogFormat, type Logger } from '../lib/log.js';
import { userPattern } from '../lib/safe-pattern.js';
import type { ParsedOptions } from '../lib/fast-args.js';
import type { CommandModule } from '../lib/command.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import { liveValidationStats } from '../lib/live-stats.js';
import type { RecordedSession } from '../lib/cassette/cassette.js';
import { runStdioProxy, type ExitStatus } from './stdio-recorder.js';
import { RECORD_OPTIONS } from './record-options.js';
import { captureArgsFrom, type CaptureArgs } from './capture/capture-options.js';
import { CaptureRuntime } from './capture/capture-runtime.js';
import { dirArgsFrom, type DirArgs } from './rotation/dir-args.js';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const INTERPRETERS = new Set(['node', 'nodejs', 'npx', 'bun', 'bunx', 'deno', 'tsx', 'python', 'python3', 'uv', 'uvx', 'pipx', 'docker']);

/** `./<server name>.cassette.json`: the script or package a runner starts, else the command. */
export function defaultCassetteName(command: readonly string[]): string {
  const [file, ...args] = command;
  let name = basename(file ?? 'server');
  if (INTERPRETERS.has(name.replace(/\.exe$/, ''))) {
    const target = args.find((a) => !a.startsWith('-') && a !== 'run');
    if (target) name = basename(target);
  }
  name =
    name
      .replace(extname(name), '')
      .replace(/^@[^/]+\//, '')
      .replace(/[^A-Za-z0-9._-]+/g, '-') || 'server';
  return `${name}.cassette.json`;
}

export interface RecordArgs {
  command: string[];
  cassette: string;
  overwrite: boolean;
  label?: string;
  shutdownGraceMs: number;
  redactPatterns: RegExp[];
  logFile?: string;
  logLevel: string;
  /** Resolved: `pretty` on a terminal unless asked otherwise (lib/log.ts). */
  logFormat: LogFormat;
  /** Live validation (on unless --no-validate) and what to do with violations. */
  validate: boolean;
  /** Live validation worker threads (`--validate-workers`, >= 1). */
  validateWorkers: number;
  failOn?: 'error' | 'warning';
  alertWebhook?: string;
  alertExec?: string;
  /** Present in Streamable HTTP mode (`--upstream`). */
  http?: HttpModeArgs;
  /** Sampling, capture level, payload redaction, metrics (recorder/capture/). */
  capture: CaptureArgs;
  /** `--cassette-dir`: a series of cassettes (then `cassette` is that directory). */
  dir?: DirArgs;
}

export interface HttpModeArgs {
  upstream: URL;
  listenHost: string;
  listenPort: number;
  redactHeaders: string[];
  maxBodyBytes: number;
  allowHosts: string[];
  allowOrigins: string[];
}

function httpArgsFrom(parsed: ParsedOptions): HttpModeArgs | undefined {
  if (parsed.upstream === undefined) return undefined;
  let upstream: URL;
  try {
    upstream = new URL(String(parsed.upstream));
  } catch {
    throw new CassetteError(
      'MCPC_USAGE',
      `--upstream ${JSON.stringify(parsed.upstream)} is not a URL; give the server's MCP endpoint, for example http://127.0.0.1:3000/mcp`,
    );
  }
  if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') {
    throw new CassetteError('MCPC_USAGE', `--upstream must be an http:// or https:// URL (got ${upstream.protocol})`);
  }
  const listen = String(parsed.listen ?? '127.0.0.1:0');
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(listen) ?? /^()()(\d+)$/.exec(listen);
  if (!m)
    throw new CassetteError('MCPC_USAGE', `--listen ${JSON.stringify(listen)} must be host:port or a port, for example 127.0.0.1:8080`);
  const maxBodyBytes = Number(parsed['max-body-size'] ?? 16 * 1024 * 1024);
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0)
    throw new CassetteError('MCPC_USAGE', '--max-body-size must be a positive number of bytes');
  return {
    upstream,
    listenHost: m[1] || m[2] || '127.0.0.1',
    listenPort: Number(m[3]),
    redactHeaders: ((parsed['redact-header'] as string[] | undefined) ?? []).map(String),
    maxBodyBytes,
    allowHosts: ((parsed['allow-host'] as string[] | undefined) ?? []).map(String),
    allowOrigins: ((parsed['allow-origin'] as string[] | undefined) ?? []).map(String),
  };
}

export function recordArgsFrom(parsed: ParsedOptions): RecordArgs {
  const command = parsed['--'];
  const http = httpArgsFrom(parsed);
  if (http && command.length > 0) {
    throw new CassetteError(
      'MCPC_USAGE',
      'record takes either --upstream <url> (Streamable HTTP) or a server command after `--` (stdio), not both',
    );
  }
  if (!http && command.length === 0) {
    throw new CassetteError(
      'MCPC_USAGE',
      'record needs the server command after `--` (for example: mcp-cassette record -- node server.js) or --upstream <url> for a Streamable HTTP server',
    );
  }
  const patterns = ((parsed['redact-arg'] as string[] | undefined) ?? []).map((p) => userPattern('--redact-arg', String(p), 'arguments'));
  const logLevel = String(parsed['log-level'] ?? 'info');
  if (!LOG_LEVELS.includes(logLevel))
    throw new CassetteError('MCPC_USAGE', `--log-level must be one of ${LOG_LEVELS.join(', ')} (got ${JSON.stringify(logLevel)})`);
  const logFormat = parsed['log-format'];
  if (logFormat !== undefined && !LOG_FORMATS.includes(logFormat as LogFormat))
    throw new CassetteError('MCPC_USAGE', `--log-format must be json or pretty (got ${JSON.stringify(logFormat)})`);
  const grace = Number(parsed['shutdown-grace'] ?? 2000);
  if (!Number.isFinite(grace) || grace < 0) throw new CassetteError('MCPC_USAGE', '--shutdown-grace must be a number of milliseconds >= 0');
  const failOn = parsed['fail-on'];
  if (failOn !== undefined && failOn !== 'error' && failOn !== 'warning')
    throw new CassetteError('MCPC_USAGE', `--fail-on must be error or warning (got ${JSON.stringify(failOn)})`);
  const workers = Number(parsed['validate-workers'] ?? 1);
  if (!Number.isInteger(workers) || workers < 1 || workers > 64)
    throw new CassetteError(
      'MCPC_USAGE',
      `--validate-workers must be a whole number from 1 to 64 (got ${Number.isNaN(workers) ? 'something that is not a number' : workers})`,
    );
  const dir = dirArgsFrom(parsed);
  const webhook = parsed['alert-webhook'];
  if (webhook !== undefined && !/^https?:\/\//.test(String(webhook)))
    throw new CassetteError('MCPC_USAGE', `--alert-webhook must be an http:// or https:// URL (got ${JSON.stringify(webhook)})`);
  return {
    validate: parsed.validate !== false,
    validateWorkers: workers,
    ...(failOn !== undefined ? { failOn } : {}),
    ...(webhook !== undefined ? { alertWebhook: String(webhook) } : {}),
    ...(parsed['alert-exec'] !== undefined ? { alertExec: String(parsed['alert-exec']) } : {}),
    command,
    cassette: resolve(
      String(
        parsed.cassette ??
          (http ? `${http.upstream.hostname.replace(/[^A-Za-z0-9._-]+/g, '-')}.cassette.json` : defaultCassetteName(command)),
      ),
    ),
    overwrite: Boolean(parsed.overwrite),
    ...(typeof parsed.label === 'string' ? { label: parsed.label } : {}),
    shutdownGraceMs: grace,
    redactPatterns: patterns,
    ...(typeof parsed['log-file'] === 'string' ? { logFile: parsed['log-file'] } : {}),
    logLevel,
    logFormat: resolveLogFormat(
      logFormat as LogFormat | undefined,
      typeof parsed['log-file'] === 'string' ? parsed['log-file'] : undefined,
    ),
    ...(http ? { http } : {}),
    capture: captureArgsFrom(parsed),
    ...(dir ? { dir, cassette: dir.dir } : {}),
  };
}

/**
 * Runs one recorded stdio session end to end and returns the server's exit status. The
 * cassette is written after the server is gone; if that fails, the journal is kept and the
 * error says how to recover it.
 */
/** Supplied by the composition root: the recorder itself knows nothing of validation. */
export interface RecordHooks {
  liveWorker?: (args: RecordArgs) => LiveWorkerSpec;
  /** The module of judgeAtWrite, for the fold workers of `--cassette-dir` (a file URL). */
  judgeAtWriteModule?: string;
  /** Judges at cassette write what live validation left undone (validators/judge-at-write.ts). */
  judgeAtWrite?: (
    sessions: RecordedSession[],
    scope: WriteScope,
    options: { logger: Logger; failOn?: 'error' | 'warning' },
  ) => Promise<{ judged: number; violations: number; failed: boolean }>;
}

/** What live validation left to the cassette write: every message (it shed), or the rules that
 * compare the sessions of an HTTP run (several workers each saw some of them). */
export type WriteScope = 'all' | 'cross-session';

/** `failed`: when verdicts were judged at write, whether they hold violations at --fail-on. */
export interface SaveResult {
  saved: boolean;
  failed?: boolean;
}

export async function runRecord(args: RecordArgs, hooks: RecordHooks = {}): Promise<ExitStatus> {
  const capture = new CaptureRuntime(args.capture, args.http ? 'http' : 'stdio', args.http?.upstream);
  let logger: Logger | undefined;
  const folds = args.dir
    ? (await import('./rotation/dir-fold.js')).dirFold({
        capture,
        ...(args.validate && hooks.judgeAtWriteModule ? { judgeModule: hooks.judgeAtWriteModule } : {}),
        http: Boolean(args.http),
        ...(args.failOn ? { failOn: args.failOn } : {}),
      })
    : undefined;
  const dir = args.dir
    ? (await import('./rotation/dir-recording.js')).startDirRecording(args.dir, () => logger, {
        fold: folds!.fold,
        summary: () => capture.summary(),
        metrics: capture.metrics,
      })
    : undefined;
  // A directory's cassettes are folded as they close (recorder/rotation/); its end is the save.
  const finishDir = async (): Promise<SaveResult> => {
    const saved = await dir!.finish();
    const failed = folds!.failed();
    return { saved, ...(failed !== undefined ? { failed } : {}) };
  };
  if (args.http) {
    const { runHttpRecord } = await import('./http-record-command.js');
    const live = args.validate && hooks.liveWorker ? hooks.liveWorker(args) : undefined;
    if (dir) logger = await createLogger({ level: args.logLevel, format: args.logFormat, ...(args.logFile ? { file: args.logFile } : {}) });
    return runHttpRecord(
      args,
      args.http,
      dir ? finishDir : (a, journal, log, atWrite) => saveSession(a, journal, log, atWrite, hooks, capture),
      live,
      dir?.openJournal,
      logger,
      capture,
    );
  }
  const proxy = runStdioProxy({
    cassette: args.cassette,
    command: args.command,
    shutdownGraceMs: args.shutdownGraceMs,
    redactPatterns: args.redactPatterns,
    ...(args.validate && hooks.liveWorker ? { live: hooks.liveWorker(args) } : {}),
    warn: (message) => logger?.warn(message),
    ...(args.label ? { label: args.label } : {}),
    onJournal: (journal) => capture.attach(journal),
    ...(dir ? { openJournal: dir.openJournal } : {}),
  });
  // Everything below runs after the server was spawned and its pipes connected.
  logger = await createLogger({ level: args.logLevel, format: args.logFormat, ...(args.logFile ? { file: args.logFile } : {}) });
  logger.info({ cassette: args.cassette, session: proxy.sessionId }, 'recording stdio session');
  // Metrics and the --ui view never stop the traffic: the server runs already, so a failure is
  // logged, not fatal.
  await capture.serve().then(
    () => capture.metricsUrl && logger!.info({ metrics: capture.metricsUrl }, 'serving metrics'),
    (err: Error) => logger!.error({ err: err.message }, 'metrics or live view not served'),
  );
  // Nor does OpenTelemetry: spans heard before the SDK loads are held for it.
  await capture
    .startOtel((message) => logger!.warn({ err: message }, 'OpenTelemetry export failed; traffic goes on, spans are counted as lost'))
    .then(
      () => capture.otel && logger!.info({}, 'sending OpenTelemetry spans and metrics over OTLP'),
      (err: Error) => logger!.error({ err: err.message }, 'OpenTelemetry not started'),
    );
  let status: ExitStatus;
  try {
    status = await proxy.done;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'command not found' : e.code === 'EACCES' ? 'permission denied' : e.message;
    throw new CassetteError(
      'MCPC_SPAWN_FAILED',
      `cannot start the server ${JSON.stringify(args.command[0])} (${why}); check the command after \`--\` and the PATH it is run with`,
      { cause: err },
    );
  }
  // A host that signals us now must not stop the cassette write halfway: we exit right after it.
  const hold = (): void => {};
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, hold);
  let saved: SaveResult;
  try {
    saved = dir
      ? await finishDir()
      : await saveSession(args, proxy.journal, logger, status.liveIncomplete ? 'all' : undefined, hooks, capture);
  } finally {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, hold);
    await capture.close();
    const otel = capture.otelSummary();
    if (otel) logger.info({ otel }, 'OpenTelemetry spans sent');
  }
  if (!saved.saved) return { ...status, notSaved: true };
  // --fail-on turns a clean server exit into a failure when violations were seen (as stored,
  // when they were judged at write).
  const failed = saved.failed ?? status.validationFailed;
  if (failed && status.code === 0 && status.signal === null) return { ...status, code: 1 };
  return status;
}

/** Folds the journal into the cassette; false (and the recover command on stderr) when that
 * failed, so the caller can end with SESSION_NOT_SAVED_EXIT. */
export async function saveSession(
  args: RecordArgs,
  journal: string,
  logger: Logger,
  atWrite?: WriteScope,
  hooks: RecordHooks = {},
  capture?: CaptureRuntime,
): Promise<SaveResult> {
  const { finishJournal } = await import('./finish-session.js');
  const stats = liveValidationStats();
  let failed: boolean | undefined;
  const judge = hooks.judgeAtWrite;
  try {
    const select = capture ? (s: RecordedSession[]) => capture.select(s) : undefined;
    const sessions = await finishJournal(args.cassette, journal, {
      overwrite: args.overwrite,
      ...(select ? { select } : {}),
      ...(atWrite && judge
        ? {
            judge: async (sessions: RecordedSession[]) => {
              const messages = sessions.reduce((n, s) => n + s.messages.length, 0);
              const r = await judge(sessions, atWrite, { logger, ...(args.failOn ? { failOn: args.failOn } : {}) });
              failed = r.failed;
              stats.judgedAtWrite += r.judged;
              stats.violationsAtWrite += r.violations;
              if (atWrite === 'all') {
                // What the live validator did not judge: counted now that the messages are known.
                const shed = Math.max(0, messages - stats.judgedLive);
                stats.shedMessages += shed;
                capture?.metrics.count('mcp_cassette_work_shed_total', { what: 'messages' }, shed);
                logger.warn(
                  {
                    shedMessages: shed,
                    judgedLive: Math.min(messages, stats.judgedLive),
                    judgedAtWrite: r.judged,
                    shedBytes: stats.shedBytes,
                  },
                  `live validation shed ${shed} of ${messages} messages; all ${r.judged} were judged when the cassette was written (${r.violations} violations stored)`,
                );
              }
            },
          }
        : {}),
    });
    logger.info(
      {
        cassette: args.cassette,
        sessions: sessions.map((s) => s.id),
        messages: sessions.reduce((n, s) => n + s.messages.length, 0),
        ...capture?.summary(),
      },
      'session saved',
    );
    return { saved: true, ...(failed !== undefined ? { failed } : {}) };
  } catch (err) {
    logger.error({ err, journal }, 'session not saved');
    process.stderr.write(
      `mcp-cassette: the session was not saved: ${(err as Error).message}. ` +
        `Every message is kept in ${journal}; once the cassette is fixed (or moved away), run:\n` +
        `  mcp-cassette recover ${shellQuote(args.cassette)}\n`,
    );
    return { saved: false };
  }
}

/** A path as one shell word, so the printed command can be pasted as it is. */
function shellQuote(path: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}

/** What `record` needs from the composition root: the live worker to start, and how to end the
 * process the way the server ended (exit code, signal, or 73 when the session was not saved). */
export interface RecordContext {
  finishRecord(status: ExitStatus): Promise<void>;
  recordHooks: RecordHooks;
}

/** `mcp-cassette record`. `record -- <server>` usually skips yargs: cli.ts parses RECORD_OPTIONS
 * with the fast parser and calls this handler itself. */
export const RECORD_COMMAND: CommandModule<RecordContext> = {
  name: 'record',
  describe:
    'Run an MCP server behind the recording proxy: mcp-cassette record [options] [--] <server command> [args...], or record --upstream <url> for Streamable HTTP',
  usage: '$0 record [options] [--] <server command> [args...]\n$0 record --upstream <url> [--listen host:port] [options]',
  options: RECORD_OPTIONS,
  async handler(args, context) {
    const command = args['--'] ?? args._.slice(1);
    const status = await runRecord(recordArgsFrom({ ...args, '--': command.map(String) } as ParsedOptions), context.recordHooks);
    await context.finishRecord(status);
    return undefined;
  },
};
