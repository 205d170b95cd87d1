import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Frames above this size are not joined in memory when a journal is folded into a cassette: their
 * bytes go to a spill file and the cassette writer streams them from there. Parsing a frame costs
 * about five times its size at once (bytes, text, parsed value, the canonical check, the output),
 * which made a 50 MB tool result peak at 10x its size in the proxy.
 */
export const SPILL_ABOVE = 4 * 1024 * 1024;

/** How much of a spilled frame is in memory at once while it is scanned or written. */
export const SPILL_READ = 3 * 256 * 1024; // a multiple of 3, so base64 pieces join exactly

/**
 * A temporary file that holds the bytes of large frames while a fold and its cassette write run.
 * It lives in the system's temporary directory (not beside the cassette, which may be on a slow
 * or synced disk) and is removed by `dispose()`.
 */
export class SpillFile {
  #fd: number | undefined;
  #dir: string | undefined;
  #size = 0;
  #disposed = false;

  /** Appends bytes; returns the offset they start at. */
  append(data: Buffer): number {
    const at = this.#size;
    let done = 0;
    while (done < data.length) done += writeSync(this.#open(), data, done, data.length - done, at + done);
    this.#size += data.length;
    return at;
  }

  get size(): number {
    return this.#size;
  }

  read(into: Buffer, length: number, position: number): number {
    let done = 0;
    while (done < length) {
      const n = readSync(this.#open(), into, done, length - done, position + done);
      if (n === 0) break;
      done += n;
    }
    return done;
  }

  dispose(): void {
    this.#disposed = true;
    if (this.#fd !== undefined) closeSync(this.#fd);
    if (this.#dir !== undefined) rmSync(this.#dir, { recursive: true, force: true });
    this.#fd = undefined;
    this.#dir = undefined;
    this.#size = 0;
  }

  #open(): number {
    if (this.#disposed)
      throw new Error(
        'a spilled frame was read after its cassette was written and the spill file removed; read the message from the cassette',
      );
    if (this.#fd === undefined) {
      this.#dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-spill-'));
      this.#fd = openSync(join(this.#dir, 'frames'), 'w+', 0o600);
    }
    return this.#fd;
  }
}

/** The bytes of one frame that went to a spill file. */
export class SpilledBytes {
  constructor(
    readonly file: SpillFile,
    readonly offset: number,
    readonly length: number,
  ) {}

  /** The bytes in pieces of at most `size` (reused buffer: copy what must outlive the step). */
  *pieces(size = SPILL_READ): Generator<Buffer> {
    const buf = Buffer.allocUnsafe(Math.min(size, Math.max(this.length, 1)));
    for (let at = 0; at < this.length; at += buf.length) {
      const n = this.file.read(buf, Math.min(buf.length, this.length - at), this.offset + at);
      if (n === 0) return;
      yield buf.subarray(0, n);
    }
  }

  /** All the bytes at once: only for code that needs the value itself (tests, `toJSON`). */
  read(): Buffer {
    const out = Buffer.allocUnsafe(this.length);
    this.file.read(out, this.length, this.offset);
    return out;
  }
}

/**
 * Collects the bytes of a frame that arrives in pieces: in memory while it is small, in the spill
 * file once it grows past `above` (the pieces so far are moved there too).
 */
export class FrameCollector {
  #pieces: Buffer[] = [];
  #bytes = 0;
  #spillAt: number | undefined;

  constructor(
    private readonly spill: SpillFile | undefined,
    private readonly above = SPILL_ABOVE,
  ) {}

  push(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#bytes += piece.length;
    if (this.#spillAt !== undefined) {
      this.spill!.append(piece);
      return;
    }
    this.#pieces.push(piece);
    if (this.spill && this.#bytes > this.above) {
      this.#spillAt = this.spill.size;
      for (const p of this.#pieces) this.spill.append(p);
      this.#pieces = [];
    }
  }

  get bytes(): number {
    return this.#bytes;
  }

  /** The frame so far, and a fresh start: a Buffer, or the spilled bytes. */
  take(): Buffer | SpilledBytes {
    const out =
      this.#spillAt !== undefined
        ? new SpilledBytes(this.spill!, this.#spillAt, this.#bytes)
        : this.#pieces.length === 1
          ? this.#pieces[0]!
          : Buffer.concat(this.#pieces, this.#bytes);
    this.#pieces = [];
    this.#bytes = 0;
    this.#spillAt = undefined;
    return out;
  }
}
