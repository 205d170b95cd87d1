import { StringDecoder } from 'node:string_decoder';

/**
 * Splits a `text/event-stream` body into events without changing anything on the wire (the proxy
 * forwards the raw chunks itself; this is only the recorder's view). Follows the WHATWG
 * event-stream rules: lines end in CRLF, LF or CR; a blank line ends an event; `data` lines are
 * joined with LF; comments (`:`) are ignored; an event with no data is still reported, because
 * servers send such "priming" events to hand out an event id or a `retry` hint.
 */
export interface SseEvent {
  data: string;
  /** Whether the event had any `data` field at all. */
  hasData: boolean;
  id?: string;
  event?: string;
  retry?: number;
}

export class SseSplitter {
  readonly #decoder = new StringDecoder('utf8');
  /** The current line so far (no line end seen yet), joined once it ends: each character is
   * scanned once and a long line is copied once, however many chunks it came in. */
  #partial: string[] = [];
  /** UTF-8 bytes of `#partial` (counted only with a `maxData`). */
  #partialBytes = 0;
  /** The current line passed `maxData`: its bytes are counted (unless it is a comment), not kept. */
  #dropping: 'comment' | 'field' | undefined;
  #data: string[] = [];
  /** UTF-8 bytes of the event's data as joined, and its number of data lines (counted only with
   * a `maxData`). */
  #dataBytes = 0;
  #dataLines = 0;
  /** The event passed `maxData`: it is reported to `onOversize` with its size instead. */
  #oversize = false;
  #fields: Omit<SseEvent, 'data' | 'hasData'> = {};
  #seenField = false;
  #pendingCR = false;

  /**
   * @param maxData an event whose data (as joined) or any other field line is larger than this
   *   many UTF-8 bytes is neither kept nor joined: `onOversize` hears of its size (its data, plus
   *   such a field line) when it ends, instead of `onEvent`. Without it every event is reported
   *   whole, however large.
   */
  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    private readonly maxData = Infinity,
    private readonly onOversize?: (bytes: number) => void,
  ) {}

  push(chunk: Buffer): void {
    this.#consume(this.#decoder.write(chunk));
  }

  /**
   * `bytes` more bytes that were not passed on: the caller knows they hold no line end, fall on
   * character boundaries and belong to a line already too long to keep (see `maxData`), so they
   * only add to its size.
   */
  skip(bytes: number): void {
    this.#pendingCR = false;
    if (!this.#dropping) {
      // Not expected; without its bytes the line can only be counted as too large.
      this.#partial = [];
      this.#partialBytes = 0;
      this.#dropping = 'field';
      this.#seenField = true;
      this.#overflow();
    }
    if (this.#dropping === 'field') this.#dataBytes += bytes;
  }

  /** The stream ended: an event without its closing blank line is not dispatched (per spec). */
  end(): void {
    this.#consume(this.#decoder.end());
  }

  #consume(text: string): void {
    if (this.#pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCR = false;
    let start = 0;
    // Each search resumes where it found its character, so a chunk of many lines is scanned once.
    let lf = text.indexOf('\n');
    let cr = text.indexOf('\r');
    for (;;) {
      if (lf !== -1 && lf < start) lf = text.indexOf('\n', start);
      if (cr !== -1 && cr < start) cr = text.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 === text.length) {
          // A CR at the end of a chunk may be the first half of CRLF.
          this.#pendingCR = true;
          next = cr + 1;
        } else {
          next = text[cr + 1] === '\n' ? cr + 2 : cr + 1;
        }
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        break;
      }
      this.#lineEnd(text.slice(start, end));
      start = next;
    }
    if (start < text.length) this.#grow(start === 0 ? text : text.slice(start));
  }

  /** More of the current line, which has not ended yet. */
  #grow(piece: string): void {
    if (this.#dropping) {
      if (this.#dropping === 'field') this.#dataBytes += Buffer.byteLength(piece);
      return;
    }
    this.#partial.push(piece);
    if (this.maxData === Infinity) return;
    this.#partialBytes += Buffer.byteLength(piece);
    // Past this, the line makes its event too large whatever it turns out to be (a data line's
    // prefix is 6 bytes at most), so dropping it now gives the same events as judging it whole.
    if (this.#partialBytes <= this.maxData + 6) return;
    // Too long to keep: from now on only its size counts. Its first 6 characters tell what it
    // is (a comment, a data line, and whether a space follows `data:`), without joining the rest.
    let head = '';
    for (const piece of this.#partial) {
      head += piece.slice(0, 6 - head.length);
      if (head.length === 6) break;
    }
    const bytes = this.#partialBytes;
    this.#partial = [];
    this.#partialBytes = 0;
    if (head.startsWith(':')) {
      this.#dropping = 'comment';
      return;
    }
    this.#dropping = 'field';
    this.#seenField = true;
    this.#overflow();
    // A data line counts as its value (and the LF that joins it to the one before); any other
    // field line too large to keep counts whole.
    if (head.startsWith('data:')) this.#dataBytes += (this.#dataLines++ > 0 ? 1 : 0) + bytes - (head === 'data: ' ? 6 : 5);
    else this.#dataBytes += bytes;
  }

  #lineEnd(piece: string): void {
    if (this.#dropping) {
      if (this.#dropping === 'field') this.#dataBytes += Buffer.byteLength(piece);
      this.#dropping = undefined;
      return;
    }
    let line = piece;
    if (this.#partial.length > 0) {
      this.#partial.push(piece);
      line = this.#partial.join('');
      this.#partial = [];
      this.#partialBytes = 0;
    }
    this.#line(line);
  }

  /** The event is too large: its data so far is dropped, its size still counted. */
  #overflow(): void {
    this.#oversize = true;
    this.#data = [];
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#seenField) {
        if (this.#oversize) this.onOversize?.(this.#dataBytes);
        else this.onEvent({ data: this.#data.join('\n'), hasData: this.#data.length > 0, ...this.#fields });
      }
      this.#data = [];
      this.#dataBytes = 0;
      this.#dataLines = 0;
      this.#oversize = false;
      this.#fields = {};
      this.#seenField = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.#seenField = true;
    if (this.maxData !== Infinity) {
      // The event is too large when its data is, or when any other field line is.
      if (name === 'data') {
        this.#dataBytes += (this.#dataLines++ > 0 ? 1 : 0) + Buffer.byteLength(value);
        if (this.#oversize) return;
        if (this.#dataBytes > this.maxData) return this.#overflow();
      } else {
        const bytes = Buffer.byteLength(line);
        if (bytes > this.maxData) {
          this.#dataBytes += bytes;
          return this.#overflow();
        }
      }
      if (this.#oversize) return;
    }
    if (name === 'data') this.#data.push(value);
    else if (name === 'id') {
      if (!value.includes('\0')) this.#fields.id = value;
    } else if (name === 'event') this.#fields.event = value;
    else if (name === 'retry' && /^\d+$/.test(value)) this.#fields.retry = Number(value);
  }
}

/** An event's fields as the cassette records them on the message (`http.sse`). */
export function sseFields(event: Pick<SseEvent, 'id' | 'event' | 'retry'>): { id?: string; event?: string; retry?: number } {
  return {
    ...(event.id !== undefined ? { id: event.id } : {}),
    ...(event.event !== undefined ? { event: event.event } : {}),
    ...(event.retry !== undefined ? { retry: event.retry } : {}),
  };
}
