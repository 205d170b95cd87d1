/**
 * The traffic of a running recorder, for `record --ui`: the messages of every session in one
 * ring buffer of the last LIVE_CAPACITY messages and at most LIVE_MAX_BYTES of frames (the oldest
 * go first), so a proxy that runs for weeks holds a bounded view. The page is told of each change
 * (server-sent events) and asks again for what it shows.
 */
import type { HttpExchange } from '../cassette/cassette.js';
import type { RecordedMessage } from '../message.js';
import { isObject } from '../plain-object.js';
import type { Violation } from '../violation.js';
import { markMaskedEvidence } from '../cassette/masked-verdicts.js';
import { attachViolations, rowsOf, type SessionDetail, type SessionView, violationView } from './view-model.js';
import type { Overview, ViewSource } from './view-source.js';

/** Messages kept across all sessions. */
export const LIVE_CAPACITY = 2000;
/** Frame bytes kept across all sessions (a message larger than this alone is kept as its size). */
export const LIVE_MAX_BYTES = 64 * 1024 * 1024;
/** Sessions kept, as a multiple of the messages kept: past it, the sessions none of whose messages
 * are kept any more are forgotten (on stateless Streamable HTTP every exchange is a session, and a
 * proxy that runs for weeks must not keep one for each). */
const SESSIONS_PER_MESSAGE = 2;
/** Exchanges kept per HTTP session, and violations per session. */
const EXCHANGES_KEPT = 500;
const VIOLATIONS_KEPT = 1000;

export interface LiveSessionInfo {
  key: string;
  transport: 'stdio' | 'streamable-http';
  target: string;
  startedAt: string;
}

interface LiveSession extends LiveSessionInfo {
  index: number;
  messages: RecordedMessage[];
  exchanges: HttpExchange[];
  violations: Violation[];
  seen: number;
  revision?: string;
  client?: string;
  server?: string;
}

function peer(p: unknown): string | undefined {
  return isObject(p) && typeof p.name === 'string' ? `${p.name}${typeof p.version === 'string' ? ` ${p.version}` : ''}` : undefined;
}

export class LiveSource implements ViewSource {
  #sessions: LiveSession[] = [];
  readonly #byKey = new Map<string, LiveSession>();
  /** Every kept message in arrival order, with its session: the ring. */
  readonly #ring: { s: LiveSession; m: RecordedMessage }[] = [];
  #ringStart = 0;
  #bytes = 0;
  #dropped = 0;
  readonly #listeners = new Set<() => void>();

  constructor(
    readonly title: string,
    readonly capacity = LIVE_CAPACITY,
    readonly maxBytes = LIVE_MAX_BYTES,
  ) {}

