import type { CommandModule } from '../command.js';

/**
 * `mcp-cassette import`: what the command line knows of it (options, help). The work is in
 * import-run.ts, loaded when the command runs.
 */

/** What `import --from` reads. */
export const SOURCES = ['har'];

export const IMPORT_COMMAND: CommandModule = {
  name: 'import',
  describe: 'Turn a capture made by another tool into a cassette: --from har (Streamable HTTP traffic saved as HAR)',
  usage: '$0 import --from har <file> [--output cassette.json] [--label L]',
  positionals: [{ name: 'file' }],
  options: {
    from: { type: 'string', describe: `What the file is: ${SOURCES.join(', ')}` },
    output: {
      type: 'string',
      alias: 'o',
      describe: 'Add the sessions to this cassette (created when missing; default: the cassette on stdout, or -)',
    },
    label: { type: 'string', describe: 'Label of the imported sessions (default: "imported from <file>")' },
  },
  handler: async (args, context) => (await import('./import-run.js')).IMPORT_HANDLER(args, context),
};
