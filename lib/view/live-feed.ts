/**
 * Turns a recorder's journal records (JournalSink.onRecord: each chunk and event as it crosses the
 * proxy) into the messages of a LiveSource. stdio frames with the cassette's own StdioFramer;
 * HTTP rebuilds each exchange's request body, JSON answer or SSE events. Sessions are those of
 * the cassette, with its ids and message numbers: the stdio run, or over HTTP the exchanges of one
 * `Mcp-Session-Id`, every other exchange a session of its own (lib/cassette/http-session-ids.ts).
 */
import type { HttpExchange, HttpHeaders } from '../cassette/cassette.js';
import { HttpSessionIds, NEW_JOURNAL_FILE, type HttpSessionName } from '../cassette/http-session-ids.js';
import type { JournalChunk, JournalEvent, JournalRecord } from '../cassette/journal.js';
import { StdioFramer } from '../framing/stdio-framer.js';
import { SseSplitter } from '../framing/sse-splitter.js';
import type { LiveRef } from '../live-observer.js';
import { frameToMessage, type RecordedMessage } from '../message.js';
import type { Violation } from '../violation.js';
import { WaitingQueue } from '../waiting-queue.js';
import type { LiveSessionInfo, LiveSource } from './live-source.js';

interface Exchange {
  x: HttpExchange;
  /** Its session, once named (a request without Mcp-Session-Id learns it from its answer's head). */
  info?: LiveSessionInfo;
  body: Buffer[];
  sse?: SseSplitter;
  t: number;
  /** Messages of the exchange so far (the `k` of a LiveRef). */
  k: number;
  /** Its request body: a new --cassette-dir file holds it again when the exchange goes on there. */
  sent?: Buffer;
}

