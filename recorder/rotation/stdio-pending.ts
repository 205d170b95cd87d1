/** Lines longer than this are not parsed (their bytes are not kept): a 50 MB answer is still
 * forwarded and recorded, it just does not count here. */
const MAX_LINE = 1024 * 1024;

/**
 * Which JSON-RPC requests of a stdio session are still waiting for their answer, so that a long
 * session is cut into parts only where none is (a request and its response always land in the
 * same cassette). Only used when a stdio recording rotates: it parses each line once, which the
 * proxy otherwise never does on its forwarding path.
 */
export class StdioPending {
  readonly #partial: Record<string, Buffer[]> = { stdin: [], stdout: [] };
  readonly #partialBytes: Record<string, number> = { stdin: 0, stdout: 0 };
  readonly #waiting = new Set<string>();

  get idle(): boolean {
    return this.#waiting.size === 0;
  }

  chunk(channel: string, data: Buffer): void {
    if (channel !== 'stdin' && channel !== 'stdout') return;
    let from = 0;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, from)) {
      this.#keep(channel, data.subarray(from, nl));
      const parts = this.#partial[channel]!;
      const size = this.#partialBytes[channel]!;
      this.#partial[channel] = [];
      this.#partialBytes[channel] = 0;
      if (size <= MAX_LINE) this.#line(channel, Buffer.concat(parts, size));
      from = nl + 1;
    }
    this.#keep(channel, data.subarray(from));
  }

  #keep(channel: string, bytes: Buffer): void {
    if (bytes.length === 0) return;
    this.#partialBytes[channel]! += bytes.length;
    if (this.#partialBytes[channel]! <= MAX_LINE) this.#partial[channel]!.push(Buffer.from(bytes));
  }

  #line(channel: string, bytes: Buffer): void {
    let m: { id?: unknown; method?: unknown };
    try {
      m = JSON.parse(bytes.toString('utf8')) as typeof m;
    } catch {
      return;
    }
    if (m === null || typeof m !== 'object' || (typeof m.id !== 'string' && typeof m.id !== 'number')) return;
    // A request from the client (stdin) waits for a response on stdout, and the other way round.
    const from = channel === 'stdin' ? 'c' : 's';
    const to = channel === 'stdin' ? 's' : 'c';
    if (typeof m.method === 'string') this.#waiting.add(`${from}:${JSON.stringify(m.id)}`);
    else this.#waiting.delete(`${to}:${JSON.stringify(m.id)}`);
  }
}
