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
  #buffer = '';
  #data: string[] = [];
  #fields: Omit<SseEvent, 'data' | 'hasData'> = {};
  #seenField = false;
  #pendingCR = false;

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  push(chunk: Buffer): void {
    this.#consume(this.#decoder.write(chunk));
  }

  /** The stream ended: an event without its closing blank line is not dispatched (per spec). */
  end(): void {
    this.#consume(this.#decoder.end());
  }

  #consume(text: string): void {
    if (this.#pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCR = false;
    this.#buffer += text;
    let start = 0;
    for (;;) {
      const lf = this.#buffer.indexOf('\n', start);
      const cr = this.#buffer.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 === this.#buffer.length) {
          // A CR at the end of a chunk may be the first half of CRLF.
          this.#pendingCR = true;
          next = cr + 1;
        } else {
          next = this.#buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
        }
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else {
        break;
      }
      this.#line(this.#buffer.slice(start, end));
      start = next;
    }
    this.#buffer = this.#buffer.slice(start);
  }

  #line(line: string): void {
    if (line === '') {
      if (this.#seenField) {
        this.onEvent({ data: this.#data.join('\n'), hasData: this.#data.length > 0, ...this.#fields });
      }
      this.#data = [];
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
