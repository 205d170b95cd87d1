/**
 * Folds one closed journal of `record --cassette-dir` into its cassette, or recovers the journals
 * that dead recorders left in the directory, in a worker thread: a fold is CPU work that must not
 * hold up the proxy, which goes on forwarding meanwhile.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { recoverDirectory } from '../../lib/cassette/directory.js';
import { finishJournal } from '../finish-session.js';

export type FoldJob = { kind: 'fold'; journal: string; cassette: string } | { kind: 'recover'; dir: string };
export type FoldResult = { ok: true; sessions: number; messages: number } | { ok: false; error: string };

async function run(job: FoldJob): Promise<FoldResult> {
  if (job.kind === 'fold') {
    const sessions = await finishJournal(job.cassette, job.journal, {});
    return { ok: true, sessions: sessions.length, messages: sessions.reduce((n, s) => n + s.messages.length, 0) };
  }
  const results = await recoverDirectory(job.dir);
  const sessions = results.flatMap((r) => r.recovered);
  return { ok: true, sessions: sessions.length, messages: sessions.reduce((n, s) => n + s.messages.length, 0) };
}

run(workerData as FoldJob).then(
  (result) => parentPort!.postMessage(result),
  (err: unknown) => parentPort!.postMessage({ ok: false, error: (err as Error).message } satisfies FoldResult),
);
