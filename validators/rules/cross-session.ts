import type { ExchangeFact, ListFact, SessionDigest } from '../recording.js';
import type { RecordingRule } from '../rule.js';
import { isObject } from '../rule.js';
import { LIST_KEYS, MODERN_REVISION } from '../session-state.js';
import { LISTEN } from './features-common.js';

/*
 * The rules that need several sessions of one recording (validators/recording.ts): on Streamable
 * HTTP every stateless exchange is a session of its own, and a stdio cassette holds one session
 * per server process. They run offline on a cassette and, on HTTP, at the end of a `record
 * --upstream` run; a stdio run is one process, so the stdio ones run offline only.
 */

/** A client that got a recognised modern error and then sends `initialize` this soon fell back
 * because of that error (and not for a reason of its own, much later). */
const FALLBACK_WINDOW_MS = 5_000;
/** A list asked again this soon, with nothing in between, should get the same answer. */
const RELIST_WINDOW_MS = 10_000;
/** A new process of the same command and client this soon after the last one ended is a reconnect. */
const RECONNECT_WINDOW_MS = 60_000;
/** STATE-STDIO-LIFETIME: this many short processes in a row, each at most this many calls. */
const LIFETIME_RUN = 3;
const SHORT_CONVERSATION = 10;

const PRM = '/.well-known/oauth-protected-resource';
/** Requests that cannot change a list: the list methods themselves, discovery, listening, completion. */
const READ_ONLY = new Set(['server/discover', 'tools/list', 'resources/list', 'resources/templates/list', 'prompts/list', LISTEN, 'completion/complete', 'ping']);
/** What a conversation does with a server (as opposed to discovering it). */
const CONVERSATION = new Set(['tools/call', 'prompts/get', 'resources/read', 'completion/complete']);

/** Exchanges the proxy answered itself (Host/Origin refusal, upstream down) are not the server's. */
const fromServer = (x: ExchangeFact): boolean => x.status !== undefined && x.outcome !== 'refused' && x.outcome !== 'upstream-error';

function exchangesOf(sessions: readonly SessionDigest[]): ExchangeFact[] {
  return sessions.flatMap((s) => [...s.exchanges.values()]).sort((a, b) => a.t - b.t || a.id - b.id);
}

const sameCommand = (a: SessionDigest, b: SessionDigest): boolean => JSON.stringify(a.target) === JSON.stringify(b.target);

/**
 * The body of a 400 that shows a 2026-07-28 server (streamable-http.mdx §Backward Compatibility),
 * for a request that was itself modern. -32022 counts only when every supported version is
 * 2026-07-28 or later: with a 2025 version listed, `initialize` is how the client uses it.
 * -32602 counts only as the missing-`_meta` error, for a request that lacked a `_meta` field.
 */
function recognisedModernError(x: ExchangeFact): string | undefined {
  const e = x.error;
  if (!e || x.request?.era !== 'modern') return undefined;
  const data = isObject(e.data) ? e.data : {};
  switch (e.code) {
    case -32020:
      return 'HeaderMismatch (-32020)';
    case -32021:
      return isObject(data.requiredCapabilities) ? 'MissingRequiredClientCapability (-32021)' : undefined;
    case -32022: {
      const supported = data.supported;
      const modernOnly = Array.isArray(supported) && supported.length > 0 && supported.every((v) => typeof v === 'string' && v >= MODERN_REVISION);
      return modernOnly ? `UnsupportedProtocolVersion (-32022, supported: ${(supported as string[]).join(', ')})` : undefined;
    }
    case -32602:
      return x.request.missingEnvelope ? 'the missing-_meta InvalidParams (-32602)' : undefined;
    default:
      return undefined;
  }
}

/** The items two list answers disagree on, as sets (order is TOOLS-LIST-ORDER's). */
function difference(before: ListFact, now: ListFact): string[] {
  const added = [...now.items.keys()].filter((k) => !before.items.has(k));
  const removed = [...before.items.keys()].filter((k) => !now.items.has(k));
  const changed = [...now.items.keys()].filter((k) => before.items.has(k) && before.items.get(k) !== now.items.get(k));
  return [added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : '', changed.length ? `changed ${changed.join(', ')}` : ''].filter(Boolean);
}

/** A stdio process the client started for one short conversation and then closed itself. */
function shortConversation(s: SessionDigest): boolean {
  const calls = s.requests.filter((r) => CONVERSATION.has(r.method)).length;
  return s.client !== undefined && s.end?.initiatedBy === 'host-eof' && s.requests[0]?.method === 'server/discover'
    && s.requests.every((r) => r.era === 'modern') && calls >= 1 && calls <= SHORT_CONVERSATION;
}

/** Cross-session rules (see the catalogue: §3, §13, §19, §20). Each `check` is empty: they judge
 * recordings, never a single message. */
