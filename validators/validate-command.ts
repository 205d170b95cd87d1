import type { CommandModule } from '../lib/command.js';

/**
 * `mcp-cassette validate`: what the command line knows of it (options, help). The work is in validate-run.ts, loaded when the command runs, so that `--help` loads no rule.
 */
export const VALIDATE_COMMAND: CommandModule = {
  name: 'validate',
  describe: 'Check recorded traffic against the MCP specification (the rules of `mcp-cassette rules`)',
  positionals: [{ name: 'cassette', variadic: true }],
  options: {
    format: { type: 'string', default: 'text', describe: 'text, json, junit, sarif or github (workflow annotations)' },
    'fail-on': { type: 'string', describe: 'Exit 1 when violations at this level (error or warning) were found' },
    output: { alias: 'o', type: 'string', describe: 'Write the report to this file instead of stdout' },
    schema: { type: 'string', describe: 'Also check every message against this official MCP schema.json, exactly' },
    'expected-failures': {
      type: 'string',
      describe:
        'A YAML baseline (`validate:` rule IDs or RULE-ID:/path): listed violations are reported as expected, listed ones that no longer occur as stale errors',
    },
  },
  handler: async (args, context) => (await import('./validate-run.js')).VALIDATE_HANDLER(args, context),
};
