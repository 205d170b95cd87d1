import { resolve } from 'node:path';
import { recoverJournals } from '../lib/cassette/recover.js';
import type { CommandModule } from '../lib/command.js';

export async function recoverCommand(cassette: string, force: boolean): Promise<number> {
  const path = resolve(cassette);
  const result = await recoverJournals(path, { force });
  for (const s of result.recovered) {
    process.stdout.write(`recovered session ${s.id} (${s.messages.length} messages, started ${s.startedAt}) into ${path}\n`);
  }
  for (const s of result.skipped) process.stderr.write(`mcp-cassette: skipped ${s.path}: ${s.reason}\n`);
  if (result.recovered.length === 0 && result.skipped.length === 0) process.stdout.write(`nothing to recover for ${path}\n`);
  return result.skipped.some((s) => !s.reason.includes('still running')) ? 1 : 0;
}

export const RECOVER_COMMAND: CommandModule = {
  name: 'recover',
  describe: 'Fold the journals of recorders that died (SIGKILL, crash) into the cassette',
  positionals: [{ name: 'cassette' }],
  options: { force: { type: 'boolean', default: false, describe: 'Also fold journals whose recorder still looks alive' } },
  handler: async (args) => recoverCommand(String(args.cassette), Boolean(args.force)),
};