function header(headers: HttpHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name] ?? headers?.[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function isChunk(r: JournalRecord): r is JournalChunk {
  return !('ev' in r);
}

export interface LiveFeed {
  record(record: JournalRecord): void;
  /** A violation the live validator reported: on stdio by its seq, over HTTP by `ref` (the
   * `k`-th message of exchange `x`, lib/live-observer.ts). */
  violation(v: Violation & { ref?: LiveRef }): void;
}

/** Where the last HTTP messages went, by `x:k`, for the violations that name them by ref. */
const REFS_KEPT = 10_000;

/** What a message becomes before the view keeps it: the recorder's capture filter (credentials
 * and --redact-path/--redact-value masked, the capture level applied), so the page shows what
 * the cassette will hold and never more. */
export type MessageMask = (m: RecordedMessage) => RecordedMessage;

/** One journal's records, for one live source. `sessionId`: the journal's (the stdio session's id;
 * over HTTP, what its sessions' ids begin with). */
export function liveFeed(
  source: LiveSource,
  transport: 'stdio' | 'streamable-http',
  target: string,
  sessionId: string,
  mask?: MessageMask,
): LiveFeed {
  const startedAt = new Date().toISOString();
  const add = (info: LiveSessionInfo, m: RecordedMessage): void => source.add(info, mask ? mask(m) : m);
  if (transport === 'stdio') {
    const info: LiveSessionInfo = { key: sessionId, transport, target, startedAt };
    const framer = new StdioFramer((m) => add(info, m));
    return {
      record(r) {
        if (isChunk(r) && (r.c === 'stdin' || r.c === 'stdout' || r.c === 'stderr')) framer.push(r.c, r.data, r.t);
      },
      violation: (v) => source.violation(info.key, v.seq, v),
    };
  }
  return new HttpFeed(source, target, sessionId, add);
}

/** HTTP: messages are numbered per session in the order the cassette fold numbers them (the order
 * their bytes were complete), so an exchange's messages wait, in journal order, until its session
 * is named (lib/cassette/http-session-ids.ts, as the live validator's framer names it). */
class HttpFeed implements LiveFeed {
  /** Where the last messages went, by `x:k`, for the violations that name them by ref. */
  readonly #refs = new Map<string, { key: string; seq: number }>();
  readonly #seqs = new Map<string, number>();
  readonly #open = new Map<number, Exchange>();
  /** Exchanges that ended before their session was named. */
  readonly #ended = new Map<number, Exchange>();
  readonly #queue = new WaitingQueue<{ e: Exchange; run: () => void }>(
    (item) => item.e.info !== undefined,
    (item) => item.run(),
  );
  #names: HttpSessionIds;

  constructor(
    private readonly source: LiveSource,
    private readonly target: string,
    sessionId: string,
    private readonly add: (info: LiveSessionInfo, m: RecordedMessage) => void,
  ) {
    this.#names = new HttpSessionIds(sessionId, this.#named);
  }

  readonly #named = (x: number, name: HttpSessionName): void => {
    const e = this.#open.get(x) ?? this.#ended.get(x);
    this.#ended.delete(x);
    if (e)
      e.info = {
        key: name.id,
        transport: 'streamable-http',
        target: `${this.target}${name.mcpSessionId ? ` (Mcp-Session-Id ${name.mcpSessionId})` : ' (a stateless exchange)'}`,
        startedAt: new Date().toISOString(),
      };
    this.#queue.drain();
  };

  record(r: JournalRecord): void {
    if (isChunk(r)) {
      const e = r.x === undefined ? undefined : this.#open.get(r.x);
      if (!e) return;
      e.t = r.t; // before the splitter: an event it completes is stamped with this chunk's time
      if (r.c === 'http-request' || !e.sse) e.body.push(r.data);
      else e.sse.push(r.data);
      return;
    }
    if (r.ev === NEW_JOURNAL_FILE) return this.#newFile(String(r.sessionId));
    const x = typeof r.x === 'number' ? r.x : undefined;
    if (x === undefined) return;
    if (r.ev === 'http-request') {
      const requestHeaders = (r.headers ?? {}) as HttpHeaders;
      const x0: HttpExchange = {
        id: x,
        t: r.t,
        method: String(r.method),
        path: String(r.path),
        requestHeaders,
        outcome: 'complete',
        mcp: r.mcp === true,
      };
      this.#open.set(x, { x: x0, body: [], t: r.t, k: 0 });
      this.#names.request(x, header(requestHeaders, 'mcp-session-id') || undefined);
      return;
    }
    const e = this.#open.get(x);
    if (!e) return;
    if (r.ev === 'http-request-end') this.#requestEnd(e);
    else if (r.ev === 'http-response') this.#response(e, r);
    else if (r.ev === 'http-end') this.#end(e, r);
  }

  violation(v: Violation & { ref?: LiveRef }): void {
    const at = v.ref && this.#refs.get(`${v.ref.x}:${v.ref.k}`);
    if (at) this.source.violation(at.key, at.seq, v);
  }

  #requestEnd(e: Exchange): void {
    const body = Buffer.concat(e.body);
    e.body = [];
    if (!e.x.mcp || body.length === 0) return;
    e.sent = body;
    this.#later(e, () => this.#emit(e, body, 'request', e.x.t));
  }

  #response(e: Exchange, r: JournalEvent): void {
    const responseHeaders = (r.headers ?? {}) as HttpHeaders;
    const type = header(responseHeaders, 'content-type') ?? '';
    e.x = { ...e.x, status: Number(r.status), responseHeaders, contentType: type };
    // A session begins with the answer that names it (an initialize opens one).
    this.#names.response(e.x.id, header(responseHeaders, 'mcp-session-id') || undefined);
    if (e.x.mcp && type.toLowerCase().startsWith('text/event-stream'))
      e.sse = new SseSplitter((ev) => {
        const t = e.t;
        this.#later(e, () => this.#emit(e, Buffer.from(ev.data, 'utf8'), 'sse', t));
      });
    this.#update(e);
  }

  #end(e: Exchange, r: JournalEvent): void {
    if (e.sse) e.sse.end();
    else if (e.x.mcp) {
      const body = Buffer.concat(e.body);
      if (body.length > 0) this.#later(e, () => this.#emit(e, body, 'response', r.t));
    }
    e.x = {
      ...e.x,
      endT: r.t,
      outcome: (r.outcome as HttpExchange['outcome']) ?? 'complete',
      ...(typeof r.error === 'string' ? { error: r.error } : {}),
    };
    this.#open.delete(e.x.id);
    if (!e.info) this.#ended.set(e.x.id, e);
    this.#names.end(e.x.id);
    this.#update(e);
  }

  /** A new --cassette-dir file: named as the worker's framer names it (validators/live-http.ts):
   * the exchanges still open go on in it, from their request again. */
  #newFile(sessionId: string): void {
    for (const x of this.#open.keys()) this.#names.end(x);
    this.#names = new HttpSessionIds(sessionId, this.#named);
    for (const e of this.#open.values()) {
      delete e.info;
      e.k = 0;
      this.#names.request(e.x.id, header(e.x.requestHeaders, 'mcp-session-id') || undefined);
      if (e.x.responseHeaders) this.#names.response(e.x.id, header(e.x.responseHeaders, 'mcp-session-id') || undefined);
      const sent = e.sent;
      if (sent) this.#later(e, () => this.#emit(e, sent, 'request', e.x.t));
      this.#update(e);
    }
  }

  /** A message (an SSE event even without data, as the fold counts it). */
  #emit(e: Exchange, data: Buffer, part: 'request' | 'response' | 'sse', t: number): void {
    const info = e.info!;
    const seq = (this.#seqs.get(info.key) ?? 0) + 1;
    this.#seqs.set(info.key, seq);
    this.#refs.set(`${e.x.id}:${e.k++}`, { key: info.key, seq });
    if (this.#refs.size > REFS_KEPT) this.#refs.delete(this.#refs.keys().next().value!);
    const direction = part === 'request' ? 'client-to-server' : 'server-to-client';
    this.add(info, frameToMessage(data, { seq, t, direction, channel: 'http', terminated: true, http: { exchange: e.x.id, part } }));
  }

  /** The exchange as it is now, shown once its session is named. */
  #update(e: Exchange): void {
    const x = e.x;
    this.#later(e, () => this.source.exchange(e.info!, x));
  }

  #later(e: Exchange, run: () => void): void {
    this.#queue.push({ e, run });
  }
}
