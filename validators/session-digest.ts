import { createHash } from 'node:crypto';
import type { HttpExchange, RecordedSession, SessionEnd, TransportKind } from '../lib/cassette/cassette.js';
import { headerOf } from '../lib/http-headers.js';
import type { LiveRef } from '../lib/live-observer.js';
import type { Direction, RecordedMessage } from '../lib/message.js';
import { MASK } from '../lib/redact.js';
import { isObject } from './rule.js';
import { parseChallenges } from './rules/support/http.js';
import { canonical, LISTEN, missingEnvelope, SUB_ID } from './rules/support/messages.js';
import { idKey, LIST_KEYS, MODERN_REVISION, revisionOf } from './session-state.js';

/*
 * What the cross-session rules (recording.ts) know of each session: a small digest of facts read
 * once, message by message, offline from the cassette and live as the exchanges go by.
 */

/** The message a cross-session verdict points at. Live, `ref` is its place in its exchange,
 * which the cassette fold turns into the final session id and seq. */
export interface Point {
  session: string;
  seq: number;
  direction: Direction;
  ref?: LiveRef;
}

/** A client request, with what the recording rules need of it (not the message itself, so a long
 * live run stays small). Times are milliseconds on the recording's clock. */
export interface RequestFact {
  at: Point;
  method: string;
  /** When it was sent, and when it was answered (or, on HTTP, its exchange ended). */
  t: number;
  endT?: number;
  era?: 'legacy' | 'modern';
  /** The `_meta` protocolVersion, or the version an `initialize` offered. */
  revision?: string;
  /** `clientInfo` name and version, from `_meta` or `initialize`. */
  client?: string;
  exchange?: number;
  /** HTTP: its User-Agent, and who asked (see ExchangeFact.credentials), from the request headers. */
  userAgent?: string;
  credentials?: string;
  /** List requests: the question asked (params without cursor and progress token). */
  question?: string;
  cursor?: boolean;
  /** A modern request that lacks a required `_meta` field (protocolVersion, clientCapabilities). */
  missingEnvelope?: boolean;
  answer?: 'result' | 'error';
  /** subscriptions/listen: acknowledged by the server, and over (answered, cancelled by the
   * client, or torn down by the server). */
  acked?: boolean;
  closed?: boolean;
}

/** The first complete first-page answer of a list method in a session. */
export interface ListFact {
  method: string;
  at: Point;
  request: RequestFact;
  t: number;
  /** Item name → a hash of the item (canonical JSON without `_meta`). */
  items: Map<string, string>;
  /** The answer had no nextCursor: the whole list. */
  complete: boolean;
  /** serverInfo name and version from the answer's `_meta`. */
  server?: string;
  /** Every later first-page answer of the session had the same items. */
  stable: boolean;
}

/** One HTTP exchange, once it is over. */
export interface ExchangeFact {
  id: number;
  t: number;
  endT: number;
  method: string;
  /** Without the query. */
  path: string;
  status?: number;
  outcome: HttpExchange['outcome'];
  mcp: boolean;
  userAgent?: string;
  protocolHeader?: string;
  /** `none` without credential headers; undefined when they are masked in the recording (two
   * masked tokens look alike, so who asked is unknown); else their values. */
  credentials?: string;
  /** A 401/403 Bearer challenge names `resource_metadata`. */
  resourceMetadata: boolean;
  /** The exchange's first message, which verdicts about it point at. */
  first?: Point;
  /** The client request it carried. */
  request?: RequestFact;
  /** The first JSON-RPC error in its answer (with or without an id). */
  error?: { code: unknown; data: unknown };
}

const CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization', 'x-api-key', 'api-key'];

const infoOf = (v: unknown): string | undefined => (isObject(v) ? `${String(v.name)} ${String(v.version)}` : undefined);
const hash = (v: unknown): string => createHash('sha1').update(canonical(v)).digest('base64');
const nameOf = (item: unknown): string => (isObject(item) ? String(item.name ?? item.uri ?? '') : '');

/** The question a list request asks: its params without the cursor and the progress token. */
function questionOf(params: Record<string, unknown>): string {
  const { cursor: _c, _meta, ...rest } = params;
  const { progressToken: _p, ...meta } = isObject(_meta) ? _meta : {};
  return canonical({ ...rest, _meta: meta }, new Set());
}

/** Who asked, as far as the recording tells (see ExchangeFact.credentials). */
function credentialsOf(x: HttpExchange): string | undefined {
  let values: string[] | undefined;
  for (const h of CREDENTIAL_HEADERS) {
    const v = headerOf(x.requestHeaders, h);
    if (v !== undefined) (values ??= []).push(v);
  }
  if (values === undefined) return 'none';
  return values.some((v) => v.includes(MASK)) ? undefined : JSON.stringify(values);
}

const NO_LISTS: ReadonlyMap<string, ListFact> = new Map();
const NO_TIMES: readonly number[] = Object.freeze([]);

