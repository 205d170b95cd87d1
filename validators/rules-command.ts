import type { CommandModule } from '../lib/command.js';

/**
 * `mcp-cassette rules`: what the command line knows of it (options, help). The work is in rules-run.ts, loaded when the command runs, so that `--help` loads no rule.
 */
export const RULES_COMMAND: CommandModule = {
  name: 'rules',
  describe: 'List every validation rule with its severity, revisions, title and spec link',
  options: {
    format: { type: 'string', describe: 'text (default), json, or markdown (the docs/rules.md page)' },
    json: { type: 'boolean', default: false, describe: 'Same as --format json' },
    markdown: { type: 'boolean', default: false, describe: 'Same as --format markdown' },
  },
  handler: async (args, context) => (await import('./rules-run.js')).RULES_HANDLER(args, context),
};
