import type { ParsedOptions } from '../../lib/fast-args.js';
import { serveCommand } from './serve-command.js';
import { serveArgsFrom } from './serve-options.js';

/** Runs `serve` for the CLI: SIGINT and SIGTERM end it (stdio: like stdin EOF; HTTP: stop
 * listening), and the exit status is returned, never set here. */
export async function runServe(cassette: string, options: ParsedOptions): Promise<number> {
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await serveCommand(serveArgsFrom(cassette, options), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, stop: stop.signal });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
