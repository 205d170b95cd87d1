import { basename, resolve } from 'node:path';
import { isDirectory, settleDirectory } from './directory.js';
import { settleJournals, type SettleResult } from './settle.js';

/**
 * What every command that reads cassettes does first (`show`, `validate`, `replay`, `serve`,
 * `view`, `check`, `export`, `probe`): settles the journals that recorders left beside them (a
 * file's own; every cassette's of a directory), so that a session whose recorder was killed, or
 * whose finisher has not run yet, is there when read. Each cassette that changed gets one line on
 * stderr; a journal that cannot be added (a corrupt cassette, a read-only folder) is said and
 * kept, and the read goes on with what the cassette holds.
 */
export async function settleBeforeRead(
  paths: readonly string[],
  say: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  for (const p of paths) {
    const path = resolve(p);
    let results: SettleResult[];
    try {
      results = isDirectory(path) ? await settleDirectory(path) : [await settleJournals(path)];
    } catch (err) {
      say(
        `mcp-cassette: ${basename(path)}: the sessions its recorders left in journals could not be added (${(err as Error).message}); they are kept, and any read adds them once the cassette is fixed or moved aside`,
      );
      continue;
    }
    for (const r of results) for (const line of settleLines(r)) say(line);
  }
}

/** The lines that say what settling a cassette did: nothing when nothing was there to settle. */
export function settleLines(r: SettleResult): string[] {
  const name = basename(r.cassette);
  const lines: string[] = [];
  const folded = r.sessions.length + r.sampledOut;
  if (r.journals.length > 0 && folded > 0) {
    const n = r.sessions.length;
    const parts = [
      `mcp-cassette: ${name}: added ${n} session${n === 1 ? '' : 's'} that ${n === 1 ? 'its recorder' : 'their recorders'} left in a journal`,
    ];
    if (r.sampledOut > 0) parts.push(` (${r.sampledOut} left out by --sample)`);
    if (r.judged > 0) parts.push(`, ${r.judged} messages judged now (${r.violations} violations stored)`);
    for (const c of r.cut) parts.push(`; the last frame on ${c.channel} (${c.bytes} bytes) was cut short when the recorder was killed`);
    lines.push(parts.join(''));
  }
  for (const s of r.skipped) {
    if (/still running/.test(s.reason)) continue; // a recording in progress: nothing to say
    lines.push(
      `mcp-cassette: ${name}: a journal could not be added (${s.reason}); it is kept in ${s.path}: fix or move the cassette, then any read adds it (or run \`mcp-cassette recover ${r.cassette}\`)`,
    );
  }
  return lines;
}
