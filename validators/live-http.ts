import type { HttpExchange } from '../lib/cassette/cassette.js';
import { answerExchange, endExchange, exchangeOfRequest, KeptBody } from '../lib/cassette/http-exchange.js';
import { HttpSessionIds, NEW_JOURNAL_FILE, type HttpSessionName } from '../lib/cassette/http-session-ids.js';
import { SseSplitter, sseFields } from '../lib/framing/sse-splitter.js';
import type { LiveRecord } from '../lib/live-journal.js';
import type { LiveRef } from '../lib/live-observer.js';
import { frameToMessage, type HttpFrameInfo, type RecordedMessage } from '../lib/message.js';
import { storedHeader } from '../lib/http-headers.js';
import { WaitingQueue } from '../lib/waiting-queue.js';

/** A journal record; a chunk may come with only the number of its bytes (`n`, no `data`). */
type Rec = LiveRecord;

/** A message of the exchange: parsed, or only its size when it is above `maxFrame`; or (`again`)
 * its request once more, at the top of a new --cassette-dir file. */
type Item =
  | { ref: LiveRef; msg: RecordedMessage; bytes?: undefined; again?: undefined }
  | { ref: LiveRef; msg?: undefined; bytes: number; again?: undefined }
  | { ref: LiveRef; msg?: RecordedMessage; bytes?: undefined; again: true };

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
  /** Its session, as the cassette will name it (http-session-ids.ts), once known. */
  session?: HttpSessionName;
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
  /** The request, its first message (k = 0): a new --cassette-dir file holds it again when the
   * exchange goes on there. */
  sent?: Item;
}

export interface HttpLiveFramerOptions {
  /** The journal's session id, which the cassette's session ids begin with. */
  sessionId: string;
  /** Hears of every exchange that carried a message, once it is over (after its last message),
   * with its outcome and end time set as the cassette fold sets them; `first` is its first
   * message, unless that one was too large to parse. */
  onExchangeEnd?: (session: HttpSessionName, exchange: HttpExchange, first: RecordedMessage | undefined) => void;
  /** Hears of every other exchange (OAuth discovery and the like). */
  onBareExchangeEnd?: (session: HttpSessionName, exchange: HttpExchange) => void;
  /** Bodies and SSE events above this many bytes are numbered but neither kept nor parsed:
   * `onSkip` hears of them in their place. */
  maxFrame?: number;
  onSkip?: (session: HttpSessionName, exchange: HttpExchange, bytes: number, ref: LiveRef) => void;
  /** An exchange goes on in a new --cassette-dir file, in a session of that file; `before`: its
   * session in the old one. The new file holds its request again: a stateless exchange's new
   * session is a new one, whose messages (that request first) are judged afresh; a session with
   * an Mcp-Session-Id goes on as one, and `onAgain` hears of the request instead. */
  onContinued?: (before: HttpSessionName, exchange: HttpExchange) => void;
  /** The request of a session that goes on in a new file, held again there (at `ref`): numbered
   * in that file (`msg`: it, unless it was too large to parse), not judged again. */
  onAgain?: (session: HttpSessionName, exchange: HttpExchange, ref: LiveRef, msg: RecordedMessage | undefined) => void;
}

/**
 * The HTTP journal, read as it is written: the same messages the cassette fold will make, each
 * handed on with its session (named as the cassette will name it: the Mcp-Session-Id's session,
 * or the exchange alone) and its place in its exchange (`ref`), which the fold later turns into
 * the final seq.
 */
