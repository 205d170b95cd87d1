import { SseByteSplitter } from '../framing/sse-bytes.js';
import { sseFields } from '../framing/sse-splitter.js';
import { frameToMessage, type HttpFrameInfo, type RecordedMessage } from '../message.js';
import type { HttpExchange, RecordedSession } from './cassette.js';
import { answerExchange, endExchange, exchangeOfRequest, KeptBody } from './http-exchange.js';
import { FrameCollector, SpilledBytes } from '../framing/spill.js';
import { spilledToMessage } from '../framing/spilled-message.js';
import type { FoldOptions } from './fold.js';
import type { JournalChunk, JournalEvent, JournalSource } from './journal.js';
import type { Violation } from '../violation.js';
import { sessionFacts } from './session-info.js';
import { storedHeader } from '../http-headers.js';
import { isObject } from '../plain-object.js';
import { HttpSessionIds, type HttpSessionName } from './http-session-ids.js';

interface OpenExchange {
  record: HttpExchange;
  request: FrameCollector;
  response: FrameCollector;
  sse?: SseByteSplitter;
  /** The body of an exchange outside the MCP endpoint that the cassette keeps (see KeptBody). */
  kept?: KeptBody;
}

interface Placed {
  message: RecordedMessage;
  exchange: number;
}

const SESSION_HEADER = 'mcp-session-id';

/**
 * Rebuilds the sessions of one HTTP proxy run from its journal. Exchanges that carry an
 * `Mcp-Session-Id` (2025-era sessionful servers) are grouped by it; every other exchange is a
 * session of its own, because 2026-07-28 is stateless and each request/response exchange stands
 * alone. Sessions are named as the live validator names them (http-session-ids.ts). Messages are
 * numbered in the order their bytes were complete at the proxy.
 */
export function foldHttpJournal(journal: JournalSource, options: FoldOptions = {}): RecordedSession[] {
  const fold = new HttpFold(journal, options);
  for (const r of journal.records) {
    fold.now = r.t;
    if ('ev' in r) fold.event(r);
    else fold.chunk(r);
  }
  // Exchanges still open when the journal ends belong to a proxy that died mid-flight.
  for (const ex of fold.open.values()) fold.finish(ex, fold.now, 'upstream-error', 'the proxy stopped before this exchange ended');

  const sessions = group(journal, fold.all, fold.named, fold.placed, options);
  attachLiveViolations(sessions, fold.liveViolations);
  // Judged live (the header says so): a clean session keeps an empty list, read as "none".
  if (Array.isArray((journal.header.session as { violations?: unknown }).violations)) for (const s of sessions) s.violations ??= [];
  return sessions;
}

/** The fold under way: the exchanges open and all of them, the messages placed in the order
 * their bytes were complete, and the live verdicts journaled. */
class HttpFold {
  readonly open = new Map<number, OpenExchange>();
  readonly all: OpenExchange[] = [];
  readonly placed: Placed[] = [];
  readonly liveViolations: { violation: Violation; ref: { x: number; k: number } }[] = [];
  /** The time of the record being read. */
  now = 0;
  readonly named = new Map<number, HttpSessionName>();
  readonly #names: HttpSessionIds;

  constructor(
    journal: JournalSource,
    private readonly options: FoldOptions,
  ) {
    this.#names = new HttpSessionIds(journal.header.sessionId, (x, name) => this.named.set(x, name));
  }

  #emit(frame: Buffer | SpilledBytes, x: number, http: HttpFrameInfo, direction: RecordedMessage['direction']): void {
    const info = { seq: 0, t: this.now, direction, channel: 'http' as const, terminated: true, http };
    this.placed.push({ exchange: x, message: frame instanceof SpilledBytes ? spilledToMessage(frame, info) : frameToMessage(frame, info) });
  }

  #collector(): FrameCollector {
    return new FrameCollector(this.options.spill, this.options.spillAbove);
  }

  event(r: JournalEvent): void {
    this.options.onEvent?.(r);
    if (r.ev === 'violation') {
      if (isObject(r.ref)) this.liveViolations.push({ violation: r.violation as Violation, ref: r.ref as { x: number; k: number } });
      return;
    }
    const x = Number(r.x);
    if (r.ev === 'http-request') return this.#request(r, x);
    const ex = this.open.get(x);
    if (!ex) return;
    if (r.ev === 'http-request-end') {
      const body = ex.request.take();
      if (ex.record.mcp && body.length > 0) this.#emit(body, x, { exchange: x, part: 'request' }, 'client-to-server');
    } else if (r.ev === 'http-response') {
      this.#response(r, ex, x);
    } else if (r.ev === 'http-end') {
      this.finish(ex, r.t, r.outcome as HttpExchange['outcome'] | undefined, r.error);
    }
  }

  #request(r: JournalEvent, x: number): void {
    const record = exchangeOfRequest(r);
    const kept = KeptBody.for(record);
    const ex: OpenExchange = { record, request: this.#collector(), response: this.#collector(), ...(kept ? { kept } : {}) };
    this.open.set(x, ex);
    this.all.push(ex);
    this.#names.request(x, storedHeader(record.requestHeaders, SESSION_HEADER) || undefined);
  }

  #response(r: JournalEvent, ex: OpenExchange, x: number): void {
    const stream = answerExchange(ex.record, r);
    this.#names.response(x, storedHeader(ex.record.responseHeaders, SESSION_HEADER) || undefined);
    if (stream) {
      ex.sse = new SseByteSplitter(
        (event) => {
          this.#emit(event.data, x, { exchange: x, part: 'sse', sse: sseFields(event) }, 'server-to-client');
        },
        this.options.spill,
        this.options.spillAbove,
      );
    }
  }

  chunk(r: JournalChunk): void {
    if (r.x === undefined) return;
    const ex = this.open.get(r.x);
    if (!ex) return;
    if (r.c === 'http-request') ex.request.push(r.data);
    else if (r.c === 'http-response') {
      if (ex.sse) ex.sse.push(r.data);
      else if (ex.record.mcp) ex.response.push(r.data);
      else ex.kept?.push(r.data);
    }
  }

  finish(ex: OpenExchange, t: number, outcome: HttpExchange['outcome'] | undefined, error?: unknown): void {
    if (!this.open.has(ex.record.id)) return;
    this.#names.end(ex.record.id);
    this.open.delete(ex.record.id);
    endExchange(ex.record, t, outcome, error, ex.kept);
    if (ex.sse) ex.sse.end();
    else if (ex.response.bytes > 0)
      this.#emit(ex.response.take(), ex.record.id, { exchange: ex.record.id, part: 'response' }, 'server-to-client');
  }
}

