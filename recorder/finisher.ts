import { settleDirectory } from '../lib/cassette/directory.js';
import { settleJournals, type SettleResult } from '../lib/cassette/settle.js';
import { settleLines } from '../lib/cassette/settle-read.js';
import { leftAloneLine, prune } from './rotation/retention.js';
import type { FinisherJob } from './finisher-job.js';

/**
 * The background end of a stdio recording. A host gives a server little time to exit once it
 * closes its stdin (the v2 SDK client SIGKILLs its probe after 1 s; the v1 client sends SIGTERM
 * 2 s after closing stdin), so the recorder exits with its server as soon as its journal is
 * closed, and this process (`mcp-cassette finish-journal`, started detached in a session of its
 * own, so that no signal to the host's process group reaches it) folds the journal into the
 * cassette: what live validation did not judge is judged, --sample applies, and with
 * --cassette-dir the retention policy runs. If anything stops it, nothing is lost: every command
 * that reads the cassette settles the journal first (lib/cassette/settle-read.ts).
 */

/** The finisher's work; the lines it would say (written to the log file when there is one). */
export async function runFinisher(job: FinisherJob): Promise<{ results: SettleResult[]; lines: string[] }> {
  const results: SettleResult[] = [];
  const lines: string[] = [];
  if (job.cassette) results.push(await settleJournals(job.cassette, { mine: job.journals }));
  if (job.dir) {
    results.push(...(await settleDirectory(job.dir, { mine: job.journals })));
    if (job.retention) {
      const { pruned, leftAlone } = prune(job.dir, job.retention);
      for (const p of pruned) lines.push(`cassette ${p.path} (${p.bytes} bytes) deleted by the retention policy (${p.why})`);
      if (leftAlone > 0) lines.push(leftAloneLine(job.dir, leftAlone));
    }
  }
  for (const r of results) {
    if (r.judged > 0)
      lines.push(
        `live validation did not judge every message of ${r.cassette}; all ${r.judged} were judged when the cassette was written (${r.violations} violations stored)`,
      );
    if (r.sessions.length > 0)
      lines.push(
        `session${r.sessions.length === 1 ? '' : 's'} saved into ${r.cassette}: ${r.sessions
          .map((s) => `${s.id} (${s.messages.length} messages)`)
          .join(', ')}`,
      );
    else if (r.sampledOut > 0) lines.push(`cassette not written: --sample left every session out (${r.cassette})`);
    for (const l of settleLines(r)) if (l.includes('could not be added')) lines.push(l);
  }
  return { results, lines };
}
