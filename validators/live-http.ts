import type { HttpExchange, HttpHeaders } from '../lib/cassette/cassette.js';
import { KeptBody, tokenClaimsOf } from '../lib/cassette/fold-http.js';
import { SseSplitter, sseFields } from '../lib/framing/sse-splitter.js';
import type { LiveRef } from '../lib/live-observer.js';
import { frameToMessage, type HttpFrameInfo, type RecordedMessage } from '../lib/message.js';

type Rec = { t: number; ev?: string; c?: string; x?: number; data?: Uint8Array; [k: string]: unknown };

interface Open {
  record: HttpExchange;
  key?: string;
  request: Buffer[];
  response: Buffer[];
  sse?: SseSplitter;
  ordinal: number;
  /** Messages of an exchange whose session is not known yet (a request without Mcp-Session-Id,
   * until its response headers say which session it opened, if any). */
  held: RecordedMessage[];
  /** The exchange's first message, which exchange-level verdicts point at. */
  first?: RecordedMessage;
  /** A non-MCP body the cassette keeps (the OAuth Protected Resource Metadata). */
  kept?: KeptBody;
}

function header(h: HttpHeaders | undefined, name: string): string | undefined {
  const v = h?.[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * The HTTP journal, read as it is written: the same messages the cassette fold will make, each
 * handed on with its session key (the Mcp-Session-Id, or the exchange alone) and its place in its
 * exchange (`ref`), which the fold later turns into the final session id and seq.
 */
export class HttpLiveFramer {
  readonly #open = new Map<number, Open>();
  #now = 0;

  /** `onExchangeEnd` hears of every exchange that carried a message, once it is over (after its
   * last message), with its outcome and end time set as the cassette fold sets them;
   * `onBareExchangeEnd` of every other exchange (OAuth discovery and the like). */
  constructor(
    private readonly onMessage: (key: string, exchange: HttpExchange, msg: RecordedMessage, ref: LiveRef) => void,
    private readonly onExchangeEnd?: (key: string, exchange: HttpExchange, first: RecordedMessage) => void,
    private readonly onBareExchangeEnd?: (key: string, exchange: HttpExchange) => void,
  ) {}

  push(r: Rec): void {
    this.#now = r.t;
    const x = Number(r.x);
    if (r.ev === 'http-request') {
      const claims = tokenClaimsOf(r.tokenClaims);
      const record: HttpExchange = { id: x, t: r.t, method: String(r.method), path: String(r.path), requestHeaders: (r.headers ?? {}) as HttpHeaders, outcome: 'complete', mcp: r.mcp === true, ...(claims ? { tokenClaims: claims } : {}) };
      const sid = header(record.requestHeaders, 'mcp-session-id');
      const kept = KeptBody.for(record);
      this.#open.set(x, { record, ...(sid ? { key: `session:${sid}` } : {}), request: [], response: [], ordinal: 0, held: [], ...(kept ? { kept } : {}) });
      return;
    }
    const ex = this.#open.get(x);
    if (!ex) return;
    if (r.c === 'http-request' && r.data) ex.request.push(Buffer.from(r.data));
    else if (r.c === 'http-response' && r.data) {
      if (ex.sse) ex.sse.push(Buffer.from(r.data));
      else if (ex.record.mcp) ex.response.push(Buffer.from(r.data));
      else ex.kept?.push(Buffer.from(r.data));
    } else if (r.ev === 'http-request-end') {
      const body = Buffer.concat(ex.request);
      ex.request = [];
      if (ex.record.mcp && body.length > 0) this.#emit(ex, body, { exchange: x, part: 'request' }, 'client-to-server');
    } else if (r.ev === 'http-response') {
      ex.record.status = Number(r.status);
      ex.record.responseHeaders = (r.headers ?? {}) as HttpHeaders;
      const type = header(ex.record.responseHeaders, 'content-type');
      if (type) ex.record.contentType = type;
      const sid = header(ex.record.responseHeaders, 'mcp-session-id');
      if (!ex.key) {
        ex.key = sid ? `session:${sid}` : `exchange:${x}`;
        for (const m of ex.held) this.onMessage(ex.key, ex.record, m, (m as RecordedMessage & { ref: LiveRef }).ref);
        ex.held = [];
      }
      if (ex.record.mcp && type?.toLowerCase().startsWith('text/event-stream')) {
        ex.sse = new SseSplitter((event) => {
          this.#emit(ex, Buffer.from(event.data, 'utf8'), { exchange: x, part: 'sse', sse: sseFields(event) }, 'server-to-client');
        });
      }
    } else if (r.ev === 'http-end') {
      this.#open.delete(x);
      ex.record.endT = r.t;
      ex.record.outcome = (r.outcome as HttpExchange['outcome'] | undefined) ?? 'complete';
      if (typeof r.error === 'string') ex.record.error = r.error;
      const body = ex.kept?.text(ex.record.outcome);
      if (body !== undefined) ex.record.responseBody = body;
      if (ex.sse) ex.sse.end();
      else if (ex.response.length > 0) this.#emit(ex, Buffer.concat(ex.response), { exchange: x, part: 'response' }, 'server-to-client');
      if (!ex.key) {
        ex.key = `exchange:${x}`;
        for (const m of ex.held) this.onMessage(ex.key, ex.record, m, (m as RecordedMessage & { ref: LiveRef }).ref);
      }
      if (ex.first) this.onExchangeEnd?.(ex.key, ex.record, ex.first);
      else this.onBareExchangeEnd?.(ex.key, ex.record);
    }
  }

  #emit(ex: Open, frame: Buffer, http: HttpFrameInfo, direction: RecordedMessage['direction']): void {
    const ref: LiveRef = { x: ex.record.id, k: ex.ordinal++ };
    const msg = frameToMessage(frame, { seq: 0, t: this.#now, direction, channel: 'http', terminated: true, http });
    ex.first ??= msg;
    if (ex.key) this.onMessage(ex.key, ex.record, msg, ref);
    else ex.held.push(Object.assign(msg, { ref }));
  }
}
