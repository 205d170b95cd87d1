import { readdirSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { RecordedSession } from './cassette.js';
import { foldSessions } from './fold.js';
import { SpillFile } from '../framing/spill.js';
import { openJournal, type JournalHeader } from './journal.js';
export { journalPath } from './journal.js';
import { appendSessions } from './store.js';

export function listJournals(cassettePath: string): string[] {
  const dir = dirname(cassettePath);
  const prefix = `.${basename(cassettePath)}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((n) => n.startsWith(prefix) && n.endsWith('.journal'))
    .map((n) => join(dir, n))
    .sort();
}

/** A journal whose recorder still runs must not be folded: its session is not over. */
export function ownerAlive(header: Pick<JournalHeader, 'pid' | 'hostname'>): boolean {
  if (header.hostname !== hostname()) return true; // cannot tell from here; leave it alone
  try {
    process.kill(header.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface RecoverResult {
  recovered: RecordedSession[];
  /** Journals left alone, with the reason. */
  skipped: { path: string; reason: string }[];
}

/**
 * Folds the journals of recorders that died (SIGKILL, power loss) into the cassette. Safe to run
 * concurrently: sessions are keyed by id, so folding the same journal twice adds it once.
 */
export async function recoverJournals(cassettePath: string, options: { force?: boolean; exclude?: string } = {}): Promise<RecoverResult> {
  const result: RecoverResult = { recovered: [], skipped: [] };
  const done: string[] = [];
  // Large frames of every journal wait here until the cassette is written (see spill.ts).
  const spill = new SpillFile();
  try {
    for (const path of listJournals(cassettePath)) {
      if (path === options.exclude) continue;
      try {
        const journal = openJournal(path);
        if (!options.force && ownerAlive(journal.header)) {
          result.skipped.push({ path, reason: `recorder process ${journal.header.pid} is still running` });
          continue;
        }
        result.recovered.push(...(await foldSessions(journal, { recovered: true, spill })));
      } catch (err) {
        result.skipped.push({ path, reason: (err as Error).message });
        continue;
      }
      done.push(path);
    }
    if (result.recovered.length > 0) {
      await appendSessions(cassettePath, result.recovered);
      for (const path of done) {
        try {
          unlinkSync(path);
        } catch {
          // another recoverer got there first
        }
      }
    }
  } finally {
    spill.dispose();
  }
  return result;
}
