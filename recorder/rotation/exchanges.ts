import { storedHeader } from '../../lib/http-headers.js';
import type { HttpHeaders } from '../../lib/cassette/cassette.js';

/** What the journal of an HTTP proxy has said so far about one exchange that has not ended. */
interface OpenExchange {
  /** The `http-request` event as first written, and its fields (to write it again, marked
   * `continued`, at the top of the next file). */
  request: Record<string, unknown>;
  /** The request body chunks, kept until the exchange ends so that a forced rotation can start
   * the next file with the whole request (bounded by --max-body-size). */
  body: Buffer[];
  requestEnded: boolean;
  response?: Record<string, unknown>;
  sse: boolean;
  /** The response stream is between SSE events (or has sent nothing yet). */
  atEventBoundary: boolean;
  /** Bytes of a non-SSE response already journaled: such a body cannot be split across files. */
  responseBytes: number;
}

export type ContinuedRecord =
  | { event: Record<string, unknown>; chunk?: undefined }
  | { chunk: { t: number; x: number; data: Buffer }; event?: undefined };

const BLANK_LINE = /(?:\r\n\r\n|\n\n|\r\r)$/;

/**
 * Follows the exchanges of a Streamable HTTP journal as records are written, to know when the
 * file can end (every open exchange is at a point where the next file can take it over), what to
 * write at the top of the next file for the exchanges that go on, and when a new session starts
 * (for --rotate-sessions).
 */
export class ExchangeTracker {
  readonly open = new Map<number, OpenExchange>();
  /** Session ids seen in this file and the one before it (a session that goes on is not new). */
  #seen = new Set<string>();
  #seenBefore = new Set<string>();

  /** Takes each event record (`t`, `ev` and its fields) as written; returns true when it begins a
   * new session. */
  event(ev: string, fields: Record<string, unknown>): boolean {
    const x = Number(fields.x);
    if (ev === 'http-request') {
      this.open.set(x, { request: fields, body: [], requestEnded: false, sse: false, atEventBoundary: true, responseBytes: 0 });
      return false;
    }
    const ex = this.open.get(x);
    if (!ex) return false;
    if (ev === 'http-request-end') ex.requestEnded = true;
    else if (ev === 'http-end') this.open.delete(x);
    else if (ev === 'http-response') {
      ex.response = fields;
      const headers = (fields.headers ?? {}) as HttpHeaders;
      ex.sse = (storedHeader(headers, 'content-type') ?? '').toLowerCase().startsWith('text/event-stream');
      if (ex.request.mcp !== true) return false;
      const sid = storedHeader(headers, 'mcp-session-id') ?? storedHeader(ex.request.headers as HttpHeaders, 'mcp-session-id');
      if (sid === undefined) return true; // a stateless exchange is a session of its own
      if (this.#seen.has(sid) || this.#seenBefore.has(sid)) return false;
      this.#seen.add(sid);
      return true;
    }
    return false;
  }

  chunk(stream: 'http-request' | 'http-response', x: number, data: Buffer): void {
    const ex = this.open.get(x);
    if (!ex) return;
    if (stream === 'http-request') ex.body.push(data);
    else if (ex.sse) ex.atEventBoundary = BLANK_LINE.test(data.subarray(Math.max(0, data.length - 4)).toString('latin1'));
    else ex.responseBytes += data.length;
  }

  /**
   * Whether the file can end now. Without `force`: only when the exchanges still open are event
   * streams between events that carry no request of their own (the standalone GET stream), so
   * that no request is answered in another file than its own. With `force` (a rotation that has
   * waited long enough): also requests still waiting for their answer, and POST event streams
   * between events; never a request body or a JSON answer in mid-transfer.
   */
  canRotate(force: boolean): boolean {
    for (const ex of this.open.values()) {
      if (!ex.requestEnded) return false;
      if (!ex.response) {
        if (!force) return false;
        continue;
      }
      if (!ex.sse || !ex.atEventBoundary) return false;
      if (!force && ex.request.method !== 'GET') return false;
    }
    return true;
  }

  /** The records that begin the next file: each open exchange again (its request event marked
   * `continued`, its body, its response head), at the times they were first written. */
  continuation(): ContinuedRecord[] {
    const out: ContinuedRecord[] = [];
    for (const [x, ex] of this.open) {
      const t = Number(ex.request.t);
      out.push({ event: { ...ex.request, continued: true } });
      for (const data of ex.body) out.push({ chunk: { t, x, data } });
      out.push({ event: { t, ev: 'http-request-end', x } });
      if (ex.response) out.push({ event: ex.response });
    }
    return out;
  }

  /** Messages in a chunk that was not recorded: stdio lines; SSE events; a JSON answer once. */
  messagesIn(stream: string, x: number | undefined, data: Buffer): number {
    let n = 0;
    if (stream === 'http-response') {
      const ex = x === undefined ? undefined : this.open.get(x);
      if (!ex?.sse) return ex && ex.responseBytes > 0 ? 0 : 1;
      for (let i = data.indexOf('\n\n'); i !== -1; i = data.indexOf('\n\n', i + 2)) n++;
      return n;
    }
    for (let i = data.indexOf(0x0a); i !== -1; i = data.indexOf(0x0a, i + 1)) n++;
    return n;
  }

  /** A new file begins: its sessions are counted afresh. */
  rotated(): void {
    this.#seenBefore = this.#seen;
    this.#seen = new Set();
  }
}
