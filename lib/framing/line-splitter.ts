/**
 * Raw-preserving newline framing for stdio MCP traffic. Unlike the SDK's ReadBuffer it never
 * skips or decodes anything: a frame is the exact bytes between two `\n` (a `\r` before the
 * `\n` stays in the frame), so a non-JSON line or invalid UTF-8 is kept for the record.
 * Partial lines are kept as a list of chunks and joined once, so a 50 MB line split into
 * thousands of chunks costs one copy, not thousands.
 */
export type FrameHandler = (frame: Buffer, terminated: boolean) => void;

export class LineSplitter {
  #pending: Buffer[] = [];
  #pendingBytes = 0;

  constructor(private readonly onFrame: FrameHandler) {}

  push(chunk: Buffer): void {
    let start = 0;
    let nl = chunk.indexOf(0x0a, start);
    while (nl !== -1) {
      const piece = chunk.subarray(start, nl);
      if (this.#pendingBytes > 0) {
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
      this.#pending.push(rest);
      this.#pendingBytes += rest.length;
    }
  }

  /** Bytes received after the last newline, as a frame marked unterminated. */
  end(): void {
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
