/**
 * `mcp-cassette import --from har <file> [--output cassette.json]`: a capture made by another
 * tool as a cassette that validate, replay and serve read. The cassette goes to stdout, or its
 * sessions are added to --output (created when missing, under the lock `record` uses).
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { CASSETTE_FORMAT, CASSETTE_VERSION, type Cassette } from '../cassette/cassette.js';
import { appendSessions, stringifyCassette } from '../cassette/store.js';
import { isStdout, writeReportText } from '../cli-output.js';
import type { CommandModule } from '../command.js';
import { CassetteError, ioReason } from '../errors.js';
import { importHar } from './har/import-har.js';
import { SOURCES } from './import-command.js';

/** The handler of IMPORT_COMMAND (import-command.ts), loaded when the command runs. */
export const IMPORT_HANDLER: CommandModule['handler'] = async (args) => {
  const from = args.from === undefined ? undefined : String(args.from);
  if (from === undefined || !SOURCES.includes(from)) {
    throw new CassetteError(
      'MCPC_USAGE',
      from === undefined
        ? `import needs --from (one of: ${SOURCES.join(', ')})`
        : `cannot import from ${JSON.stringify(from)}; use --from har`,
    );
  }
  const file = resolve(String(args.file));
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CassetteError('MCPC_FILE_UNREADABLE', `cannot read ${file} (${ioReason(err)})`, { cause: err });
  }
  const result = importHar(file, text, args.label === undefined ? undefined : String(args.label));
  const output = args.output === undefined ? undefined : String(args.output);
  if (isStdout(output)) {
    const cassette: Cassette = { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, sessions: result.sessions };
    writeReportText(undefined, stringifyCassette(cassette));
  } else await appendSessions(resolve(output!), result.sessions);
  const s = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;
  process.stderr.write(
    `import: ${s(result.exchanges, 'MCP exchange', 'MCP exchanges')} in ${s(result.sessions.length, 'session', 'sessions')}` +
      `${isStdout(output) ? '' : ` added to ${resolve(output!)}`}; ${s(result.skipped, 'entry', 'entries')} skipped (not MCP)\n`,
  );
  return 0;
};