/** Live verdicts name a message by its place in its exchange (k = -1: the exchange itself, which
 * carried no message; seq 0); give them the final session and seq. */
function attachLiveViolations(sessions: RecordedSession[], live: { violation: Violation; ref: { x: number; k: number } }[]): void {
  if (live.length === 0) return;
  const where = new Map<string, { session: RecordedSession; seq: number }>();
  for (const session of sessions) {
    for (const x of session.exchanges ?? []) where.set(`${x.id}:-1`, { session, seq: 0 });
    const ordinal = new Map<number, number>();
    for (const m of session.messages) {
      const x = m.http!.exchange;
      const k = ordinal.get(x) ?? 0;
      ordinal.set(x, k + 1);
      where.set(`${x}:${k}`, { session, seq: m.seq });
    }
  }
  for (const { violation, ref } of live) {
    const w = where.get(`${ref.x}:${ref.k}`);
    if (!w) continue;
    (w.session.violations ??= []).push({ ...violation, session: w.session.id, seq: w.seq });
  }
}

/** The exchanges and messages of each session, by its id (every exchange is named once the
 * journal is read: each has ended), in the order the sessions began. */
function group(
  journal: JournalSource,
  exchanges: OpenExchange[],
  named: Map<number, HttpSessionName>,
  placed: Placed[],
  options: { recovered?: boolean },
): RecordedSession[] {
  const base = journal.header.session as Pick<RecordedSession, 'label' | 'target' | 'proxy'>;
  const groups = new Map<string, { name: HttpSessionName; exchanges: OpenExchange[]; placed: Placed[] }>();
  for (const ex of exchanges) {
    const name = named.get(ex.record.id)!;
    let g = groups.get(name.id);
    if (!g) groups.set(name.id, (g = { name, exchanges: [], placed: [] }));
    g.exchanges.push(ex);
  }
  for (const p of placed) groups.get(named.get(p.exchange)!.id)?.placed.push(p);
  const start = Date.parse(journal.header.startedAt);
  return [...groups.values()].map((g) => {
    const mine = g.exchanges;
    // Whole milliseconds, so startedAt (an ISO time, to the millisecond) plus a message's `t` is
    // its exact time on the journal's clock: the validator orders the stateless sessions of one
    // recording by it, as the live validator saw their messages.
    const t0 = Math.floor(mine[0]!.record.t);
    const rebase = (t: number): number => Math.round((t - t0) * 1000) / 1000;
    const messages = g.placed.map((p, n) => ({ ...p.message, seq: n + 1, t: rebase(p.message.t) }));
    const records = mine.map((ex) => ({
      ...ex.record,
      t: rebase(ex.record.t),
      ...(ex.record.endT !== undefined ? { endT: rebase(ex.record.endT) } : {}),
    }));
    const facts = sessionFacts(messages);
    if (!facts.protocol.revision) {
      const fromHeader = mine.map((ex) => storedHeader(ex.record.requestHeaders, 'mcp-protocol-version')).find(Boolean);
      if (fromHeader) facts.protocol.revision = fromHeader;
    }
    const last = Math.max(...records.map((r) => r.endT ?? r.t), 0);
    const session: RecordedSession = {
      id: g.name.id,
      ...(typeof base.label === 'string' ? { label: base.label } : {}),
      transport: 'streamable-http',
      startedAt: new Date(start + t0).toISOString(),
      endedAt: new Date(start + t0 + last).toISOString(),
      durationMs: last,
      target: base.target,
      ...(g.name.mcpSessionId ? { mcpSessionId: g.name.mcpSessionId } : {}),
      protocol: facts.protocol,
      ...(facts.clientInfo ? { clientInfo: facts.clientInfo } : {}),
      ...(facts.serverInfo ? { serverInfo: facts.serverInfo } : {}),
      proxy: base.proxy,
      ...(options.recovered
        ? { end: { reason: 'recovered' as const, exitCode: null, signal: null, ...(journal.torn ? { torn: true as const } : {}) } }
        : {}),
      exchanges: records,
      messages,
    };
    return session;
  });
}
