import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import type { CommandModule } from '../command.js';
import { expandCassettePaths } from '../cassette/directory.js';
import { loadCassette } from '../cassette/store.js';
import { CassetteError, ioReason } from '../errors.js';
import { FORMATS } from './formats.js';
import { settleBeforeRead } from '../cassette/settle-read.js';

/**
 * `export <cassette|dir...> --format <name> [--output F]`: turns cassettes into another tool's
 * format (FORMATS in formats.ts), on stdout unless --output names a file.
 */
export async function exportCommand(
  inputs: string[],
  options: { format?: string; output?: string; includePayloads: boolean },
): Promise<number> {
  const names = Object.keys(FORMATS);
  if (!options.format)
    throw new CassetteError('MCPC_USAGE', `export needs --format; one of ${names.join(', ')} (for example --format ${names[0]})`);
  const load = FORMATS[options.format];
  if (!load)
    throw new CassetteError(
      'MCPC_USAGE',
      `--format ${JSON.stringify(options.format)} is not an export format; use one of ${names.join(', ')}`,
    );
  await settleBeforeRead(inputs);
  const cassettes = expandCassettePaths(inputs).map((path) => ({ path, cassette: loadCassette(path) }));
  const format = await load();
  const toFile = options.output !== undefined && options.output !== '-';
  let fd = 1;
  if (toFile) {
    try {
      mkdirSync(dirname(options.output!), { recursive: true });
      fd = openSync(options.output!, 'w');
    } catch (err) {
      throw new CassetteError('MCPC_FILE_UNWRITABLE', `cannot write ${options.output} (${ioReason(err)}); choose another --output`, {
        cause: err,
      });
    }
  }
  // A reader that stops early (`| head`) closes the pipe: the rest is not wanted, not an error.
  let closed = false;
  try {
    await format.run({ cassettes, includePayloads: options.includePayloads, note: (n) => process.stderr.write(`${n}\n`) }, (text) => {
      if (closed) return;
      try {
        // Stdout through process.stdout, which waits for a slow reader: a pipe's fd is
        // non-blocking once Node opened it, so a writeSync there wrote what fitted (64 KB) and lost the rest.
        if (toFile) writeSync(fd, text);
        else process.stdout.write(text);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
        closed = true;
      }
    });
  } finally {
    if (toFile) closeSync(fd);
  }
  return 0;
}

/** The handler of EXPORT_COMMAND (export-command.ts), loaded when the command runs. */
export const EXPORT_HANDLER: CommandModule['handler'] = async (args) =>
  exportCommand((Array.isArray(args.cassette) ? args.cassette : [args.cassette]).map(String), {
    ...(args.format !== undefined ? { format: String(args.format) } : {}),
    ...(args.output !== undefined ? { output: String(args.output) } : {}),
    includePayloads: Boolean(args['include-payloads']),
  });
