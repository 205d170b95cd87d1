import type { CommandModule } from '../lib/command.js';

/**
 * `mcp-cassette recover`: what the command line knows of it (options, help). The work is in recover-run.ts, loaded when the command runs.
 */
export const RECOVER_COMMAND: CommandModule = {
  name: 'recover',
  describe:
    'Fold the journals of recorders that died (SIGKILL, crash) into the cassette now; given a directory (record --cassette-dir), every journal in it. Every command that reads cassettes does this first by itself',
  positionals: [{ name: 'cassette' }],
  options: { force: { type: 'boolean', default: false, describe: 'Also fold journals whose recorder still looks alive' } },
  handler: async (args, context) => (await import('./recover-run.js')).RECOVER_HANDLER(args, context),
};
