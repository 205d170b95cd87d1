/**
 * `mcp-cassette serve` as a command (SERVE_COMMAND: its options, help and handler) and the CLI's
 * way of running it (signals, stdio); the serve run itself is run-serve.ts.
 */
import type { ParsedOptions } from '../../lib/fast-args.js';
import { SERVE_OPTIONS, serveArgsFrom } from './serve-options.js';
import type { CommandModule } from '../../lib/command.js';

/** Runs `serve` for the CLI: SIGINT and SIGTERM end it (stdio: like stdin EOF; HTTP: stop
 * listening), and the exit status is returned, never set here. */
export async function runServe(cassettes: readonly string[], options: ParsedOptions): Promise<number> {
  // Loaded now, not with the command's definition: `--help` loads nothing of serve.
  const [{ serveCommand }, { settleBeforeRead }] = await Promise.all([
    import('./run-serve.js'),
    import('../../lib/cassette/settle-read.js'),
  ]);
  await settleBeforeRead(cassettes);
  const stop = new AbortController();
  const onSignal = (): void => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await serveCommand(serveArgsFrom(cassettes, options), {
      stdin: process.stdin,
      stdout: process.stdout,
      stderr: process.stderr,
      stop: stop.signal,
    });
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** `mcp-cassette serve`. `serve <cassette> ...` usually skips yargs: cli.ts parses SERVE_OPTIONS
 * with the fast parser and calls this handler itself. */
export const SERVE_COMMAND: CommandModule = {
  name: 'serve',
  describe:
    "Serve a cassette as a mock MCP server: over stdio (a host's server command), or Streamable HTTP with --listen; -- <server command> for record modes",
  usage: '$0 serve <cassette|dir>... [options] [-- <real server command> [args...]]',
  positionals: [{ name: 'cassette', variadic: true }],
  options: SERVE_OPTIONS,
  handler: async (args) => {
    const command = args['--'] ?? args._.slice(1);
    const cassettes = (Array.isArray(args.cassette) ? args.cassette : [args.cassette]).map(String);
    return runServe(cassettes, { ...args, '--': command.map(String) } as ParsedOptions);
  },
  releasesStdin: true,
};
