import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HttpExchange, RecordedSession, TokenClaims } from '../../lib/cassette/cassette.js';
import { frameToMessage, type RecordedMessage } from '../../lib/message.js';
import type { Violation } from '../../lib/violation.js';
import { root } from './paths.js';

export const fixtureRoot = join(root, 'cassettes', 'fixtures', 'rules');

export interface RuleFixture {
  rule: string;
  name: string;
  description: string;
  transport: 'stdio' | 'streamable-http';
  expect: string[];
  /** Every finding the fixture raises, where it points: one entry per violation (so a finding
   * that moves to another message or path, or doubles, fails the test). Required; a fixture
   * without it fails with a hint (see `fixture-findings.ts`). */
  findings?: FixtureFinding[];
  /** The session's messages (absent when the fixture has `sessions`). */
  messages?: [string, unknown, number?][];
  /** HTTP: headers per exchange; request headers default to what a correct client sends. */
  exchanges?: Record<string, FixtureExchange>;
  /** HTTP: the recorded server's URL (default a remote https one). */
  target?: string;
  /** Several sessions of one recording, for the cross-session rules (validators/recording.ts),
   * instead of `messages`/`exchanges`: one stdio process or one HTTP session each. */
  sessions?: FixtureSessionPart[];
}

/** Where one finding points: the message's seq in its session (0: an exchange without a
 * message), the party at fault (the server for a finding about an HTTP answer or a session's
 * end, even on the client's request; see docs/validation.md, Where a finding points), the JSON
 * Pointer, and for a fixture with `sessions` the session's number (from 1). */
export interface FixtureFinding {
  rule: string;
  session?: number;
  seq: number;
  direction: 'client-to-server' | 'server-to-client';
  path: string;
}

type FixtureExchange = {
  t?: number;
  path?: string;
  method?: string;
  status?: number;
  endT?: number;
  outcome?: HttpExchange['outcome'];
  mcp?: boolean;
  requestHeaders?: Record<string, string | null>;
  responseHeaders?: Record<string, string>;
  responseBody?: string;
  tokenClaims?: TokenClaims;
  caller?: string;
};

/** One session of a multi-session fixture. `at`: when it starts, in ms after the first one
 * (default 100 ms after the previous start); `durationMs` defaults to one ms per message; `end`
 * is how a stdio process ended. Its `exchanges` may name exchanges that carry no message (an OAuth
 * discovery GET): they are created (default GET, not MCP). */
export interface FixtureSessionPart {
  at?: number;
  durationMs?: number;
  end?: RecordedSession['end'];
  messages: [string, unknown, number?][];
  exchanges?: Record<string, FixtureExchange>;
}

export function loadFixtures(): RuleFixture[] {
  return readdirSync(fixtureRoot)
    .sort()
    .flatMap((rule) =>
      readdirSync(join(fixtureRoot, rule))
        .filter((f) => f.endsWith('.json'))
        .map((f) => ({
          rule,
          name: f.replace(/\.json$/, ''),
          ...(JSON.parse(readFileSync(join(fixtureRoot, rule, f), 'utf8')) as Omit<RuleFixture, 'rule' | 'name'>),
        })),
    );
}

/**
 * A fixture's messages as a recorded session: `c`/`s` carry JSON (client→server, server→client),
 * `c-raw`/`s-raw` a text line, `s-b64` raw bytes, `s-sse` JSON sent as an SSE event; on HTTP the
 * third element is the exchange. Message n (from 0) is complete at t = n ms.
 */
export function fixtureSession(f: RuleFixture): RecordedSession {
  if (f.sessions) return fixtureSessions(f)[0]!;
  return buildSession(f, false);
}

/**
 * Every session of a fixture: the one of `messages`, or those of `sessions`, ids
 * `<rule>/<name>-<n>` like the sessions of one HTTP proxy run, on a stdio command of their own.
 */
export function fixtureSessions(f: RuleFixture): RecordedSession[] {
  if (!f.sessions) return [buildSession(f, false)];
  const base = Date.parse(START);
  let at = 0;
  return f.sessions.map((part, i) => {
    at = part.at ?? (i === 0 ? 0 : at + 100);
    const s = buildSession({ ...f, messages: part.messages, ...(part.exchanges ? { exchanges: part.exchanges } : {}) }, true);
    // An exchange placed before the first message (negative t) moves the session's start
    // instead: a cassette's times are never negative, and every instant stays where it was.
    const shift = Math.min(0, ...(s.exchanges ?? []).map((x) => x.t));
    for (const x of s.exchanges ?? []) {
      x.t -= shift;
      if (x.endT !== undefined) x.endT -= shift;
    }
    for (const m of s.messages) m.t -= shift;
    const durationMs = (part.durationMs ?? part.messages.length) - shift;
    return {
      ...s,
      id: `${f.rule}/${f.name}-${i + 1}`,
      startedAt: new Date(base + at + shift).toISOString(),
      endedAt: new Date(base + at + shift + durationMs).toISOString(),
      durationMs,
      ...(f.transport === 'stdio' ? { target: { command: ['fixture', `${f.rule}/${f.name}`], cwd: '/' } } : {}),
      ...(part.end ? { end: part.end } : {}),
    };
  });
}

const START = '2026-11-30T00:00:00.000Z';