export const crossSessionRules: RecordingRule[] = [
  {
    // Passive reading: a 400 with a recognised modern error, then the same client's next request
    // (same User-Agent, in the same proxy run; a differing clientInfo rules it out) is an
    // `initialize`, sent within a few seconds. Without a User-Agent the client cannot be told.
    id: 'HTTP-ERA-DETECT', level: 'SHOULD', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Backward Compatibility',
    title: 'A client that gets a recognised 2026-07-28 error in a 400 stays modern instead of falling back to initialize',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const xs = exchangesOf(sessions);
      const requests = sessions.flatMap((s) => s.requests).sort((a, b) => a.t - b.t);
      const reported = new Set<string>();
      for (const x of xs) {
        if (x.status !== 400 || !fromServer(x) || x.userAgent === undefined) continue;
        const what = recognisedModernError(x);
        if (!what) continue;
        // The client's next request (from the requests, which are known whether or not their
        // exchange ever ended).
        const init = requests.find((r) => r.t >= x.endT && r.userAgent === x.userAgent);
        if (!init || init.method !== 'initialize' || init.t - x.endT > FALLBACK_WINDOW_MS) continue;
        if (x.request!.client && init.client && x.request!.client !== init.client) continue;
        const key = `${init.at.session}#${init.at.seq}`;
        if (reported.has(key)) continue;
        reported.add(key);
        report(init.at, '/method', `the client fell back to initialize ${Math.round(init.t - x.endT)} ms after a 400 whose body is ${what} (session ${x.request!.at.session}); that error comes from a 2026-07-28 server: correct the request or retry with a supported version instead of falling back`);
      }
    },
  },
  {
    // Either mechanism will do (resource_metadata in the challenge, or the document at the
    // well-known URI, at the endpoint's path or at the root). Passively, a 401 without the first
    // is flagged only when the recording shows every well-known location fetched and refused
    // (4xx); if one was never fetched it may serve the document, and nothing is said. 2025-03-26
    // traffic (no PRM at all) is not judged. One report per endpoint and recording.
    id: 'AUTH-PRM-LOCATION', level: 'MUST', obs: 'N', era: 'all', transport: 'streamable-http', source: 'basic/authorization/authorization-server-discovery.mdx §Protected Resource Metadata Discovery Requirements',
    title: 'A 401 names resource_metadata, or the Protected Resource Metadata is at the well-known URI',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const xs = exchangesOf(sessions);
      const gets = xs.filter((x) => x.method === 'GET' && x.path.startsWith(PRM) && fromServer(x));
      const refusals = (path: string): number[] | undefined => {
        const seen = gets.filter((g) => g.path === path).map((g) => g.status!);
        return seen.length > 0 && seen.every((s) => s >= 400 && s < 500) ? seen : undefined;
      };
      const done = new Set<string>();
      for (const x of xs) {
        if (x.status !== 401 || !x.mcp || !fromServer(x) || x.resourceMetadata || !x.first || done.has(x.path)) continue;
        const revision = x.request?.revision ?? x.protocolHeader;
        if (!revision || revision < '2025-06-18') continue;
        const endpoint = x.path.replace(/\/+$/, '');
        const locations = endpoint ? [`${PRM}${endpoint}`, PRM] : [PRM];
        const refused = locations.map(refusals);
        if (refused.some((r) => r === undefined)) continue;
        done.add(x.path);
        report({ ...x.first, direction: 'server-to-client' }, '', `HTTP 401 without WWW-Authenticate: Bearer resource_metadata="…", and the Protected Resource Metadata is not at the well-known URI either (${locations.map((l, i) => `GET ${l}: ${refused[i]!.join(', ')}`).join('; ')}); name the metadata URL in the challenge or serve the document there`);
      }
    },
  },
  {
    // The per-connection part of the list invariance, between sessions (within one session it is
    // TOOLS-/RES-/PROMPTS-LIST-INVARIANT's). The conservative reading: only Streamable HTTP
    // 2026-07-28, where one server serves every session of a run (a stdio process's lists depend
    // on its environment, which a cassette does not record, so processes are never compared);
    // only the same question (method and params, _meta included) with the same credentials as far
    // as the recording shows (masked tokens all look alike, so exchanges with credentials are
    // never compared) and the same serverInfo; only complete one-page answers from sessions whose
    // own answers did not vary; and only when nothing could have changed the list in between: no
    // request other than list, discovery, listen or completion in flight anywhere in the run, no
    // list_changed, and the later question asked within 10 s. Order-only differences are
    // TOOLS-LIST-ORDER's and not compared here.
    id: 'STATE-LIST-INVARIANT', level: 'MUST NOT', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'server/tools.mdx §Capabilities; server/resources.mdx §Capabilities; server/prompts.mdx §Capabilities',
    title: 'The same list question gets the same answer on every connection (lists vary only with authorization)',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const answers = sessions
        .flatMap((s) => [...s.lists.values()].filter((l) => l.complete && l.stable && l.request.era === 'modern').map((l) => ({ s, l })))
        .sort((a, b) => a.l.t - b.l.t);
      const busy = sessions.flatMap((s) => s.requests.filter((r) => !READ_ONLY.has(r.method)).map((r) => [r.t, r.endT ?? Infinity] as const));
      const changed = sessions.flatMap((s) => s.listChanged);
      answers.forEach((b, i) => {
        const who = b.l.request.credentials;
        if (who === undefined) return;
        // The latest earlier answer to the same question, from another session.
        let a: (typeof answers)[number] | undefined;
        for (let j = i - 1; j >= 0 && !a; j--) {
          const c = answers[j]!;
          if (c.s !== b.s && c.l.method === b.l.method && c.l.request.question === b.l.request.question
            && c.l.request.credentials === who && (!c.l.server || !b.l.server || c.l.server === b.l.server)) a = c;
        }
        if (!a) return;
        const from = Math.min(a.l.request.t, b.l.request.t);
        const to = b.l.t;
        if (b.l.request.t - a.l.t > RELIST_WINDOW_MS) return;
        if (busy.some(([s, e]) => s <= to && e >= from) || changed.some((t) => t >= from && t <= to)) return;
        const parts = difference(a.l, b.l);
        if (parts.length === 0) return;
        report(b.l.at, `/result/${LIST_KEYS[b.l.method]}`, `${b.l.method} answers the same request differently than in session ${a.s.id} (message #${a.l.at.seq}, ${Math.round(b.l.request.t - a.l.t)} ms earlier), with no list_changed and no other request in between: ${parts.join('; ')}; lists must not vary per connection (only with the Authorization presented)`);
      });
    },
  },
  {
    // "On stdio, if the connection is terminated and then re-established, the client MUST re-send
    // subscriptions/listen." The conservative reading of a reconnect: the process ended by itself
    // (not closed by the client, not stopped by a signal) with an acknowledged listen still open,
    // and the same client starts the same command again within a minute. That next process is
    // judged only if it lasted long enough to re-subscribe: it made another request.
    id: 'SUB-STDIO-RESUB', level: 'MUST', obs: 'N', era: 'modern', transport: 'stdio', source: 'basic/patterns/subscriptions.mdx §Graceful Closure',
    title: 'After a stdio reconnect the client re-sends subscriptions/listen',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const byStart = [...sessions].sort((a, b) => a.startT - b.startT);
      for (const a of byStart) {
        const open = a.requests.find((r) => r.method === LISTEN && r.era === 'modern' && r.acked && !r.closed);
        if (!open || !a.client || a.end?.reason !== 'exit' || a.end.initiatedBy !== undefined) continue;
        const b = byStart.find((s) => s !== a && s.startT >= a.endT && sameCommand(s, a) && s.client === a.client);
        if (!b || b.startT - a.endT > RECONNECT_WINDOW_MS || b.requests.some((r) => r.method === LISTEN)) continue;
        const other = b.requests.find((r) => r.era === 'modern' && r.method !== 'server/discover');
        if (!other) continue;
        report(other.at, '', `the server process of session ${a.id} ended while its subscriptions/listen (message #${open.at.seq}) was acknowledged and open; this reconnect of the same client to the same command makes requests but never re-sends subscriptions/listen, and the server holds no subscription state across processes`);
      }
    },
  },
  {
    // A heuristic, and reported as info only: test harnesses legitimately start a process per
    // test, which looks the same. Very conservative: 3 processes in a row of one command and one
    // client, none overlapping, each 2026-07-28 only, opened with server/discover, used for 1-10
    // calls (tools/call, prompts/get, resources/read, completion/complete) and then closed by the
    // client itself (stdin closed).
    id: 'STATE-STDIO-LIFETIME', level: 'SHOULD NOT', obs: 'H', era: 'modern', transport: 'stdio', source: 'basic/index.mdx §Statelessness', severity: 'info',
    title: 'The client does not start a stdio process per conversation (heuristic)',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const groups = new Map<string, SessionDigest[]>();
      for (const s of sessions) {
        const key = `${JSON.stringify(s.target)} ${s.client ?? ''}`;
        groups.set(key, [...(groups.get(key) ?? []), s]);
      }
      for (const group of groups.values()) {
        let run: SessionDigest[] = [];
        for (const s of group.sort((a, b) => a.startT - b.startT)) {
          const prev = run.at(-1);
          if (!shortConversation(s)) run = [];
          else if (prev && s.startT < prev.endT) run = [s];
          else run.push(s);
          if (run.length !== LIFETIME_RUN) continue;
          const call = s.requests.find((r) => CONVERSATION.has(r.method))!;
          report(call.at, '', `${LIFETIME_RUN} stdio processes of this command in a row (sessions ${run.map((r) => r.id).join(', ')}), each started by the client for a few calls and closed by it: if that is a process per conversation, keep one process instead; the stdio process is not a conversation boundary`);
        }
      }
    },
  },
];
