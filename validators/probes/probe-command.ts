import type { CommandModule } from '../../lib/command.js';

/**
 * `mcp-cassette probe`: what the command line knows of it (options, help). The work is in probe-run.ts, loaded when the command runs, so that `--help` loads no probe.
 */
export const PROBE_COMMAND: CommandModule = {
  name: 'probe',
  describe:
    'Send crafted requests derived from a cassette to a server you name and check the rules a passive proxy cannot see: probe <cassette> -- <server command> [args...], or probe <cassette> --url <endpoint>',
  usage: '$0 probe <cassette> [options] -- <server command> [args...]\n$0 probe <cassette> --url <endpoint> [options]',
  positionals: [{ name: 'cassette' }],
  options: {
    url: { type: 'string', describe: 'Streamable HTTP endpoint to probe (instead of a server command)' },
    timeout: { type: 'number', describe: 'Per-request deadline in ms (default 10000)' },
    'allow-side-effects': {
      type: 'boolean',
      default: false,
      describe: 'Also re-send recorded requests that may act (tools without readOnlyHint)',
    },
    format: { type: 'string', default: 'text', describe: 'text, json, junit, sarif or github (workflow annotations)' },
    'fail-on': {
      type: 'string',
      describe: 'Exit 1 when a new failure (or a stale baseline entry) at this level (error or warning) was found',
    },
    output: { alias: 'o', type: 'string', describe: 'Write the report to this file instead of stdout' },
    'expected-failures': { type: 'string', describe: 'A YAML baseline of known failures' },
    header: { type: 'string', array: true, default: [], describe: 'HTTP: send this "Name: value" header with every request; repeatable' },
    probe: { type: 'string', array: true, default: [], describe: 'Run only this probe; repeatable' },
    'eof-grace': { type: 'number', describe: 'stdio: how long the server may take to exit after stdin is closed, in ms (default 2000)' },
  },
  handler: async (args, context) => (await import('./probe-run.js')).PROBE_HANDLER(args, context),
};
