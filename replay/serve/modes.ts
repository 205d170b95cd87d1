/**
 * Record modes, as VCR and Polly users know them, decided in one place for both the `serve`
 * command and the `withCassette` test helper.
 */
import { existsSync } from 'node:fs';
import { CassetteError } from '../../lib/errors.js';

/**
 * - `once` (default): replay when the cassette exists (new requests are errors), record when it
 *   does not.
 * - `new_episodes`: replay what the cassette has; send what it lacks to the real server and
 *   append that to the cassette.
 * - `none`: replay only; a missing cassette is an error. What CI should run with.
 * - `all`: always record, replacing the cassette.
 * - `passthrough`: talk to the real server; nothing recorded, nothing replayed.
 */
export type RecordMode = 'once' | 'new_episodes' | 'none' | 'all' | 'passthrough';

export const RECORD_MODES: readonly RecordMode[] = ['once', 'new_episodes', 'none', 'all', 'passthrough'];

export const MODE_ENV = 'MCP_CASSETTE_MODE';

/** What a run does with its cassette. */
export type Action = 'record' | 'replay' | 'replay-and-record' | 'passthrough';

export function parseMode(text: string, source: string): RecordMode {
  if ((RECORD_MODES as readonly string[]).includes(text)) return text as RecordMode;
  throw new ServeError('MCPC_SERVE_USAGE', `${source} ${JSON.stringify(text)} is not a record mode; use one of ${RECORD_MODES.join(', ')}`);
}

/** The mode in force: MCP_CASSETTE_MODE wins (so CI can force `none`), then the option, then `once`. */
export function effectiveMode(option: string | undefined, env: NodeJS.ProcessEnv = process.env): RecordMode {
  const fromEnv = env[MODE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return parseMode(fromEnv, MODE_ENV);
  if (option !== undefined) return parseMode(option, 'mode');
  return 'once';
}

/** Decides what to do; throws MCPC_CASSETTE_NOT_FOUND for `none` without a cassette and
 * MCPC_SERVE_USAGE when recording is asked for but there is no real server to record. */
export function decide(mode: RecordMode, cassette: string, hasServer: boolean): Action {
  const exists = existsSync(cassette);
  const needServer = (why: string): void => {
    if (!hasServer)
      throw new ServeError(
        'MCPC_SERVE_USAGE',
        `record mode ${mode}: ${why}, but no real server was given (put its command after --, or give --upstream <url>; withCassette: the server option)`,
      );
  };
  switch (mode) {
    case 'none':
      if (!exists) {
        throw new CassetteError(
          'MCPC_CASSETTE_NOT_FOUND',
          `cassette ${cassette} does not exist and record mode is none (replay only); record it first with record mode once or all${process.env[MODE_ENV] ? ` (${MODE_ENV}=${process.env[MODE_ENV]} is set)` : ''}`,
        );
      }
      return 'replay';
    case 'once':
      if (exists) return 'replay';
      needServer(`cassette ${cassette} does not exist yet, so it must be recorded`);
      return 'record';
    case 'new_episodes':
      needServer('requests the cassette lacks go to the real server');
      return exists ? 'replay-and-record' : 'record';
    case 'all':
      needServer('the cassette is recorded again');
      return 'record';
    case 'passthrough':
      needServer('passthrough talks to the real server');
      return 'passthrough';
  }
}

export type ServeErrorCode = 'MCPC_SERVE_USAGE' | 'MCPC_SERVE_FAILED' | 'MCPC_SERVE_TIMEOUT';

/** A failure of `serve` or `withCassette` itself (not traffic). Callers match on `code`. */
export class ServeError extends Error {
  override readonly name = 'ServeError';
  constructor(
    readonly code: ServeErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
