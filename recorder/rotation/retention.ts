import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { cassettesIn } from '../../lib/cassette/directory.js';
import { forget, ownersOf, writerOf } from './ownership.js';

export interface RetentionPolicy {
  /** Keep at most this many closed cassettes. */
  files?: number;
  /** Delete closed cassettes last written longer ago than this. */
  ageMs?: number;
  /** Keep the closed cassettes' total size at most this (the newest is always kept). */
  bytes?: number;
  /** `--keep-scope replica`: only the cassettes this replica wrote count and may be deleted (the
   * other replicas' are theirs to prune); without it, every cassette the directory's recorders
   * wrote (the fleet's). */
  replica?: string;
}

export interface Pruned {
  path: string;
  bytes: number;
  why: 'keep-files' | 'keep-age' | 'keep-bytes';
}

export interface RetentionResult {
  pruned: Pruned[];
  /** Closed `*.cassette.json` files that the directory's recorders did not write (ownership.ts):
   * neither counted by the policy nor deleted. */
  leftAlone: number;
}

/**
 * Deletes the oldest closed cassettes of `dir` that its recorders wrote until the policy holds.
 * Only those count: a cassette a person put there, or one another writer made (ownership.ts), is
 * left alone, and neither takes a place in --keep-files nor bytes of --keep-bytes; with
 * `replica`, neither do the other replicas' cassettes (theirs to prune). Replicas pruning one
 * directory at once may pick the same file: it is deleted once, and only the replica whose
 * delete succeeded counts it. A cassette is
 * closed when no journal of it is left: the file a recorder is writing (or has yet to fold) is
 * never touched. Names sort by time, so the oldest come first; the newest closed cassette is
 * always kept.
 */
export function prune(dir: string, policy: RetentionPolicy, now = Date.now()): RetentionResult {
  if (policy.files === undefined && policy.ageMs === undefined && policy.bytes === undefined) return { pruned: [], leftAlone: 0 };
  const hidden = new Set(readdirSync(dir).filter((n) => n.startsWith('.')));
  const open = (path: string): boolean => {
    const prefix = `.${path.slice(dir.length + 1)}.`;
    for (const h of hidden) if (h.startsWith(prefix) && h.endsWith('.journal')) return true;
    return false;
  };
  const owners = ownersOf(dir);
  const closed: { path: string; bytes: number; mtime: number }[] = [];
  const present = new Set<string>();
  let leftAlone = 0;
  for (const path of cassettesIn(dir)) {
    present.add(path);
    if (open(path)) continue;
    try {
      const st = statSync(path);
      const whose = writerOf(path, st, owners, policy.replica);
      if (whose === 'ours') closed.push({ path, bytes: st.size, mtime: st.mtimeMs });
      else if (whose === 'foreign') leftAlone += 1;
    } catch {
      // deleted meanwhile
    }
  }
  forget(dir, present);
  const out: Pruned[] = [];
  // Newest first: what is kept is decided from the newest down.
  closed.reverse();
  let total = 0;
  let overBytes = false;
  closed.forEach((c, i) => {
    total += c.bytes;
    if (i === 0) return;
    // Once one cassette does not fit in --keep-bytes, every older one goes too.
    overBytes ||= policy.bytes !== undefined && total > policy.bytes;
    const why =
      policy.files !== undefined && i >= policy.files
        ? 'keep-files'
        : policy.ageMs !== undefined && now - c.mtime > policy.ageMs
          ? 'keep-age'
          : overBytes
            ? 'keep-bytes'
            : undefined;
    if (!why) return;
    try {
      unlinkSync(c.path);
      out.push({ path: c.path, bytes: c.bytes, why });
    } catch {
      // gone already, or not ours to delete
    }
  });
  return { pruned: out.reverse(), leftAlone };
}

/** What a recorder says of the files retention left alone (the same line wherever it runs). */
export function leftAloneLine(dir: string, n: number): string {
  return `${n} file${n === 1 ? '' : 's'} named *.cassette.json in ${dir} ${n === 1 ? 'was' : 'were'} not written by this directory's recorders and ${n === 1 ? 'was' : 'were'} left alone by the retention policy (it counts and deletes only its own cassettes; delete the others by hand if they should go)`;
}