function buildSession(f: RuleFixture, createExchanges: boolean): RecordedSession {
  const exchanges = new Map<number, HttpExchange>();
  const messages: RecordedMessage[] = (f.messages ?? []).map(([kind, value, exchange], i) => {
    const fromClient = kind.startsWith('c');
    const sse = kind === 's-sse';
    const bytes = kind.endsWith('-b64')
      ? Buffer.from(String(value), 'base64')
      : kind.endsWith('-raw')
        ? Buffer.from(String(value))
        : Buffer.from(JSON.stringify(value));
    const http = f.transport === 'streamable-http';
    const x = exchange ?? 1;
    if (http && !exchanges.has(x))
      exchanges.set(x, {
        id: x,
        t: i,
        method: 'POST',
        path: '/mcp',
        requestHeaders: { accept: 'application/json, text/event-stream' },
        status: 200,
        contentType: 'application/json',
        responseHeaders: { 'content-type': 'application/json' },
        outcome: 'complete',
        mcp: true,
      });
    if (sse) {
      exchanges.get(x)!.contentType = 'text/event-stream';
      exchanges.get(x)!.responseHeaders = { 'content-type': 'text/event-stream' };
    }
    if (http && fromClient && kind === 'c') Object.assign(exchanges.get(x)!.requestHeaders, correctHeaders(value));
    return frameToMessage(bytes, {
      seq: i + 1,
      t: i,
      direction: fromClient ? 'client-to-server' : 'server-to-client',
      channel: http ? 'http' : fromClient ? 'stdin' : 'stdout',
      terminated: true,
      ...(http ? { http: { exchange: x, part: fromClient ? ('request' as const) : sse ? ('sse' as const) : ('response' as const) } } : {}),
    });
  });
  for (const [x, h] of Object.entries(f.exchanges ?? {})) {
    if (createExchanges && f.transport === 'streamable-http' && !exchanges.has(Number(x))) {
      exchanges.set(Number(x), {
        id: Number(x),
        t: 0,
        method: 'GET',
        path: '/mcp',
        requestHeaders: {},
        status: 200,
        outcome: 'complete',
        mcp: h.mcp ?? false,
      });
    }
    const ex = exchanges.get(Number(x));
    if (!ex) continue;
    for (const [k, v] of Object.entries(h.requestHeaders ?? {})) {
      if (v === null) delete ex.requestHeaders[k];
      else ex.requestHeaders[k] = v;
    }
    if (h.responseHeaders) {
      ex.responseHeaders = h.responseHeaders;
      ex.contentType = h.responseHeaders['content-type'] ?? '';
    }
    if (h.path) ex.path = h.path;
    if (h.method) ex.method = h.method;
    if (h.status !== undefined) ex.status = h.status;
    if (h.endT !== undefined) ex.endT = h.endT;
    if (h.outcome) ex.outcome = h.outcome;
    if (h.mcp !== undefined) ex.mcp = h.mcp;
    if (h.t !== undefined) ex.t = h.t;
    if (h.responseBody !== undefined) ex.responseBody = h.responseBody;
    if (h.tokenClaims) ex.tokenClaims = h.tokenClaims;
    if (h.caller) ex.caller = h.caller;
  }
  return {
    id: `${f.rule}/${f.name}`,
    transport: f.transport,
    startedAt: START,
    target:
      f.transport === 'stdio'
        ? { command: ['fixture'], cwd: '/' }
        : { url: f.target ?? 'https://mcp.example.com/mcp', listen: 'http://127.0.0.1/mcp' },
    protocol: {},
    proxy: { pid: 0, version: 'fixture' },
    ...(f.transport === 'streamable-http' ? { exchanges: [...exchanges.values()] } : {}),
    messages,
  };
}

/** The headers a correct 2026-07-28 client sends with a request body. */
function correctHeaders(body: unknown): Record<string, string> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return {};
  const m = body as { method?: unknown; params?: { name?: unknown; uri?: unknown; _meta?: Record<string, unknown> } };
  const out: Record<string, string> = {};
  const version = m.params?._meta?.['io.modelcontextprotocol/protocolVersion'];
  if (typeof version === 'string') out['mcp-protocol-version'] = version;
  if (typeof m.method === 'string' && typeof version === 'string') out['mcp-method'] = m.method;
  const name = m.method === 'resources/read' ? m.params?.uri : m.params?.name;
  if (typeof name === 'string' && typeof version === 'string') out['mcp-name'] = name;
  return out;
}

/** A fixture's violations as findings, in the order the validator gives them: each session on
 * its own, then the cross-session rules over all of them (one recording). */
export function fixtureFindings(f: RuleFixture, violations: readonly Violation[]): FixtureFinding[] {
  const ids = fixtureSessions(f).map((s) => s.id);
  return violations.map((v) => ({
    rule: v.rule,
    ...(f.sessions ? { session: ids.indexOf(v.session) + 1 } : {}),
    seq: v.seq,
    direction: v.direction,
    path: v.path,
  }));
}

/** Findings as sortable lines (`RULE 2#5 S>C /result`), to compare as a multiset. */
export function findingLines(findings: readonly FixtureFinding[]): string[] {
  return findings
    .map(
      (x) =>
        `${x.rule} ${x.session === undefined ? '' : `${x.session}`}#${x.seq} ${x.direction === 'client-to-server' ? 'C>S' : 'S>C'} ${x.path}`,
    )
    .sort();
}
