/**
 * A first-in first-out queue whose head may have to wait: items are handed to `take` from the
 * head as long as `ready` holds of the head, and the rest keep their order (the HTTP session
 * naming and the live readers of a journal, whose items wait for an exchange's session).
 */
export class WaitingQueue<T> {
  #items: T[] = [];
  #head = 0;

  constructor(
    private readonly ready: (item: T) => boolean,
    private readonly take: (item: T) => void,
  ) {}

  /** Queues an item, then hands on what is ready. */
  push(item: T): void {
    this.#items.push(item);
    this.drain();
  }

  /** Hands on the items at the head as long as the head is ready (call it when one became so). */
  drain(): void {
    const q = this.#items;
    while (this.#head < q.length && this.ready(q[this.#head]!)) this.take(q[this.#head++]!);
    // Taken items are let go: at once when none waits, else once they are many.
    if (this.#head === q.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024) {
      this.#items = q.slice(this.#head);
      this.#head = 0;
    }
  }
}
