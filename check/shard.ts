/**
 * `check --shard K/N`: which cassettes this runner replays when a CI matrix splits one check over
 * N runners. The split depends on the cassettes' paths alone (relative to the working directory,
 * so runners with different checkout folders agree): the cassettes the globs match are sorted by
 * path, and the i-th goes to part (i mod N) + 1. Whatever order a runner's file system lists them
 * in, each cassette lands in exactly one part, and the parts differ in size by one at most.
 */
import { relative, sep } from 'node:path';
import { CassetteError } from '../lib/errors.js';

export interface ShardSpec {
  /** 1-based: this runner's part. */
  index: number;
  total: number;
}

export function parseShard(text: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : Number.NaN;
  const total = m ? Number(m[2]) : Number.NaN;
  if (!m || !(total >= 1) || !(index >= 1 && index <= total)) {
    throw new CassetteError(
      'MCPC_USAGE',
      `--shard must be K/N, this runner's part K of N with 1 <= K <= N, e.g. --shard 2/3 (got ${JSON.stringify(text)})`,
    );
  }
  return { index, total };
}

/** The key a cassette is placed by: its path relative to `cwd`, with `/` on every system. */
export const shardKey = (path: string, cwd = process.cwd()): string => (relative(cwd, path) || path).split(sep).join('/');

/** The places in `paths` (the unsharded run's order) of the cassettes part `shard` replays, in
 * that order. */
export function shardPositions(paths: readonly string[], shard: ShardSpec, cwd = process.cwd()): number[] {
  const byPath = paths
    .map((p, i) => ({ i, key: shardKey(p, cwd) }))
    // Code-point order, not the locale's: every runner sorts alike.
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.i - b.i));
  return byPath
    .filter((_, rank) => rank % shard.total === shard.index - 1)
    .map((x) => x.i)
    .sort((a, b) => a - b);
}