export class HttpLiveFramer {
  readonly #open = new Map<number, Open>();
  /** Exchanges that ended before their session was named (one before them waits for its answer). */
  readonly #ended = new Map<number, Open>();
  /** What is to be handed on, in journal order. An exchange's session is not known until its
   * response headers say which session it opened, if any (a request without Mcp-Session-Id
   * waits for them, and so does every exchange whose request came after it: sessions are named
   * in that order); everything after it waits too, so messages and exchange ends are handed on
   * in the order of the journal, which is the order the offline validator replays the stateless
   * exchanges of a recording in (they share the server's context). */
  readonly #queue = new WaitingQueue<{ ex: Open; run: () => void }>(
    (item) => item.ex.session !== undefined,
    (item) => item.run(),
  );
  #now = 0;
  readonly #max: number;
  #names: HttpSessionIds;

  constructor(
    private readonly onMessage: (session: HttpSessionName, exchange: HttpExchange, msg: RecordedMessage, ref: LiveRef) => void,
    private readonly options: HttpLiveFramerOptions,
  ) {
    this.#max = options.maxFrame ?? Infinity;
    this.#names = new HttpSessionIds(options.sessionId, this.#named);
  }

  readonly #named = (x: number, name: HttpSessionName): void => {
    const ex = this.#open.get(x) ?? this.#ended.get(x);
    this.#ended.delete(x);
    if (ex) ex.session = name;
    this.#queue.drain();
  };

  push(r: Rec): void {
    this.#now = r.t;
    if (r.ev === NEW_JOURNAL_FILE) return this.#newFile(String(r.sessionId));
    const x = Number(r.x);
    if (r.ev === 'http-request') {
      const record = exchangeOfRequest(r);
      const kept = KeptBody.for(record);
      this.#open.set(x, {
        record,
        request: new Body(this.#max),
        response: new Body(this.#max),
        ordinal: 0,
        carried: false,
        ...(kept ? { kept } : {}),
      });
      this.#names.request(x, storedHeader(record.requestHeaders, 'mcp-session-id') || undefined);
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
      if (ex.record.mcp) ex.sent = this.#body(ex, ex.request, { exchange: x, part: 'request' }, 'client-to-server');
      ex.request = new Body(this.#max);
    } else if (r.ev === 'http-response') {
      const stream = answerExchange(ex.record, r);
      this.#names.response(x, storedHeader(ex.record.responseHeaders, 'mcp-session-id') || undefined);
      if (stream) {
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
      endExchange(ex.record, r.t, r.outcome as HttpExchange['outcome'] | undefined, r.error, ex.kept);
      if (ex.sse) ex.sse.end();
      else this.#body(ex, ex.response, { exchange: x, part: 'response' }, 'server-to-client');
      if (!ex.session) this.#ended.set(x, ex);
      this.#names.end(x);
      this.#enqueue(
        ex,
        ex.carried
          ? () => this.options.onExchangeEnd?.(ex.session!, ex.record, ex.first)
          : () => this.options.onBareExchangeEnd?.(ex.session!, ex.record),
      );
    }
  }

  /** A whole body is a message when it has bytes (as in the cassette fold). */
  #body(ex: Open, body: Body, http: HttpFrameInfo, direction: RecordedMessage['direction']): Item | undefined {
    if (body.bytes === 0) return undefined;
    if (body.bytes > this.#max) return this.#skip(ex, body.bytes);
    return this.#emit(ex, Buffer.concat(body.chunks, body.bytes), http, direction);
  }

  #emit(ex: Open, frame: Buffer, http: HttpFrameInfo, direction: RecordedMessage['direction']): Item {
    const msg = frameToMessage(frame, { seq: 0, t: this.#now, direction, channel: 'http', terminated: true, http });
    if (!ex.carried) ex.first = msg;
    return this.#place(ex, { ref: { x: ex.record.id, k: ex.ordinal++ }, msg });
  }

  /** A message too large to parse still takes its place in the numbering. */
  #skip(ex: Open, bytes: number): Item {
    return this.#place(ex, { ref: { x: ex.record.id, k: ex.ordinal++ }, bytes });
  }

  /**
   * `record --cassette-dir` began a new file, whose fold names its sessions by the file's id. An
   * exchange whose session is not known yet ends it in the old file, as its fold ends it (the
   * exchange is `continued`); every exchange still open goes on in the new file, which holds it
   * again from its request (its first message there, k = 0): in a session of the new file.
   */
  #newFile(sessionId: string): void {
    for (const x of this.#open.keys()) this.#names.end(x);
    this.#names = new HttpSessionIds(sessionId, this.#named);
    for (const ex of this.#open.values()) {
      const x = ex.record.id;
      const before = ex.session!;
      this.options.onContinued?.(before, ex.record);
      delete ex.session;
      delete ex.first;
      ex.carried = false;
      ex.ordinal = 0;
      this.#names.request(x, storedHeader(ex.record.requestHeaders, 'mcp-session-id') || undefined);
      if (ex.record.responseHeaders) this.#names.response(x, storedHeader(ex.record.responseHeaders, 'mcp-session-id') || undefined);
      if (!ex.sent) continue;
      // The exchange-level verdicts point at it in the new file (exchangeEnd reads it).
      const msg = ex.sent.msg ? { ...ex.sent.msg } : undefined;
      if (msg) ex.first = msg;
      const ref = { x, k: ex.ordinal++ };
      if (before.mcpSessionId !== undefined) this.#place(ex, { ref, again: true, ...(msg ? { msg } : {}) });
      else this.#place(ex, msg ? { ref, msg } : { ref, bytes: ex.sent.bytes! });
    }
  }

  #place(ex: Open, item: Item): Item {
    ex.carried = true;
    this.#enqueue(ex, () => this.#deliver(ex, item));
    return item;
  }

  #enqueue(ex: Open, run: () => void): void {
    this.#queue.push({ ex, run });
  }

  #deliver(ex: Open, item: Item): void {
    if (item.again) this.options.onAgain?.(ex.session!, ex.record, item.ref, item.msg);
    else if (item.msg) this.onMessage(ex.session!, ex.record, item.msg, item.ref);
    else this.options.onSkip?.(ex.session!, ex.record, item.bytes, item.ref);
  }
}
