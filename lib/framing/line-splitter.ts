import { SpilledBytes, type SpillFile } from './spill.js';

/**
 * Raw-preserving newline framing for stdio MCP traffic. Unlike the SDK's ReadBuffer it never
 * skips or decodes anything: a frame is the exact bytes between two `\n` (a `\r` before the
 * `\n` stays in the frame), so a non-JSON line or invalid UTF-8 is kept for the record.
 * Partial lines are kept as a list of chunks and joined once, so a 50 MB line split into
 * thousands of chunks costs one copy, not thousands.
 */
export type FrameHandler = (frame: Buffer, terminated: boolean) => void;

/** Lines longer than `above` go to a spill file as they arrive and are handed on as
 * SpilledBytes (the cassette fold: a 50 MB line is never joined in memory). */
export interface LineSpill {
  file: SpillFile;
  above: number;
  onFrame: (frame: SpilledBytes, terminated: boolean) => void;
}

export class LineSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** The current line passed `maxFrame`: its bytes are counted, no longer kept. */
  #dropping = false;
  /** Where the current line starts in the spill file, once it went there. */
  #spillAt: number | undefined;

  /**
   * @param maxFrame a line longer than this is not kept in memory (or joined) at all:
   *   `onOversize` hears of its length once it ends, instead of `onFrame`. Without it every line
   *   is a frame, however long.
   */
  constructor(
    private readonly onFrame: FrameHandler,
    private readonly maxFrame = Infinity,
    private readonly onOversize?: (bytes: number, terminated: boolean) => void,
    private readonly spill?: LineSpill,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(0x0a, start);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl);
      if (this.#dropping || this.#pendingBytes + piece.length > this.maxFrame) {
        const bytes = this.#pendingBytes + piece.length;
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#dropping = false;
        this.#oversize(bytes, true);
      } else if (this.spill && (this.#spillAt !== undefined || this.#pendingBytes + piece.length > this.spill.above)) {
        this.#toSpill(piece);
        this.#emitSpilled(true);
      } else if (this.#pendingBytes > 0) {
        this.#pending.push(piece);
        const frame = Buffer.concat(this.#pending, this.#pendingBytes + piece.length);
        this.#pending = [];
        this.#pendingBytes = 0;
        this.onFrame(frame, true);
      } else {
        this.onFrame(piece, true);
      }
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      this.#pendingBytes += rest.length;
      if (this.#spillAt !== undefined) this.spill!.file.append(rest);
      else if (!this.#dropping) this.#pending.push(rest);
      if (this.spill && this.#spillAt === undefined && this.#pendingBytes > this.spill.above) this.#toSpill();
      if (!this.#dropping && this.#pendingBytes > this.maxFrame) {
        this.#pending = [];
        this.#dropping = true;
      }
    }
  }

  /** Moves the line so far to the spill file (once), then `piece` after it. */
  #toSpill(piece?: Buffer): void {
    const file = this.spill!.file;
    if (this.#spillAt === undefined) {
      this.#spillAt = file.size;
      for (const p of this.#pending) file.append(p);
      this.#pending = [];
    }
    if (piece) {
      file.append(piece);
      this.#pendingBytes += piece.length;
    }
  }

  #emitSpilled(terminated: boolean): void {
    const frame = new SpilledBytes(this.spill!.file, this.#spillAt!, this.#pendingBytes);
    this.#spillAt = undefined;
    this.#pendingBytes = 0;
    this.spill!.onFrame(frame, terminated);
  }

  /** `n` more bytes of the current line, without the bytes: only for a line already past
   * `maxFrame` (whose bytes are counted, not kept), when the sender knows they hold no newline. */
  skip(n: number): void {
    if (!this.#dropping) throw new Error(`LineSplitter.skip: the current line (${this.#pendingBytes} bytes) is not past maxFrame`);
    this.#pendingBytes += n;
  }

  #oversize(bytes: number, terminated: boolean): void {
    if (this.onOversize) this.onOversize(bytes, terminated);
  }

  /** Bytes received after the last newline, as a frame marked unterminated. */
  end(): void {
    if (this.#dropping) {
      const bytes = this.#pendingBytes;
      this.#pendingBytes = 0;
      this.#dropping = false;
      this.#oversize(bytes, false);
      return;
    }
    if (this.#spillAt !== undefined) {
      this.#emitSpilled(false);
      return;
    }
    if (this.#pendingBytes > 0) {
      const frame = Buffer.concat(this.#pending, this.#pendingBytes);
      this.#pending = [];
      this.#pendingBytes = 0;
      this.onFrame(frame, false);
    }
  }

  get pendingBytes(): number {
    return this.#pendingBytes;
  }
}
