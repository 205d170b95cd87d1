import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { cassettesIn } from '../../lib/cassette/directory.js';

export interface RetentionPolicy {
  /** Keep at most this many closed cassettes. */
  files?: number;
  /** Delete closed cassettes last written longer ago than this. */
  ageMs?: number;
  /** Keep the closed cassettes' total size at most this (the newest is always kept). */
  bytes?: number;
}

export interface Pruned {
  path: string;
  bytes: number;
  why: 'keep-files' | 'keep-age' | 'keep-bytes';
}

/**
 * Deletes the oldest closed cassettes of `dir` until the policy holds. A cassette is closed when
 * no journal of it is left: the file a recorder is writing (or has yet to fold) is never touched.
 * Names sort by time, so the oldest come first; the newest closed cassette is always kept.
 */
export function prune(dir: string, policy: RetentionPolicy, now = Date.now()): Pruned[] {
  if (policy.files === undefined && policy.ageMs === undefined && policy.bytes === undefined) return [];
  const hidden = new Set(readdirSync(dir).filter((n) => n.startsWith('.')));
  const open = (path: string): boolean => {
    const prefix = `.${path.slice(dir.length + 1)}.`;
    for (const h of hidden) if (h.startsWith(prefix) && h.endsWith('.journal')) return true;
    return false;
  };
  const closed: { path: string; bytes: number; mtime: number }[] = [];
  for (const path of cassettesIn(dir)) {
    if (open(path)) continue;
    try {
      const st = statSync(path);
      closed.push({ path, bytes: st.size, mtime: st.mtimeMs });
    } catch {
      // deleted meanwhile
    }
  }
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
  return out.reverse();
}

/** Bytes the directory's cassettes and journals take (for logs and tests). */
export function directoryBytes(dir: string): number {
  let n = 0;
  for (const name of readdirSync(dir)) {
    try {
      const st = statSync(join(dir, name));
      if (st.isFile()) n += st.size;
    } catch {
      // gone
    }
  }
  return n;
}
