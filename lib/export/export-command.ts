import type { CommandModule } from '../command.js';
import { FORMATS } from './formats.js';

/**
 * `mcp-cassette export`: what the command line knows of it (options, help). The work is in export-run.ts, loaded when the command runs.
 */
export const EXPORT_COMMAND: CommandModule = {
  name: 'export',
  describe: 'Turn cassettes into another format: HAR 1.2 (har) or OpenTelemetry traces (otlp-json)',
  positionals: [{ name: 'cassette', variadic: true }],
  options: {
    format: { type: 'string', describe: `What to write: ${Object.keys(FORMATS).join(', ')}` },
    output: { type: 'string', alias: 'o', describe: 'Write to this file instead of stdout' },
    'include-payloads': {
      type: 'boolean',
      default: false,
      describe: 'otlp-json: put tool arguments and results on the spans (gen_ai.tool.call.arguments/.result), credentials masked',
    },
  },
  handler: async (args, context) => (await import('./export-run.js')).EXPORT_HANDLER(args, context),
};
