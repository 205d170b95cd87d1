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
import { frameToMessage } from '../message.js';
import type { LiveSessionInfo, LiveSource } from './live-source.js';

interface Exchange {
  x: HttpExchange;
  info: LiveSessionInfo;
  body: Buffer[];
  sse?: SseSplitter;
  t: number;
}

function header(headers: HttpHeaders | undefined, name: string): string | undefined {
  const v = headers?.[name] ?? headers?.[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

function isChunk(r: JournalRecord): r is JournalChunk {
  return !('ev' in r);
}

/** One journal's records, for one live source. */
export function liveFeed(source: LiveSource, transport: 'stdio' | 'streamable-http', target: string): (record: JournalRecord) => void {
  const startedAt = new Date().toISOString();
  if (transport === 'stdio') {
    const info: LiveSessionInfo = { key: `stdio ${startedAt}`, transport, target, startedAt };
    const framer = new StdioFramer((m) => source.add(info, m));
    return (r) => {
      if (isChunk(r) && (r.c === 'stdin' || r.c === 'stdout' || r.c === 'stderr')) framer.push(r.c, r.data, r.t);
    };
  }
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
    const direction = part === 'request' ? 'client-to-server' : 'server-to-client';
    source.add(e.info, frameToMessage(data, { seq, t, direction, channel: 'http', terminated: true, http: { exchange: e.x.id, part } }));
  };
  return (r) => {
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
      exchanges.set(x, { x: x0, info: infoFor(header(requestHeaders, 'mcp-session-id')), body: [], t: r.t });
      return;
    }
    const e = exchanges.get(x);
    if (!e) return;
    if (r.ev === 'http-request-end') {
      if (e.x.mcp) emit(e, Buffer.concat(e.body), 'request', e.x.t);
      e.body = [];
    } else if (r.ev === 'http-response') {
      const responseHeaders = (r.headers ?? {}) as HttpHeaders;
      const type = header(responseHeaders, 'content-type') ?? '';
      e.x = { ...e.x, status: Number(r.status), responseHeaders, contentType: type };
      // A session begins with the answer that names it.
      const id = header(responseHeaders, 'mcp-session-id');
      if (id && e.info.key !== id) e.info = infoFor(id);
      if (e.x.mcp && type.startsWith('text/event-stream'))
        e.sse = new SseSplitter((ev) => {
          if (ev.hasData) emit(e, Buffer.from(ev.data), 'sse', e.t);
        });
    } else if (r.ev === 'http-end') {
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
}
