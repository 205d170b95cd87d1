import { basename, dirname, extname, resolve } from 'node:path';
import { CassetteError } from '../lib/errors.js';
import { LOG_FORMATS, resolveLogFormat, type LogFormat } from '../lib/log.js';
import { userPattern } from '../lib/safe-pattern.js';
import type { ParsedOptions } from '../lib/fast-args.js';
import { captureArgsFrom, type CaptureArgs } from './capture/capture-options.js';
import { dirArgsFrom, type DirArgs } from './rotation/dir-args.js';
import { splitHostPort } from '../lib/listen.js';

/**
 * `record`'s options, checked and resolved: light to load, since the entry point reads them
 * before it spawns the server (a usage error must not start it), and loads the recorder after.
 */
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
  const address = splitHostPort(listen);
  if (!address)
    throw new CassetteError('MCPC_USAGE', `--listen ${JSON.stringify(listen)} must be host:port or a port, for example 127.0.0.1:8080`);
  const maxBodyBytes = Number(parsed['max-body-size'] ?? 16 * 1024 * 1024);
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0)
    throw new CassetteError('MCPC_USAGE', '--max-body-size must be a positive number of bytes');
  return {
    upstream,
    listenHost: address.host ?? '127.0.0.1',
    listenPort: address.port,
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
  const cassette = resolve(
    String(
      parsed.cassette ??
        (http ? `${http.upstream.hostname.replace(/[^A-Za-z0-9._-]+/g, '-')}.cassette.json` : defaultCassetteName(command)),
    ),
  );
  return {
    validate: parsed.validate !== false,
    validateWorkers: workers,
    ...(failOn !== undefined ? { failOn } : {}),
    ...(webhook !== undefined ? { alertWebhook: String(webhook) } : {}),
    ...(parsed['alert-exec'] !== undefined ? { alertExec: String(parsed['alert-exec']) } : {}),
    command,
    cassette,
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
    // --capture hashed keeps its key beside the cassettes.
    capture: captureArgsFrom(parsed, dir?.dir ?? dirname(cassette)),
    ...(dir ? { dir, cassette: dir.dir } : {}),
  };
}
