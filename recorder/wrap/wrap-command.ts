import type { CommandModule } from '../../lib/command.js';
import { DIR_OPTIONS } from '../rotation/dir-option-table.js';

/** Rotation and retention options, passed on to every wrapped entry's `record`. */
export const PASSED_ON = Object.fromEntries(
  Object.entries(DIR_OPTIONS)
    .filter(([k]) => k !== 'cassette-dir')
    .map(([k, o]) => [
      k,
      { ...o, describe: `${o.describe.replace(/^With --cassette-dir: /, '')} (passed on to each wrapped server's record)` },
    ]),
);

/**
 * `mcp-cassette wrap` and `unwrap`: what the command line knows of them (options, help). The work is in wrap-run.ts, loaded when a command runs.
 */
export const WRAP_COMMAND: CommandModule = {
  name: 'wrap',
  describe:
    'Rewrite a host config (Claude Desktop, VS Code, Cursor) so its stdio servers run through `record` (with --http, its HTTP entries point at a recording proxy too)',
  positionals: [{ name: 'config' }],
  options: {
    server: {
      type: 'string',
      array: true,
      describe: 'Only these server entries (repeatable; an HTTP entry named here is wrapped too); default: every stdio entry',
    },
    http: {
      type: 'boolean',
      default: false,
      describe:
        'Also wrap the HTTP (url) entries: each is pointed at a local recording proxy, and wrap prints the command that starts it (it starts nothing itself)',
    },
    'cassette-dir': {
      type: 'string',
      describe:
        'Each server records into <dir>/<server name>/, a cassette per launch (default: the per-user data folder, ~/.local/share/mcp-cassette/cassettes on Linux)',
    },
    ...PASSED_ON,
    port: { type: 'number', describe: "Listen port for the first HTTP entry's proxy, counting up for the next (default: free ports)" },
  },
  handler: async (args, context) => (await import('./wrap-run.js')).WRAP_HANDLER(args, context),
};

export const UNWRAP_COMMAND: CommandModule = {
  name: 'unwrap',
  describe: 'Restore the server entries that `wrap` changed, exactly as they were',
  positionals: [{ name: 'config' }],
  options: { server: { type: 'string', array: true, describe: 'Only these server entries (repeatable)' } },
  handler: async (args, context) => (await import('./wrap-run.js')).UNWRAP_HANDLER(args, context),
};
