/**
 * What a stdio proxy forwards of one stream: exactly the bytes its journal holds, no more. With
 * the capture filter on (secrets are masked by default), a line reaches the journal once it is
 * complete, so that it is masked whole; its bytes wait here until then, and a SIGKILL can never
 * leave the other side with bytes the journal lacks. A peer reads stdio MCP a line at a time, so
 * holding back the start of a line costs it nothing; bytes still go out unchanged and in order.
 * Without a filter (or for a whole line, the usual chunk) everything goes at once, uncopied.
 */
export class HeldBack {
  #queue: Buffer[] = [];
  #queued = 0;

  /** The bytes to forward now, given a chunk just journaled and how many bytes of the stream the
   * journal still holds unwritten (the last ones taken in). */
  take(chunk: Buffer, held: number): Buffer | undefined {
    if (this.#queued === 0 && held === 0) return chunk;
    this.#queue.push(chunk);
    this.#queued += chunk.length;
    const ready = this.#queued - held;
    if (ready <= 0) return undefined;
    const all = this.#queue.length === 1 ? this.#queue[0]! : Buffer.concat(this.#queue, this.#queued);
    this.#queue = held > 0 ? [all.subarray(ready)] : [];
    this.#queued = held;
    return all.subarray(0, ready);
  }

  /** What is left once the journal wrote the rest (the stream ended). */
  rest(): Buffer | undefined {
    if (this.#queued === 0) return undefined;
    const all = Buffer.concat(this.#queue, this.#queued);
    this.#queue = [];
    this.#queued = 0;
    return all;
  }
}
