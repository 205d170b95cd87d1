import type { HttpExchange, HttpHeaders } from '../lib/cassette/cassette.js';
import { KeptBody, tokenClaimsOf } from '../lib/cassette/fold-http.js';
import { SseSplitter, sseFields } from '../lib/framing/sse-splitter.js';
import type { LiveRecord } from '../lib/live-journal.js';
import type { LiveRef } from '../lib/live-observer.js';
import { frameToMessage, type HttpFrameInfo, type RecordedMessage } from '../lib/message.js';
import { storedHeader } from '../lib/http-headers.js';

/** A journal record; a chunk may come with only the number of its bytes (`n`, no `data`). */
type Rec = LiveRecord;

/** A message of the exchange: parsed, or only its size when it is above `maxFrame`. */
type Item = { ref: LiveRef; msg: RecordedMessage; bytes?: undefined } | { ref: LiveRef; msg?: undefined; bytes: number };

/** A body gathered whole (request, JSON response) until it passes `maxFrame`: then only counted. */
class Body {
  chunks: Buffer[] = [];
  bytes = 0;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.bytes += chunk.length;
    if (this.bytes <= this.max) this.chunks.push(chunk);
    else this.chunks = [];
  }

  /** Bytes the proxy did not send (the body is past `max` with them). */
  skip(bytes: number): void {
    this.bytes += bytes;
    this.chunks = [];
  }
}

interface Open {
  record: HttpExchange;
  key?: string;
  request: Body;
  response: Body;
  sse?: SseSplitter;
  ordinal: number;
  /** The exchange's first message, which exchange-level verdicts point at (undefined when it
   * was too large to parse: the exchange is then not judged live). */
  first?: RecordedMessage;
  carried: boolean;
  /** A non-MCP body the cassette keeps (the OAuth Protected Resource Metadata). */
  kept?: KeptBody;
}

export interface HttpLiveFramerOptions {
  /** Hears of every exchange that carried a message, once it is over (after its last message),
   * with its outcome and end time set as the cassette fold sets them; `first` is its first
   * message, unless that one was too large to parse. */
  onExchangeEnd?: (key: string, exchange: HttpExchange, first: RecordedMessage | undefined) => void;
  /** Hears of every other exchange (OAuth discovery and the like). */
  onBareExchangeEnd?: (key: string, exchange: HttpExchange) => void;
  /** Bodies and SSE events above this many bytes are numbered but neither kept nor parsed:
   * `onSkip` hears of them in their place. */
  maxFrame?: number;
  onSkip?: (key: string, exchange: HttpExchange, bytes: number, ref: LiveRef) => void;
}

/**
 * The HTTP journal, read as it is written: the same messages the cassette fold will make, each
 * handed on with its session key (the Mcp-Session-Id, or the exchange alone) and its place in its
 * exchange (`ref`), which the fold later turns into the final session id and seq.
 */
export class HttpLiveFramer {
  readonly #open = new Map<number, Open>();
  /** What is to be handed on, in journal order. An exchange's session is not known until its
   * response headers say which session it opened, if any (a request without Mcp-Session-Id
   * waits for them); everything after it waits too, so messages and exchange ends are handed on
   * in the order of the journal, which is the order the offline validator replays the stateless
   * exchanges of a recording in (they share the server's context). */
  #queue: { ex: Open; run: () => void }[] = [];
  #head = 0;
  #now = 0;
  readonly #max: number;

  constructor(
    private readonly onMessage: (key: string, exchange: HttpExchange, msg: RecordedMessage, ref: LiveRef) => void,
    private readonly options: HttpLiveFramerOptions = {},
  ) {
    this.#max = options.maxFrame ?? Infinity;
  }

