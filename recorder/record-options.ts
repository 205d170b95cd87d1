import type { OptionSpec } from '../lib/fast-args.js';

/** The options of `mcp-cassette record` (stdio). One table serves the fast parser and yargs. */
export const RECORD_OPTIONS: Record<string, OptionSpec> = {
  cassette: {
    type: 'string',
    alias: 'c',
    describe: 'Cassette file to record into (default: ./<server name>.cassette.json)',
  },
  overwrite: {
    type: 'boolean',
    describe: 'Replace the sessions already in the cassette instead of appending one',
    default: false,
  },
  label: { type: 'string', describe: 'A name for this session, stored in the cassette' },
  'shutdown-grace': {
    type: 'number',
    describe: 'Milliseconds the server gets to exit after the host closes stdin, before SIGTERM (and again before SIGKILL)',
    default: 2000,
  },
  'redact-arg': {
    type: 'array',
    describe: 'Regular expression for server arguments to mask in the cassette (first capture group, or the whole argument)',
  },
  'log-file': { type: 'string', describe: 'Write mcp-cassette logs to this file instead of stderr' },
  'log-level': {
    type: 'string',
    describe: 'pino log level: fatal, error, warn, info, debug, trace, silent',
    default: 'info',
  },
};