/**
 * What the recording rules need to know of one session, read message by message (offline from
 * the cassette, live as the proxy forwards). Times are absolute offline (the session's start plus
 * the message's offset) and the proxy run's clock live: only differences are ever compared.
 */
export class SessionDigest {
  readonly requests: RequestFact[] = [];
  readonly exchanges = new Map<number, ExchangeFact>();
  /** The first clientInfo the client sent. */
  client?: string;
  legacyRevision?: string;
  startT = Infinity;
  endT = -Infinity;
  end?: SessionEnd;
  // Made when first written: live, every stateless exchange is a digest of its own, kept until
  // the run ends, and most never list or answer later; seven maps and arrays each made the
  // worker's heap, and its garbage collection, grow with the run (issue 35).
  #lists: Map<string, ListFact> | undefined;
  #listChanged: number[] | undefined;
  #pending: Map<string, RequestFact> | undefined;
  #first: Map<number, Point> | undefined;
  #exchangeRequest: Map<number, RequestFact> | undefined;
  #exchangeError: Map<number, { code: unknown; data: unknown }> | undefined;

  /** The first complete first-page answer of each list method (read-only for the rules). */
  get lists(): ReadonlyMap<string, ListFact> {
    return this.#lists ?? NO_LISTS;
  }

  /** When the server sent a list_changed notification (read-only for the rules). */
  get listChanged(): readonly number[] {
    return this.#listChanged ?? NO_TIMES;
  }

  constructor(
    readonly id: string,
    readonly transport: TransportKind,
    readonly target: RecordedSession['target'] | undefined,
    private readonly t0: number,
  ) {}

  /** A whole recorded session (offline). */
  static of(session: RecordedSession): SessionDigest {
    const start = Date.parse(session.startedAt);
    const d = new SessionDigest(session.id, session.transport, session.target, start);
    const exchanges = new Map((session.exchanges ?? []).map((x) => [x.id, x]));
    for (const m of session.messages) d.add(m, m.http ? exchanges.get(m.http.exchange) : undefined);
    for (const x of session.exchanges ?? []) d.exchange(x);
    d.startT = start;
    d.endT = start + (session.durationMs ?? session.messages.at(-1)?.t ?? 0);
    if (session.end) d.end = session.end;
    return d;
  }

  /** One message; on HTTP with its exchange as known so far (request headers). */
  add(msg: RecordedMessage, x?: HttpExchange, ref?: LiveRef): void {
    if (msg.channel === 'stderr') return;
    const t = this.t0 + msg.t;
    this.#seen(t);
    const at: Point = { session: this.id, seq: msg.seq, direction: msg.direction };
    if (ref) at.ref = ref;
    const exchange = msg.http?.exchange;
    if (exchange !== undefined && !this.#first?.has(exchange)) (this.#first ??= new Map()).set(exchange, at);
    const json = isObject(msg.json) ? msg.json : undefined;
    if (!json) return;
    if (msg.direction === 'client-to-server') this.#fromClient(json, at, t, exchange, x);
    else this.#fromServer(json, at, t, exchange);
  }

  /** HTTP: an exchange is over (status, headers, outcome and end time known). */
  exchange(x: HttpExchange): void {
    const t = this.t0 + x.t;
    const endT = this.t0 + (x.endT ?? x.t);
    this.#seen(t);
    this.#seen(endT);
    const request = this.#exchangeRequest?.get(x.id);
    if (request && request.endT === undefined) request.endT = endT;
    const first = this.#first?.get(x.id);
    const error = this.#exchangeError?.get(x.id);
    const userAgent = headerOf(x.requestHeaders, 'user-agent');
    const protocolHeader = headerOf(x.requestHeaders, 'mcp-protocol-version');
    const credentials = credentialsOf(x);
    const q = x.path.indexOf('?');
    // Members set one by one rather than spread from conditional literals: made for every
    // exchange of a live run, and the temporary objects showed in the worker's profile (issue 35).
    const fact: ExchangeFact = {
      id: x.id,
      t,
      endT,
      method: x.method,
      path: q === -1 ? x.path : x.path.slice(0, q),
      outcome: x.outcome,
      mcp: x.mcp,
      // Only a 401 or 403 challenge counts (ExchangeFact.resourceMetadata).
      resourceMetadata:
        (x.status === 401 || x.status === 403) &&
        parseChallenges(x.responseHeaders).some((c) => c.scheme.toLowerCase() === 'bearer' && c.params.resource_metadata !== undefined),
    };
    if (x.status !== undefined) fact.status = x.status;
    if (userAgent !== undefined) fact.userAgent = userAgent;
    if (protocolHeader !== undefined) fact.protocolHeader = protocolHeader;
    if (credentials !== undefined) fact.credentials = credentials;
    if (first) fact.first = first;
    if (request) fact.request = request;
    if (error) fact.error = error;
    this.exchanges.set(x.id, fact);
    // What the exchange taught is kept in its fact; the working maps need not grow with the run.
    this.#first?.delete(x.id);
    this.#exchangeRequest?.delete(x.id);
    this.#exchangeError?.delete(x.id);
  }

  /** The session's span, from what was seen of it (live; offline the cassette's times win). */
  #seen(t: number): void {
    if (t < this.startT) this.startT = t;
    if (t > this.endT) this.endT = t;
  }