  push(r: Rec): void {
    this.#now = r.t;
    const x = Number(r.x);
    if (r.ev === 'http-request') {
      const claims = tokenClaimsOf(r.tokenClaims);
      const record: HttpExchange = {
        id: x,
        t: r.t,
        method: String(r.method),
        path: String(r.path),
        requestHeaders: (r.headers ?? {}) as HttpHeaders,
        outcome: 'complete',
        mcp: r.mcp === true,
        ...(claims ? { tokenClaims: claims } : {}),
        ...(typeof r.caller === 'string' ? { caller: r.caller } : {}),
      };
      const sid = storedHeader(record.requestHeaders, 'mcp-session-id');
      const kept = KeptBody.for(record);
      this.#open.set(x, {
        record,
        ...(sid ? { key: `session:${sid}` } : {}),
        request: new Body(this.#max),
        response: new Body(this.#max),
        ordinal: 0,
        carried: false,
        ...(kept ? { kept } : {}),
      });
      return;
    }
    const ex = this.#open.get(x);
    if (!ex) return;
    // A chunk comes with its bytes, or only with their number `n` when the proxy knew they would
    // be dropped here (see LiveTap): past maxFrame in a body, or inside an SSE line past it.
    // A view, not a copy: the batch's buffer was moved to this thread and is never reused.
    const chunk = r.data ? Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength) : undefined;
    const n = Number(r.n);
    if (r.c === 'http-request') {
      if (chunk) ex.request.push(chunk);
      else ex.request.skip(n);
    } else if (r.c === 'http-response') {
      if (ex.sse) {
        if (chunk) ex.sse.push(chunk);
        else ex.sse.skip(n);
      } else if (ex.record.mcp) {
        if (chunk) ex.response.push(chunk);
        else ex.response.skip(n);
      } else if (chunk) ex.kept?.push(chunk);
      else delete ex.kept; // far past what a cassette keeps: no body kept
    } else if (r.ev === 'http-request-end') {
      if (ex.record.mcp) this.#body(ex, ex.request, { exchange: x, part: 'request' }, 'client-to-server');
      ex.request = new Body(this.#max);
    } else if (r.ev === 'http-response') {
      ex.record.status = Number(r.status);
      ex.record.responseHeaders = (r.headers ?? {}) as HttpHeaders;
      const type = storedHeader(ex.record.responseHeaders, 'content-type');
      if (type) ex.record.contentType = type;
      const sid = storedHeader(ex.record.responseHeaders, 'mcp-session-id');
      if (!ex.key) {
        ex.key = sid ? `session:${sid}` : `exchange:${x}`;
        this.#drain();
      }
      if (ex.record.mcp && type?.toLowerCase().startsWith('text/event-stream')) {
        ex.sse = new SseSplitter(
          (event) => {
            this.#emit(ex, Buffer.from(event.data, 'utf8'), { exchange: x, part: 'sse', sse: sseFields(event) }, 'server-to-client');
          },
          this.#max,
          (bytes) => this.#skip(ex, bytes),
        );
      }
    } else if (r.ev === 'http-end') {
      this.#open.delete(x);
      ex.record.endT = r.t;
      ex.record.outcome = (r.outcome as HttpExchange['outcome'] | undefined) ?? 'complete';
      if (typeof r.error === 'string') ex.record.error = r.error;
      const body = ex.kept?.text(ex.record.outcome);
      if (body !== undefined) ex.record.responseBody = body;
      if (ex.sse) ex.sse.end();
      else this.#body(ex, ex.response, { exchange: x, part: 'response' }, 'server-to-client');
      ex.key ??= `exchange:${x}`;
      this.#enqueue(
        ex,
        ex.carried
          ? () => this.options.onExchangeEnd?.(ex.key!, ex.record, ex.first)
          : () => this.options.onBareExchangeEnd?.(ex.key!, ex.record),
      );
    }
  }

  /** A whole body is a message when it has bytes (as in the cassette fold). */
  #body(ex: Open, body: Body, http: HttpFrameInfo, direction: RecordedMessage['direction']): void {
    if (body.bytes === 0) return;
    if (body.bytes > this.#max) this.#skip(ex, body.bytes);
    else this.#emit(ex, Buffer.concat(body.chunks, body.bytes), http, direction);
  }

  #emit(ex: Open, frame: Buffer, http: HttpFrameInfo, direction: RecordedMessage['direction']): void {
    const msg = frameToMessage(frame, { seq: 0, t: this.#now, direction, channel: 'http', terminated: true, http });
    if (!ex.carried) ex.first = msg;
    this.#place(ex, { ref: { x: ex.record.id, k: ex.ordinal++ }, msg });
  }

  /** A message too large to parse still takes its place in the numbering. */
  #skip(ex: Open, bytes: number): void {
    this.#place(ex, { ref: { x: ex.record.id, k: ex.ordinal++ }, bytes });
  }

  #place(ex: Open, item: Item): void {
    ex.carried = true;
    this.#enqueue(ex, () => this.#deliver(ex, item));
  }

  #enqueue(ex: Open, run: () => void): void {
    this.#queue.push({ ex, run });
    this.#drain();
  }

  /** Hands on what is at the head of the queue, as long as its session is known. */
  #drain(): void {
    const q = this.#queue;
    while (this.#head < q.length && q[this.#head]!.ex.key !== undefined) q[this.#head++]!.run();
    if (this.#head === q.length) {
      this.#queue = [];
      this.#head = 0;
    } else if (this.#head > 1024) {
      this.#queue = q.slice(this.#head);
      this.#head = 0;
    }
  }

  #deliver(ex: Open, item: Item): void {
    if (item.msg) this.onMessage(ex.key!, ex.record, item.msg, item.ref);
    else this.options.onSkip?.(ex.key!, ex.record, item.bytes, item.ref);
  }
}
