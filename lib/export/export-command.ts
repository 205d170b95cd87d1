/**
 * `mcp-cassette export <cassette|dir...> --format <name> [--output F]`: a cassette in another
 * tool's format. The formats are in formats.ts; this reads the cassettes the way show, replay and
 * serve do (one file, several, or a directory of them) and writes the result.
 */
import { loadCassetteInput } from '../cassette/cassette-set.js';
import { writeReportText } from '../cli-output.js';
import type { CommandModule } from '../command.js';
import { CassetteError } from '../errors.js';
import { FORMATS } from './formats.js';

export const EXPORT_COMMAND: CommandModule = {
  name: 'export',
  describe: 'Write a cassette (a file, several, or a directory of them) in another format: --format har',
  usage: '$0 export <cassette|dir...> --format <name> [--output F]',
  positionals: [{ name: 'cassette', variadic: true }],
  options: {
    format: { type: 'string', describe: `Output format: ${Object.keys(FORMATS).join(', ')}` },
    output: { type: 'string', alias: 'o', describe: 'Write to this file (default: stdout, or -)' },
  },
  async handler(args) {
    const name = args.format === undefined ? undefined : String(args.format);
    const format = name === undefined ? undefined : FORMATS[name];
    if (!format) {
      const known = Object.keys(FORMATS).join(', ');
      throw new CassetteError(
        'MCPC_USAGE',
        name === undefined
          ? `export needs --format (one of: ${known})`
          : `unknown export format ${JSON.stringify(name)}; use one of: ${known}`,
      );
    }
    const input = loadCassetteInput((args.cassette as string[]).map(String));
    const { text, notes } = format.render(input.cassette);
    writeReportText(args.output === undefined ? undefined : String(args.output), text);
    for (const note of notes) process.stderr.write(`${note}\n`);
    return 0;
  },
};
