import { FrameCollector, type SpillFile, SpilledBytes } from './spill.js';

/**
 * The event-stream rules of sse-splitter.ts, applied to bytes, for the cassette fold: an event's
 * data is collected as bytes (in a spill file once it is large), never as one string, so a 50 MB
 * SSE event folds in bounded memory. Small events give exactly the text SseSplitter gives (UTF-8
 * decoded, invalid sequences replaced); a spilled event keeps its bytes as they came.
 */
export interface SseByteEvent {
  data: Buffer | SpilledBytes;
  hasData: boolean;
  id?: string;
  event?: string;
  retry?: number;
}

/** Field names and the values of fields other than `data` are short; longer ones are cut. */
const FIELD_MAX = 4096;
const LF = Buffer.from('\n');

export class SseByteSplitter {
  readonly #data: FrameCollector;
  #dataLines = 0;
  #fields: Omit<SseByteEvent, 'data' | 'hasData'> = {};
  #seenField = false;
  #pendingCR = false;
  // The current line.
  #lineEmpty = true;
  #name: number[] | undefined = [];
  #field: 'data' | 'id' | 'event' | 'retry' | 'comment' | 'other' | undefined;
  #value: number[] = [];
  #skipSpace = false;

  constructor(
    private readonly onEvent: (event: SseByteEvent) => void,
    spill?: SpillFile,
    above?: number,
  ) {
    this.#data = new FrameCollector(spill, above);
  }

  push(chunk: Buffer): void {
    let i = 0;
    if (this.#pendingCR) {
      this.#pendingCR = false;
      if (chunk[0] === 0x0a) i = 1; // the LF of a CRLF split across chunks
    }
    while (i < chunk.length) {
      // Up to the next line end, in one piece.
      let j = i;
      while (j < chunk.length && chunk[j] !== 0x0a && chunk[j] !== 0x0d) j++;
      if (j > i) this.#bytes(chunk.subarray(i, j));
      if (j === chunk.length) break;
      if (chunk[j] === 0x0d) {
        if (j + 1 === chunk.length) this.#pendingCR = true;
        else if (chunk[j + 1] === 0x0a) j++;
      }
      this.#endLine();
      i = j + 1;
    }
  }

  /** The stream ended: an event without its closing blank line is not dispatched (per spec). */
  end(): void {
    this.#data.take();
  }

  #bytes(piece: Buffer): void {
    this.#lineEmpty = false;
    let at = 0;
    if (this.#field === undefined) {
      // Still in the field name.
      const colon = piece.indexOf(0x3a);
      const nameEnd = colon === -1 ? piece.length : colon;
      if (this.#name && this.#name.length + nameEnd <= FIELD_MAX) for (let k = 0; k < nameEnd; k++) this.#name.push(piece[k]!);
      else this.#name = undefined;
      if (colon === -1) return;
      this.#startValue();
      at = colon + 1;
    }
    if (at < piece.length) this.#valueBytes(piece.subarray(at));
  }

  /** The field name is complete (a colon, or the end of the line): decide where its value goes. */
  #startValue(): void {
    const name = this.#name ? Buffer.from(this.#name).toString('utf8') : undefined;
    this.#field =
      this.#name?.length === 0 ? 'comment' : name === 'data' || name === 'id' || name === 'event' || name === 'retry' ? name : 'other';
    this.#skipSpace = true;
    if (this.#field === 'data') {
      if (this.#dataLines > 0) this.#data.push(LF);
      this.#dataLines += 1;
    }
  }

  #valueBytes(piece: Buffer): void {
    if (this.#skipSpace) {
      this.#skipSpace = false;
      if (piece[0] === 0x20) piece = piece.subarray(1);
    }
    if (this.#field === 'data') this.#data.push(Buffer.from(piece));
    else if (this.#field === 'id' || this.#field === 'event' || this.#field === 'retry') {
      for (let k = 0; k < piece.length && this.#value.length < FIELD_MAX; k++) this.#value.push(piece[k]!);
    }
  }

  #endLine(): void {
    if (this.#lineEmpty) {
      this.#dispatch();
      return;
    }
    if (this.#field === undefined) this.#startValue(); // a line without a colon: the name, empty value
    if (this.#field !== 'comment') this.#seenField = true;
    const value = Buffer.from(this.#value).toString('utf8');
    if (this.#field === 'id') {
      if (!value.includes('\0')) this.#fields.id = value;
    } else if (this.#field === 'event') this.#fields.event = value;
    else if (this.#field === 'retry' && /^\d+$/.test(value)) this.#fields.retry = Number(value);
    this.#lineEmpty = true;
    this.#name = [];
    this.#field = undefined;
    this.#value = [];
  }

  #dispatch(): void {
    const hasData = this.#dataLines > 0;
    const data = this.#data.take();
    if (this.#seenField) {
      // As SseSplitter: the text decoded from UTF-8, so small events match it byte for byte.
      const text = data instanceof SpilledBytes ? data : Buffer.from(data.toString('utf8'), 'utf8');
      this.onEvent({ data: text, hasData, ...this.#fields });
    }
    this.#dataLines = 0;
    this.#fields = {};
    this.#seenField = false;
  }
}
