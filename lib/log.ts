import type { Logger } from 'pino';
import { useColour } from './cli-output.js';
import { cjsExport } from './cjs-export.js';

export type { Logger };
type PrettyFactory = typeof import('pino-pretty').prettyFactory;

/** `json`: one pino record a line, for machines. `pretty`: one readable line per record (pino-pretty). */
export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

export interface LogOptions {
  /** Write logs to this file instead of stderr. */
  file?: string;
  level?: string;
  /** Absent: `pretty` when the logs go to a terminal (stderr is a TTY), `json` otherwise. */
  format?: LogFormat;
  /** Colour pretty lines; absent: decided for stderr (FORCE_COLOR, NO_COLOR, a terminal). A worker
   * thread's stderr is not a TTY, so the thread that starts it decides and passes this. */
  colour?: boolean;
}

/** The format for `--log-format` (absent: the default for where the logs go), decided where stderr
 * is the process's own (not in a worker thread). */
export function resolveLogFormat(
  requested: LogFormat | undefined,
  file: string | undefined,
  stderr: { isTTY?: boolean } = process.stderr,
): LogFormat {
  return requested ?? (file === undefined && stderr.isTTY === true ? 'pretty' : 'json');
}

/** The record fields that pretty lines leave out: the message already says what they hold. */
const PRETTY_IGNORE = 'pid,hostname,name,violation,summary,alerts';

/**
 * pino on stderr (fd 2) or a file, never stdout: in stdio mode stdout carries protocol bytes only.
 * Loaded with a dynamic import so that the proxy can spawn its server before paying for pino;
 * pino-pretty is loaded only for pretty output, so a host's pipe (JSON) costs nothing more.
 */
export async function createLogger(options: LogOptions = {}): Promise<Logger> {
  const pino = cjsExport<typeof import('pino').pino>(await import('pino'), 'pino');
  const settings = { name: 'mcp-cassette', level: options.level ?? 'info', base: { pid: process.pid } };
  const format = options.format ?? resolveLogFormat(undefined, options.file);
  const destination = options.file
    ? pino.destination({ dest: options.file, mkdir: true, append: true, sync: true })
    : pino.destination({ fd: 2, sync: true });
  if (format === 'pretty') {
    // prettyFactory turns a record into its line synchronously, so every line is written before
    // the call returns, as with JSON: pino-pretty's stream would write it a tick later, and a
    // worker thread ended at once (the live validator's) would lose its last lines.
    const prettyFactory = cjsExport<PrettyFactory>(await import('pino-pretty'), 'prettyFactory');
    const prettify = prettyFactory({
      colorize: options.file ? false : (options.colour ?? useColour(process.stderr)),
      ignore: PRETTY_IGNORE,
      translateTime: 'HH:MM:ss.l',
      // A violation's message starts with its severity, which the level label already shows.
      messageFormat: (log: Record<string, unknown>, key: string) =>
        String(log[key] ?? '').replace(/^(ERROR|WARNING|INFO) (?=[A-Z0-9-]+ \()/, ''),
    });
    return pino(settings, { write: (line: string) => void destination.write(prettify(line)) });
  }
  return pino(settings, destination);
}
