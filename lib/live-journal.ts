/**
 * The HTTP traffic on its way to the live validator's worker, in the journal's own format: the
 * proxy copies each record's journal line (and a chunk's bytes) into one buffer per batch and
 * moves that buffer to the worker, which reads the records back. Copying bytes costs the
 * forwarding thread far less than cloning record objects (headers and all) into a message.
 *
 * A chunk the worker would only count, never keep, comes as a line `{"t","c","x","skip":n}`
 * without its bytes (see LiveTap).
 */

/** One batch (an item of the array the proxy posts to the worker): HTTP journal records, or
 * stdio chunks in the binary form of lib/live-stdio.ts. */
export type LiveJournalInput = { type: 'journal'; bytes: Uint8Array } | { type: 'stdio'; bytes: Uint8Array };

/** A record as the worker's HTTP framer reads it: a chunk carries `data`, or only `n` bytes. */
export type LiveRecord = { t: number; ev?: string; c?: string; x?: number; data?: Uint8Array; n?: number; [k: string]: unknown };

const STREAM: Record<string, string> = { q: 'http-request', r: 'http-response' };

const BLOCK = 64 * 1024;

/** Collects a batch's records in buffers of their own (transferable, never pooled), whole
 * records per buffer: a record larger than the room left starts a buffer of its own size. */
export class LiveJournalBuffer {
  #buf = Buffer.allocUnsafeSlow(BLOCK);
  #used = 0;
  #full: LiveJournalInput[] = [];

  constructor(private readonly type: LiveJournalInput['type'] = 'journal') {}

  /** Appends one record (its line, and a chunk's bytes and newline). */
  append(...parts: Uint8Array[]): void {
    let size = 0;
    for (const part of parts) size += part.length;
    let at = this.reserve(size);
    for (const part of parts) {
      this.#buf.set(part, at);
      at += part.length;
    }
  }

  /** Room for `size` bytes in one buffer: the buffer to write them into and where, taken. */
  reserve(size: number): number {
    if (this.#used + size > this.#buf.length) {
      this.#close();
      if (size > this.#buf.length) this.#buf = Buffer.allocUnsafeSlow(size);
    }
    const at = this.#used;
    this.#used += size;
    return at;
  }

  /** The buffer `reserve` handed room in (valid until the next `reserve` or `take`). */
  get buffer(): Buffer {
    return this.#buf;
  }

  /** The records so far, one input per buffer (their memory is the caller's to transfer). */
  take(): LiveJournalInput[] {
    this.#close();
    const full = this.#full;
    this.#full = [];
    return full;
  }

  #close(): void {
    if (this.#used === 0) return;
    this.#full.push({ type: this.type, bytes: new Uint8Array(this.#buf.buffer, this.#buf.byteOffset, this.#used) } as LiveJournalInput);
    this.#buf = Buffer.allocUnsafeSlow(BLOCK);
    this.#used = 0;
  }
}

/** The line for a chunk sent without its bytes. */
export function skipLine(t: number, code: string, x: number | undefined, n: number): Buffer {
  return Buffer.from(`{"t":${t},"c":"${code}"${x === undefined ? '' : `,"x":${x}`},"skip":${n}}\n`);
}

/** Reads a batch back into records; returns how many chunk bytes it carried. */
export function readLiveJournal(bytes: Uint8Array, onRecord: (record: LiveRecord) => void): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let carried = 0;
  let pos = 0;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    const line = JSON.parse(buf.toString('utf8', pos, nl)) as LiveRecord & { c?: string; n?: number; skip?: number };
    pos = nl + 1;
    if (typeof line.ev === 'string') {
      onRecord(line);
    } else if (line.skip !== undefined) {
      onRecord({ t: line.t, c: STREAM[line.c!], ...(line.x === undefined ? {} : { x: line.x }), n: line.skip });
    } else {
      const n = line.n!;
      onRecord({ t: line.t, c: STREAM[line.c!], ...(line.x === undefined ? {} : { x: line.x }), data: buf.subarray(pos, pos + n) });
      carried += n;
      pos += n + 1;
    }
  }
  return carried;
}
