import type { CommandModule } from '../command.js';

/**
 * `mcp-cassette view`: what the command line knows of it (options, help). The work is in view-run.ts, loaded when the command runs, so that `--help` loads no server.
 */
export const VIEW_COMMAND: CommandModule = {
  name: 'view',
  describe: 'Show cassettes or a replay report in the browser: sessions, paired messages, latency, violations, replay verdicts',
  positionals: [{ name: 'input', variadic: true }],
  options: {
    listen: { type: 'string', default: '127.0.0.1:0', describe: 'Address of the page (host:port; port 0 picks a free one)' },
    open: { type: 'boolean', default: false, describe: "Open the page in the system's browser (best effort)" },
  },
  handler: async (args, context) => (await import('./view-run.js')).VIEW_HANDLER(args, context),
  help: {
    examples: [
      ['$0 view weather.cassette.json', 'serve the page; its URL (with a token) is the first line on stdout'],
      ['$0 view recordings/ --open', "every cassette of a directory, opened in the system's browser"],
      ['$0 view replay-report.json', 'the verdicts of a replay, recorded and live values side by side'],
    ],
    exitCodes: [
      ['0', 'stopped by SIGINT or SIGTERM'],
      ['2', 'usage error: no such file, not a cassette or replay report, the address cannot be listened on'],
      ['70', 'internal error (a bug in mcp-cassette: please report it)'],
    ],
    docs: 'view.md',
  },
};