  #fromClient(json: Record<string, unknown>, at: Point, t: number, exchange: number | undefined, x: HttpExchange | undefined): void {
    const method = typeof json.method === 'string' ? json.method : undefined;
    if (!method) return;
    const params = isObject(json.params) ? json.params : {};
    if (!('id' in json)) {
      if (method === 'notifications/cancelled') this.#close(params.requestId);
      return;
    }
    const declared = revisionOf(json);
    const offered = method === 'initialize' && typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined;
    const header = x ? headerOf(x.requestHeaders, 'mcp-protocol-version') : undefined;
    const era = declared
      ? 'modern'
      : method === 'initialize' || this.legacyRevision
        ? 'legacy'
        : header !== undefined
          ? header >= MODERN_REVISION
            ? 'modern'
            : 'legacy'
          : undefined;
    const revision = declared ?? offered ?? this.legacyRevision ?? header;
    const client = infoOf(method === 'initialize' ? params.clientInfo : isObject(params._meta) ? params._meta[CLIENT_INFO] : undefined);
    this.client ??= client;
    const userAgent = x ? headerOf(x.requestHeaders, 'user-agent') : undefined;
    const credentials = x ? credentialsOf(x) : undefined;
    const r: RequestFact = { at, method, t };
    if (era) r.era = era;
    if (revision) r.revision = revision;
    if (client) r.client = client;
    if (exchange !== undefined) r.exchange = exchange;
    if (userAgent !== undefined) r.userAgent = userAgent;
    if (credentials !== undefined) r.credentials = credentials;
    if (LIST_KEYS[method]) {
      r.question = questionOf(params);
      r.cursor = params.cursor !== undefined;
    }
    if (era === 'modern') r.missingEnvelope = missingEnvelope(json).length > 0;
    this.requests.push(r);
    (this.#pending ??= new Map()).set(idKey(json.id), r);
    if (exchange !== undefined && !this.#exchangeRequest?.has(exchange)) (this.#exchangeRequest ??= new Map()).set(exchange, r);
  }

  #fromServer(json: Record<string, unknown>, at: Point, t: number, exchange: number | undefined): void {
    const params = isObject(json.params) ? json.params : {};
    if (typeof json.method === 'string') {
      if ('id' in json) return; // a 2025 server request: nothing the recording rules need
      if (json.method.endsWith('/list_changed')) (this.#listChanged ??= []).push(t);
      else if (json.method === 'notifications/subscriptions/acknowledged') {
        const listen = this.#listenOf(params, exchange);
        if (listen) listen.acked = true;
      } else if (json.method === 'notifications/cancelled') this.#close(params.requestId); // a server tearing a listen down
      return;
    }
    if (!('result' in json) && !('error' in json)) return;
    if (exchange !== undefined && isObject(json.error) && !this.#exchangeError?.has(exchange))
      (this.#exchangeError ??= new Map()).set(exchange, { code: json.error.code, data: json.error.data });
    const key = idKey(json.id);
    const r = this.#pending?.get(key);
    if (!r) return;
    this.#pending!.delete(key);
    r.endT = t;
    r.answer = isObject(json.result) ? 'result' : 'error';
    r.closed = true;
    const result = isObject(json.result) ? json.result : undefined;
    if (!result) return;
    if (r.method === 'initialize' && typeof result.protocolVersion === 'string') this.legacyRevision = result.protocolVersion;
    const list = LIST_KEYS[r.method];
    const items = list ? result[list] : undefined;
    if (!Array.isArray(items) || r.cursor) return;
    const answer = new Map(items.map((i) => [nameOf(i), hash(i)]));
    const before = this.#lists?.get(r.method);
    if (before) {
      if (before.items.size !== answer.size || [...answer].some(([k, v]) => before.items.get(k) !== v)) before.stable = false;
      return;
    }
    const server = infoOf(isObject(result._meta) ? result._meta[SERVER_INFO] : undefined);
    (this.#lists ??= new Map()).set(r.method, {
      method: r.method,
      at,
      request: r,
      t,
      items: answer,
      complete: typeof result.nextCursor !== 'string',
      stable: true,
      ...(server ? { server } : {}),
    });
  }

  #listenOf(params: Record<string, unknown>, exchange: number | undefined): RequestFact | undefined {
    const r =
      exchange !== undefined
        ? this.#exchangeRequest?.get(exchange)
        : this.#pending?.get(idKey(isObject(params._meta) ? params._meta[SUB_ID] : undefined));
    return r?.method === LISTEN ? r : undefined;
  }

  #close(requestId: unknown): void {
    const r = this.#pending?.get(idKey(requestId));
    if (r?.method === LISTEN) r.closed = true;
  }
}
