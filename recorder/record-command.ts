import type { ParsedOptions } from '../lib/fast-args.js';
import type { CommandModule } from '../lib/command.js';
import type { RecordContext } from './record-run.js';
import { recordArgsFrom } from './record-args.js';
import { RECORD_OPTIONS } from './record-options.js';

/** `mcp-cassette record` for the command line. The bin parses RECORD_OPTIONS with the fast parser
 * and runs a stdio recording itself (lib/cli-main.ts), spawning the server first; yargs comes in
 * for help and errors, and with options the fast parser does not know. */
export const RECORD_COMMAND: CommandModule<RecordContext> = {
  name: 'record',
  describe:
    'Run an MCP server behind the recording proxy: mcp-cassette record [options] [--] <server command> [args...], or record --upstream <url> for Streamable HTTP',
  usage: '$0 record [options] [--] <server command> [args...]\n$0 record --upstream <url> [--listen host:port] [options]',
  options: RECORD_OPTIONS,
  async handler(args, context) {
    const command = args['--'] ?? args._.slice(1);
    const { runRecord } = await import('./record-run.js');
    const status = await runRecord(recordArgsFrom({ ...args, '--': command.map(String) } as ParsedOptions), context.recordHooks);
    await context.finishRecord(status);
    return undefined;
  },
};
