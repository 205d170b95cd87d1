import { unlinkSync } from 'node:fs';
import type { RecordedSession } from '../lib/cassette/cassette.js';
import { foldSessions } from '../lib/cassette/fold.js';
import { readJournal } from '../lib/cassette/journal.js';
import { recoverJournals } from '../lib/cassette/recover.js';
import { appendSessions } from '../lib/cassette/store.js';

/** Folds a finished session's journal into its cassette, then picks up journals that crashed
 * recorders left behind for the same cassette. */
export async function finishJournal(cassette: string, journal: string, options: { overwrite?: boolean }): Promise<RecordedSession[]> {
  const sessions = await foldSessions(readJournal(journal));
  await appendSessions(cassette, sessions, { overwrite: options.overwrite ?? false });
  unlinkSync(journal);
  await recoverJournals(cassette);
  return sessions;
}
