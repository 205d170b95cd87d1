import type { LiveRef } from '../lib/live-observer.js';

/** How many of a session's latest messages a live HTTP session keeps the place of (8 bytes each). */
export const REFS_KEPT = 1 << 20;

/**
 * Where each message of one live HTTP session sits (its exchange and place in it), by seq, for
 * the session-end verdicts, which point at a message by seq and are placed in the cassette by
 * its place. A session that never ends (a proxy in front of a busy server for weeks) numbers its
 * messages without end: the places are kept in two typed arrays used as a ring, the latest
 * REFS_KEPT of them (8 MB at most), instead of a Map entry and an object per message (about
 * 100 bytes each, without bound).
 */
export class LiveRefs {
  #x: Int32Array;
  #k: Int32Array;
  /** The highest seq set (seqs come 1, 2, 3, ...). */
  #last = 0;

  constructor(private readonly kept = REFS_KEPT) {
    this.#x = new Int32Array(Math.min(64, kept));
    this.#k = new Int32Array(Math.min(64, kept));
  }

  set(seq: number, ref: LiveRef): void {
    if (seq > this.#x.length && this.#x.length < this.kept) this.#grow(Math.min(this.kept, Math.max(seq, this.#x.length * 2)));
    const i = (seq - 1) % this.#x.length;
    this.#x[i] = ref.x;
    this.#k[i] = ref.k;
    if (seq > this.#last) this.#last = seq;
  }

  /** The place of message `seq`; undefined when it was never set or is older than the latest `kept`. */
  get(seq: number): LiveRef | undefined {
    if (seq < 1 || seq > this.#last || this.#last - seq >= this.#x.length) return undefined;
    const i = (seq - 1) % this.#x.length;
    return { x: this.#x[i]!, k: this.#k[i]! };
  }

  #grow(size: number): void {
    // Before the ring wraps, seq s sits at s - 1, so the arrays only need to be longer.
    const x = new Int32Array(size);
    const k = new Int32Array(size);
    x.set(this.#x);
    k.set(this.#k);
    this.#x = x;
    this.#k = k;
  }
}
