/**
 * The fuzzer's random source: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator) seeded
 * from a 32-bit unsigned seed through splitmix32. Our own, because `Math.random` cannot be seeded,
 * and `--seed S` must give the same cases in the same order on every Node version and every OS:
 * the generator is nothing but 32-bit integer arithmetic (`Math.imul`, shifts, `>>> 0`), which
 * JavaScript defines exactly, and every derived draw (`int`, `chance`) divides by 2^32 once, which
 * IEEE doubles do exactly too.
 */
import { CassetteError } from '../../lib/errors.js';

export interface Random {
  /** The next 32-bit unsigned integer. */
  next(): number;
  /** A whole number in [0, n); n a positive whole number up to 2^32. */
  int(n: number): number;
  /** One entry of a non-empty list. */
  pick<T>(list: readonly T[]): T;
  /** True with probability p (0 never, 1 always). */
  chance(p: number): boolean;
  /** A shuffled copy (Fisher-Yates); the list itself is left as it was. */
  shuffle<T>(list: readonly T[]): T[];
}

/** splitmix32: spreads one seed over sfc32's four words, so seeds 0, 1, 2... start far apart. */
function splitmix32(state: number): () => number {
  let s = state >>> 0;
  return () => {
    s = (s + 0x9e3779b9) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

export function createRandom(seed: number): Random {
  if (!Number.isInteger(seed) || seed < 0 || seed >= 2 ** 32)
    throw new CassetteError('MCPC_USAGE', `a fuzz seed is a whole number from 0 to 4294967295 (2^32 - 1), not ${seed} (--seed)`);
  const mix = splitmix32(seed);
  let a = mix();
  let b = mix();
  let c = mix();
  let d = mix();
  const next = (): number => {
    const t = (((a + b) >>> 0) + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t;
  };
  // sfc32 is meant to be warmed up before use: the first draws still echo the seed.
  for (let i = 0; i < 12; i++) next();
  const int = (n: number): number => {
    if (!Number.isInteger(n) || n <= 0 || n > 2 ** 32) throw new RangeError(`int(n) needs a whole n in [1, 2^32], not ${n}`);
    return Math.floor((next() / 2 ** 32) * n);
  };
  return {
    next,
    int,
    pick<T>(list: readonly T[]): T {
      if (list.length === 0) throw new RangeError('pick() of an empty list');
      return list[int(list.length)]!;
    },
    chance: (p: number) => next() < p * 2 ** 32,
    shuffle<T>(list: readonly T[]): T[] {
      const out = [...list];
      for (let i = out.length - 1; i > 0; i--) {
        const j = int(i + 1);
        [out[i], out[j]] = [out[j]!, out[i]!];
      }
      return out;
    },
  };
}
