/**
 * Turns a recorder's journal records (JournalSink.onRecord: each chunk and event as it crosses the
 * proxy) into the messages of a LiveSource. stdio frames with the cassette's own StdioFramer;
 * HTTP rebuilds each exchange's request body, JSON answer or SSE events. Sessions are the stdio
 * run, or the HTTP `Mcp-Session-Id` (exchanges without one share a "stateless" session).
 */
import type { HttpExchange, HttpHeaders } from '../cassette/cassette.js';
import type { JournalChunk, JournalRecord } from '../cassette/journal.js';
import { StdioFramer } from '../framing/stdio-framer.js';
import { SseSplitter } from '../framing/sse-splitter.js';
import type { LiveRef } from '../live-observer.js';
import { frameToMessage, type RecordedMessage } from '../message.js';
import type { Violation } from '../violation.js';
import type { LiveSessionInfo, LiveSource } from './live-source.js';

interface Exchange {
  x: HttpExchange;
  info: LiveSessionInfo;
  body: Buffer[];
  sse?: SseSplitter;
  t: number;
  /** Messages of the exchange so far (the `k` of a LiveRef). */
  k: number;
  /** The request body, until the answer's head says which session it belongs to. */
  request?: Buffer;
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

/** One journal's records, for one live source. */
export function liveFeed(source: LiveSource, transport: 'stdio' | 'streamable-http', target: string, mask?: MessageMask): LiveFeed {
  const startedAt = new Date().toISOString();
  const add = (info: LiveSessionInfo, m: RecordedMessage): void => source.add(info, mask ? mask(m) : m);
  if (transport === 'stdio') {
    const info: LiveSessionInfo = { key: `stdio ${startedAt}`, transport, target, startedAt };
    const framer = new StdioFramer((m) => add(info, m));
    return {
      record(r) {
        if (isChunk(r) && (r.c === 'stdin' || r.c === 'stdout' || r.c === 'stderr')) framer.push(r.c, r.data, r.t);
      },
      violation: (v) => source.violation(info.key, v.seq, v),
    };
  }
  const refs = new Map<string, { key: string; seq: number }>();
  const seqs = new Map<string, number>();
  const exchanges = new Map<number, Exchange>();
  const infoFor = (id: string | undefined): LiveSessionInfo => ({
    key: id ?? 'stateless',
    transport,
    target: `${target}${id ? ` (session ${id})` : ' (exchanges without a session id)'}`,
    startedAt,
  });
  const emit = (e: Exchange, data: Buffer, part: 'request' | 'response' | 'sse', t: number): void => {
    if (data.length === 0) return;
    const seq = (seqs.get(e.info.key) ?? 0) + 1;
    seqs.set(e.info.key, seq);
    refs.set(`${e.x.id}:${e.k++}`, { key: e.info.key, seq });
    if (refs.size > REFS_KEPT) refs.delete(refs.keys().next().value!);
    const direction = part === 'request' ? 'client-to-server' : 'server-to-client';
    add(e.info, frameToMessage(data, { seq, t, direction, channel: 'http', terminated: true, http: { exchange: e.x.id, part } }));
  };
  const record = (r: JournalRecord): void => {
    if (isChunk(r)) {
      const e = r.x === undefined ? undefined : exchanges.get(r.x);
      if (!e) return;
      e.t = r.t; // before the splitter: an event it completes is stamped with this chunk's time
      if (r.c === 'http-request' || !e.sse) e.body.push(r.data);
      else e.sse.push(r.data);
      return;
    }
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
        mcp: r.mcp !== false,
      };
      exchanges.set(x, { x: x0, info: infoFor(header(requestHeaders, 'mcp-session-id')), body: [], t: r.t, k: 0 });
      return;
    }
    const e = exchanges.get(x);
    if (!e) return;
    // The request is placed once the answer's head names its session (an initialize opens one).
    const placeRequest = (): void => {
      if (e.request) emit(e, e.request, 'request', e.x.t);
      e.request = undefined;
    };
    if (r.ev === 'http-request-end') {
      if (e.x.mcp) e.request = Buffer.concat(e.body);
      e.body = [];
      return;
    } else if (r.ev === 'http-response') {
      const responseHeaders = (r.headers ?? {}) as HttpHeaders;
      const type = header(responseHeaders, 'content-type') ?? '';
      e.x = { ...e.x, status: Number(r.status), responseHeaders, contentType: type };
      // A session begins with the answer that names it.
      const id = header(responseHeaders, 'mcp-session-id');
      if (id && e.info.key !== id) e.info = infoFor(id);
      placeRequest();
      if (e.x.mcp && type.startsWith('text/event-stream'))
        e.sse = new SseSplitter((ev) => {
          if (ev.hasData) emit(e, Buffer.from(ev.data), 'sse', e.t);
        });
    } else if (r.ev === 'http-end') {
      placeRequest();
      if (e.sse) e.sse.end();
      else if (e.x.mcp && e.x.status !== 202) emit(e, Buffer.concat(e.body), 'response', r.t);
      e.x = {
        ...e.x,
        endT: r.t,
        outcome: (r.outcome as HttpExchange['outcome']) ?? 'complete',
        ...(typeof r.error === 'string' ? { error: r.error } : {}),
      };
      exchanges.delete(x);
    } else return;
    source.exchange(e.info, e.x);
  };
  return {
    record,
    violation(v) {
      const at = v.ref && refs.get(`${v.ref.x}:${v.ref.k}`);
      if (at) source.violation(at.key, at.seq, v);
    },
  };
}
