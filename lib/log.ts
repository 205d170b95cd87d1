import type { Logger } from 'pino';

export type { Logger };

export interface LogOptions {
  /** Write logs to this file instead of stderr. */
  file?: string;
  level?: string;
}

/**
 * pino on stderr (fd 2) or a file, never stdout: in stdio mode stdout carries protocol bytes only.
 * Loaded with a dynamic import so that the proxy can spawn its server before paying for pino.
 */
export async function createLogger(options: LogOptions = {}): Promise<Logger> {
  const { pino } = await import('pino');
  const destination = options.file
    ? pino.destination({ dest: options.file, mkdir: true, append: true, sync: true })
    : pino.destination({ fd: 2, sync: true });
  return pino({ name: 'mcp-cassette', level: options.level ?? 'info', base: { pid: process.pid } }, destination);
}