  session(index: number): SessionDetail | undefined {
    const s = this.#sessions[index];
    if (!s) return undefined;
    const rows = rowsOf(s.messages);
    const loose = attachViolations(
      rows,
      markMaskedEvidence(s.messages, s.violations).map((v) => violationView(v, s.revision)),
    );
    // A violation whose message left the ring is not shown: it would point at nothing.
    const first = s.messages[0]?.seq ?? Infinity;
    return { session: this.#view(s), rows, exchanges: s.exchanges, loose: loose.filter((v) => v.seq === 0 || v.seq >= first) };
  }

  message(index: number, seq: number): RecordedMessage | undefined {
    return this.#sessions[index]?.messages.find((m) => m.seq === seq);
  }

  overview(): Overview {
    return {
      kind: 'live',
      title: this.title,
      sessions: this.#sessions.map((s) => this.#view(s)),
      capacity: this.capacity,
      dropped: this.#dropped,
    };
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #view(s: LiveSession): SessionView {
    const counts: Record<string, number> = {};
    for (const m of s.messages)
      counts[m.channel === 'stderr' ? 'stderr' : m.kind] = (counts[m.channel === 'stderr' ? 'stderr' : m.kind] ?? 0) + 1;
    const last = s.messages[s.messages.length - 1];
    return {
      index: s.index,
      id: s.key,
      transport: s.transport,
      ...(s.revision ? { revision: s.revision } : {}),
      ...(s.client ? { client: s.client } : {}),
      ...(s.server ? { server: s.server } : {}),
      target: s.target,
      startedAt: s.startedAt,
      ...(last ? { durationMs: last.t } : {}),
      messages: s.seen,
      counts,
      violations: s.violations.length,
      errors: s.violations.filter((v) => v.severity === 'error').length,
    };
  }

  #sessionFor(info: LiveSessionInfo): LiveSession {
    let s = this.#byKey.get(info.key);
    if (!s) {
      if (this.#sessions.length >= SESSIONS_PER_MESSAGE * this.capacity) this.#forgetEmptied();
      s = { ...info, index: this.#sessions.length, messages: [], exchanges: [], violations: [], seen: 0 };
      this.#sessions.push(s);
      this.#byKey.set(info.key, s);
    }
    return s;
  }

  /** A message of a session, numbered by the feed. */
  add(info: LiveSessionInfo, m: RecordedMessage): void {
    const s = this.#sessionFor(info);
    s.seen += 1;
    const j = isObject(m.json) ? m.json : undefined;
    const result = isObject(j?.result) ? j.result : undefined;
    const params = isObject(j?.params) ? j.params : undefined;
    if (j?.method === 'initialize' && params) s.client ??= peer(params.clientInfo);
    if (result && typeof result.protocolVersion === 'string') {
      s.revision ??= result.protocolVersion;
      s.server ??= peer(result.serverInfo);
    }
    // 2026-07-28 has no initialize: every request names its revision and client in `_meta`, every
    // result its server, and server/discover answers with serverInfo.
    const meta = isObject(params?._meta) ? params._meta : undefined;
    if (meta) {
      const revision = meta['io.modelcontextprotocol/protocolVersion'];
      if (typeof revision === 'string') s.revision ??= revision;
      s.client ??= peer(meta['io.modelcontextprotocol/clientInfo']);
    }
    if (result)
      s.server ??= peer(isObject(result._meta) ? result._meta['io.modelcontextprotocol/serverInfo'] : undefined) ?? peer(result.serverInfo);
    const kept = m.bytes > this.maxBytes ? { ...m, json: undefined, raw: `<${m.bytes} bytes, over the live view's memory bound>` } : m;
    s.messages.push(kept);
    this.#ring.push({ s, m: kept });
    this.#bytes += Math.min(m.bytes, this.maxBytes);
    while (this.#ring.length - this.#ringStart > this.capacity || this.#bytes > this.maxBytes) this.#dropOldest();
    this.#changed();
  }

  /** An HTTP exchange began or moved on (status, end): the session keeps its latest state. */
  exchange(info: LiveSessionInfo, x: HttpExchange): void {
    const s = this.#sessionFor(info);
    const at = s.exchanges.findIndex((e) => e.id === x.id);
    if (at >= 0) s.exchanges[at] = x;
    else s.exchanges.push(x);
    if (s.exchanges.length > EXCHANGES_KEPT) s.exchanges.splice(0, s.exchanges.length - EXCHANGES_KEPT);
    this.#changed();
  }

  /** A violation of the live validator, on the message `seq` of the session `key`. */
  violation(key: string, seq: number, v: Violation): void {
    const s = this.#byKey.get(key);
    if (!s) return;
    s.violations.push({ ...v, seq });
    if (s.violations.length > VIOLATIONS_KEPT) s.violations.shift();
    this.#changed();
  }

  /** Forgets the sessions whose messages all left the ring; the others keep their order and are
   * numbered again (a session's index is its place in the list the page shows). */
  #forgetEmptied(): void {
    this.#sessions = this.#sessions.filter((s) => s.messages.length > 0);
    this.#byKey.clear();
    this.#sessions.forEach((s, i) => {
      s.index = i;
      this.#byKey.set(s.key, s);
    });
  }

  #dropOldest(): void {
    const oldest = this.#ring[this.#ringStart]!;
    this.#ring[this.#ringStart++] = undefined as never;
    if (this.#ringStart > 1024 && this.#ringStart * 2 > this.#ring.length) {
      this.#ring.splice(0, this.#ringStart);
      this.#ringStart = 0;
    }
    this.#bytes -= Math.min(oldest.m.bytes, this.maxBytes);
    this.#dropped += 1;
    // A session's messages are in arrival order too: its oldest is the one dropped.
    if (oldest.s.messages[0] === oldest.m) oldest.s.messages.shift();
  }

  #changed(): void {
    for (const l of this.#listeners) l();
  }
}
