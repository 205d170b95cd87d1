import { unlinkSync } from 'node:fs';
import type { RecordedSession } from '../lib/cassette/cassette.js';
import { foldSessions } from '../lib/cassette/fold.js';
import { openJournal } from '../lib/cassette/journal.js';
import { settleJournals } from '../lib/cassette/settle.js';
import { appendSessions } from '../lib/cassette/store.js';
import { SpillFile } from '../lib/framing/spill.js';

/** Folds a finished session's journal into its cassette, then picks up journals that crashed
 * recorders left behind for the same cassette. The journal is read a block at a time and large
 * frames pass through a spill file, so the proxy's memory stays near one block whatever the
 * session holds. */
export async function finishJournal(
  cassette: string,
  journal: string,
  options: {
    overwrite?: boolean;
    judge?: (sessions: RecordedSession[]) => Promise<void>;
    select?: (sessions: RecordedSession[]) => RecordedSession[];
  },
): Promise<RecordedSession[]> {
  const spill = new SpillFile();
  try {
    const folded = await foldSessions(openJournal(journal), { spill });
    // What live validation left undone (it shed, or several workers split the sessions), judged
    // before --sample chooses, since a session with a violation is always kept.
    await options.judge?.(folded);
    // --sample: the sessions left out are never written (the journal goes once folded).
    const sessions = options.select ? options.select(folded) : folded;
    if (sessions.length > 0 || folded.length === 0) await appendSessions(cassette, sessions, { overwrite: options.overwrite ?? false });
    unlinkSync(journal);
    await settleJournals(cassette);
    return sessions;
  } finally {
    spill.dispose();
  }
}
