import type { CommandModule } from '../lib/command.js';

/**
 * `mcp-cassette show`: what the command line knows of it (options, help). The work is in show-run.ts, loaded when the command runs.
 */
export const SHOW_COMMAND: CommandModule = {
  name: 'show',
  describe: 'Summarise what a cassette holds: sessions, revisions, peers, messages and the violations seen while recording',
  positionals: [{ name: 'cassette', variadic: true }],
  options: {
    json: { type: 'boolean', default: false, describe: 'Print the summary as JSON' },
    messages: { type: 'boolean', default: false, describe: 'List every message, one line each' },
  },
  handler: async (args, context) => (await import('./show-run.js')).SHOW_HANDLER(args, context),
};
