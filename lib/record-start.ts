/**
 * The first thing `mcp-cassette record -- <server>` does: check its options and spawn the server,
 * before the rest of the program loads (lib/cli.ts). A usage error starts nothing: the options
 * are checked exactly as the recorder checks them (recordArgsFrom), and the error is reported by
 * the program, which checks them again. The build bundles this module on its own into one file
 * (dist/bin/record-start.js), so it costs the host's wait a few milliseconds.
 */
import { parseFast } from './fast-args.js';
import { RECORD_OPTIONS } from '../recorder/record-options.js';
import { recordArgsFrom } from '../recorder/record-args.js';
import { leaveEarlyServer, spawnRecordedServer } from '../recorder/server-spawn.js';

export function startRecordEarly(argv: readonly string[]): void {
  const fast = parseFast(argv, RECORD_OPTIONS);
  if (!fast) return;
  let command: string[];
  try {
    const args = recordArgsFrom(fast);
    if (args.http) return;
    command = args.command;
  } catch {
    return; // the program says what is wrong
  }
  leaveEarlyServer(spawnRecordedServer(command));
}
