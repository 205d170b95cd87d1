/**
 * A JSON-RPC client over newline-delimited streams (a stdio server, direct or through a proxy).
 * It matches answers to requests by id, so many requests can be in flight, and it never holds a
 * whole answer in memory: only the first bytes of each line (for the id) and a byte count, so a
 * 50 MB answer costs the benchmark nothing.
 */
import type { Readable, Writable } from 'node:stream';

const HEAD = 96;

/** An answer: its size in bytes (newline excluded) and its first bytes (latin1). */
export interface Reply {
  bytes: number;
  head: string;
}

export class LineClient {
  #pending = new Map<number, { resolve: (reply: Reply) => void; reject: (err: Error) => void }>();
  #head: Buffer[] = [];
  #headBytes = 0;
  #lineBytes = 0;
  #nextId = 0;
  #closed: Error | undefined;
  /** Answers received so far. */
  answered = 0;

  constructor(
    readable: Readable,
    private readonly writable: Writable,
  ) {
    readable.on('data', (chunk: Buffer) => this.#data(chunk));
    readable.on('close', () => this.#fail(new Error('the server side closed')));
    writable.on('error', (err) => this.#fail(err));
  }

  #data(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const nl = chunk.indexOf(0x0a, pos);
      const end = nl === -1 ? chunk.length : nl;
      if (this.#headBytes < HEAD && end > pos) {
        const take = chunk.subarray(pos, Math.min(end, pos + HEAD - this.#headBytes));
        this.#head.push(take);
        this.#headBytes += take.length;
      }
      this.#lineBytes += end - pos;
      if (nl === -1) return;
      this.#line();
      pos = nl + 1;
    }
  }

  #line(): void {
    const head = Buffer.concat(this.#head).toString('latin1');
    const bytes = this.#lineBytes;
    this.#head = [];
    this.#headBytes = 0;
    this.#lineBytes = 0;
    const m = /"id":(\d+)[,}]/.exec(head);
    if (!m) return;
    const waiter = this.#pending.get(Number(m[1]));
    if (!waiter) return; // a server → client request, or a notification
    this.#pending.delete(Number(m[1]));
    this.answered += 1;
    waiter.resolve({ bytes, head });
  }

  #fail(err: Error): void {
    this.#closed ??= err;
    for (const w of this.#pending.values()) w.reject(err);
    this.#pending.clear();
  }

  /** Sends a request; resolves with the answer's size and first bytes. */
  request(method: string, params: unknown = {}): Promise<Reply> {
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      if (this.#closed) return reject(this.#closed);
      this.#pending.set(id, { resolve, reject });
      this.writable.write(`{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${JSON.stringify(params)}}\n`);
    });
  }

  /** `tools/call echo {n}`, the benchmarks' unit of work. */
  echo(n: number): Promise<Reply> {
    return this.request('tools/call', { name: 'echo', arguments: { n } });
  }

  notify(method: string, params: unknown = {}): void {
    this.writable.write(`{"jsonrpc":"2.0","method":"${method}","params":${JSON.stringify(params)}}\n`);
  }

  /** The 2025-11-25 handshake every session starts with. */
  async handshake(): Promise<void> {
    await this.request('initialize', INITIALIZE_PARAMS);
    this.notify('notifications/initialized');
  }

  get inFlight(): number {
    return this.#pending.size;
  }
}

export const INITIALIZE_PARAMS = {
  protocolVersion: '2025-11-25',
  capabilities: {},
  clientInfo: { name: 'mcp-cassette-bench', version: '1.0.0' },
};

/**
 * Keeps `window` requests in flight until `total` were answered; resolves with the seconds it
 * took. `send` issues one request.
 */
export function pump(
  total: number,
  window: number,
  send: (i: number) => Promise<unknown>,
  onAnswer?: (done: number) => void,
): Promise<number> {
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = 0;
    const next = (): void => {
      if (sent >= total) return;
      const i = sent++;
      send(i).then(() => {
        done += 1;
        onAnswer?.(done);
        if (done === total) resolve((performance.now() - t0) / 1000);
        else next();
      }, reject);
    };
    for (let w = 0; w < Math.min(window, total); w++) next();
  });
}
