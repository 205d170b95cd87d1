import type { LiveRef } from '../lib/live-observer.js';

/** How many of a session's latest messages a live HTTP session keeps the place of. */
export const REFS_KEPT = 1 << 20;

/**
 * Where each message of one live HTTP session sits (its exchange and place in it), by seq, for
 * the session-end verdicts, which point at a message by seq and are placed in the cassette by
 * its place. A session that never ends (a proxy in front of a busy server for weeks) numbers its
 * messages without end: the places are kept in two arrays of small integers used as a ring, the
 * latest REFS_KEPT of them (16 MB at most), instead of a Map entry and an object per message
 * (about 100 bytes each, without bound). Plain arrays rather than typed ones: most sessions are
 * stateless exchanges of two or three messages, and a typed array costs more to create.
 */
export class LiveRefs {
  readonly #x: number[] = [];
  readonly #k: number[] = [];
  /** The highest seq set (seqs come 1, 2, 3, ...). */
  #last = 0;

  constructor(private readonly kept = REFS_KEPT) {}

  set(seq: number, ref: LiveRef): void {
    const i = (seq - 1) % this.kept;
    this.#x[i] = ref.x;
    this.#k[i] = ref.k;
    if (seq > this.#last) this.#last = seq;
  }

  /** The place of message `seq`; undefined when it was never set or is older than the latest `kept`. */
  get(seq: number): LiveRef | undefined {
    if (seq < 1 || seq > this.#last || this.#last - seq >= this.kept) return undefined;
    const i = (seq - 1) % this.kept;
    const x = this.#x[i];
    return x === undefined ? undefined : { x, k: this.#k[i]! };
  }
}
