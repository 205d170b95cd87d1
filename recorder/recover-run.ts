import { resolve } from 'node:path';
import { isDirectory, settleDirectory } from '../lib/cassette/directory.js';
import { listJournals, settleJournals, type SettleResult } from '../lib/cassette/settle.js';
import type { CommandModule } from '../lib/command.js';

/** `recover <cassette>`, or `recover <dir>` for a directory that `record --cassette-dir` writes:
 * every journal there goes into its own cassette. Every command that reads cassettes does the
 * same first (lib/cassette/settle-read.ts); this one says what it did, session by session. */
export async function recoverCommand(cassette: string, force: boolean): Promise<number> {
  const path = resolve(cassette);
  // A folder with journals beside it (not in it) is a cassette path taken by a folder: say so.
  const results: SettleResult[] =
    isDirectory(path) && listJournals(path).length === 0 ? await settleDirectory(path, { force }) : [await settleJournals(path, { force })];
  for (const result of results) {
    for (const s of result.sessions) {
      process.stdout.write(`recovered session ${s.id} (${s.messages.length} messages, started ${s.startedAt}) into ${result.cassette}\n`);
    }
    for (const s of result.skipped) process.stderr.write(`mcp-cassette: skipped ${s.path}: ${s.reason}\n`);
  }
  if (results.every((r) => r.sessions.length === 0 && r.skipped.length === 0)) process.stdout.write(`nothing to recover for ${path}\n`);
  return results.some((r) => r.skipped.some((s) => !s.reason.includes('still running'))) ? 1 : 0;
}

/** The handler of RECOVER_COMMAND (recover-command.ts), loaded when the command runs. */
export const RECOVER_HANDLER: CommandModule['handler'] = async (args) => recoverCommand(String(args.cassette), Boolean(args.force));
