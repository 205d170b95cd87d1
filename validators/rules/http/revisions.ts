/** RULES.md §19, Streamable HTTP: what differs between revisions (era detection, resumption, notifications). */
import type { HttpExchange } from '../../../lib/cassette/cassette.js';
import type { ExchangeFact } from '../../session-digest.js';
import {
  type BareExchangeRule,
  type ExchangeRule,
  type Interest,
  isObject,
  type RecordingRule,
  type Report,
  type Rule,
  type SessionEndRule,
} from '../../rule.js';
import { exchangeSlot, idKey, MODERN_REVISION } from '../../session-state.js';
import { exchangesOf, factFromServer, fromServer, headerOf, is2xx, modernClientMessage } from '../support/http.js';
import { LISTEN, metaOf, notification, params, SUB_ID } from '../support/messages.js';

/** The core notifications a client used to send; none belongs on 2026-07-28 HTTP. */
const CORE_CLIENT_NOTIFICATIONS = new Set([
  'notifications/cancelled',
  'notifications/initialized',
  'notifications/progress',
  'notifications/roots/list_changed',
]);

/*
 * The rules that need several sessions of one recording (validators/recording.ts): on Streamable
 * HTTP every stateless exchange is a session of its own, and a stdio cassette holds one session
 * per server process. They run offline on a cassette and, on HTTP, at the end of a `record
 * --upstream` run; a stdio run is one process, so the stdio ones run offline only.
 */

/** A client that got a recognised modern error and then sends `initialize` this soon fell back
 * because of that error (and not for a reason of its own, much later). */
const FALLBACK_WINDOW_MS = 5_000;

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
      const modernOnly =
        Array.isArray(supported) && supported.length > 0 && supported.every((v) => typeof v === 'string' && v >= MODERN_REVISION);
      return modernOnly ? `UnsupportedProtocolVersion (-32022, supported: ${(supported as string[]).join(', ')})` : undefined;
    }
    case -32602:
      return x.request.missingEnvelope ? 'the missing-_meta InvalidParams (-32602)' : undefined;
    default:
      return undefined;
  }
}

const isSse = (x: HttpExchange): boolean => (x.contentType ?? '').toLowerCase().startsWith('text/event-stream');

// --- HTTP-NO-RESUME -------------------------------------------------------------------------------

/** Exchanges whose SSE stream carried a `retry` field (a reconnection hint). */
const retryHinted = exchangeSlot<true>();

/** A GET that asks to resume a stream (Last-Event-ID) under 2026-07-28, answered with an event stream. */
function resumedStream(x: HttpExchange, report: Report): void {
  const lastEventId = headerOf(x.requestHeaders, 'last-event-id');
  const version = headerOf(x.requestHeaders, 'mcp-protocol-version');
  if (!x.mcp || x.method !== 'GET' || lastEventId === undefined || version === undefined || version < MODERN_REVISION) return;
  if (!fromServer(x) || !is2xx(x) || !isSse(x)) return;
  report(
    '',
    `a GET with Last-Event-ID ${JSON.stringify(lastEventId)} and MCP-Protocol-Version ${version} was answered with an event stream (HTTP ${x.status}): a ${version} server does not resume streams; ignore Last-Event-ID (and answer GET with 405)`,
  );
}

export const revisionsRules: (Rule | ExchangeRule | RecordingRule | BareExchangeRule | SessionEndRule)[] = [
  {
    // Extension notifications may exist; the core ones have no place on 2026-07-28 HTTP
    // (cancellation is closing the stream, and there is no handshake or roots notification).
    id: 'HTTP-NO-CLIENT-NOTIF',
    level: 'desc',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'No core client notifications are POSTed on 2026-07-28',
    on: [...CORE_CLIENT_NOTIFICATIONS].map((m): Interest => `client-notification ${m}`),
    check(o, report, state) {
      const json = modernClientMessage(o, state);
      if (!json || 'id' in json || !CORE_CLIENT_NOTIFICATIONS.has(json.method as string)) return;
      report(
        '/method',
        json.method === 'notifications/cancelled'
          ? "notifications/cancelled POSTed on 2026-07-28 HTTP; to cancel, close the request's response stream"
          : `${String(json.method)} POSTed on 2026-07-28 HTTP; the core protocol defines no client notification over HTTP`,
      );
    },
  },
  {
    // Passive reading: a 400 with a recognised modern error, then the same client's next request
    // (same User-Agent, in the same proxy run; a differing clientInfo rules it out) is an
    // `initialize`, sent within a few seconds. Without a User-Agent the client cannot be told.
    id: 'HTTP-ERA-DETECT',
    level: 'SHOULD',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Backward Compatibility',
    title: 'A client that gets a recognised 2026-07-28 error in a 400 stays modern instead of falling back to initialize',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const xs = exchangesOf(sessions);
      const requests = sessions.flatMap((s) => s.requests).sort((a, b) => a.t - b.t);
      const reported = new Set<string>();
      for (const x of xs) {
        if (x.status !== 400 || !factFromServer(x) || x.userAgent === undefined) continue;
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
        report(
          init.at,
          '/method',
          `the client fell back to initialize ${Math.round(init.t - x.endT)} ms after a 400 whose body is ${what} (session ${x.request!.at.session}); that error comes from a 2026-07-28 server: correct the request or retry with a supported version instead of falling back`,
        );
      }
    },
  },
  {
    // Passively: a GET resuming a stream under 2026-07-28, and a 2026-07-28 request stream the
    // server ends unanswered after a `retry` hint (the 2025 polling pattern, SEP-1699), which
    // only works if the client resumes. SSE ids as such carry no meaning and are allowed.
    id: 'HTTP-NO-RESUME',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Earlier Streamable HTTP Revisions',
    title: 'A 2026-07-28 server neither resumes streams nor relies on the client resuming one',
    on: ['server'],
    check(o, _report, state) {
      if (o.msg.direction === 'server-to-client' && o.msg.http?.part === 'sse' && o.msg.http.sse?.retry !== undefined)
        retryHinted(state).set(o.msg.http.exchange, true);
    },
    checkExchange(x, _first, report, state) {
      resumedStream(x, report);
      const req = state.exchangeRequest(x.id);
      if (x.outcome !== 'complete' || !isSse(x) || !retryHinted(state).has(x.id) || req?.era !== 'modern' || req.method === LISTEN) return;
      report(
        '',
        `the server ended the stream of ${req.method} ${JSON.stringify(req.json.id)} without answering it, after an SSE retry hint: that is the 2025 polling pattern (the client reconnects with Last-Event-ID), but 2026-07-28 streams are not resumable; keep the stream open until the response`,
      );
    },
    checkBareExchange(x, report) {
      resumedStream(x, report);
    },
  },
  {
    // Progress and log messages on the wrong stream are PROG-STREAM's, LOG-OPT-IN's,
    // LOG-REQUEST-SCOPED's and SUB-NO-REQSCOPED's; list changes and resource updates are
    // SUB-CHANGE-ONLY-ON-LISTEN's; cancellations CANCEL-HTTP's; anything after the response
    // HTTP-SSE-END's. What is left: task status and subscription acknowledgments.
    id: 'HTTP-SSE-RELATED',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: "Notifications on a request's SSE stream relate to that request",
    on: ['server-notification notifications/tasks/status', 'server-notification notifications/subscriptions/acknowledged'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || o.msg.http?.part !== 'sse' || !o.json || 'id' in o.json) return;
      const carrier = state.exchangeRequest(o.msg.http.exchange);
      if (carrier?.era !== 'modern') return;
      const request = `${carrier.method} ${JSON.stringify(carrier.json.id)}`;
      const status = notification(o, 'notifications/tasks/status');
      if (status) {
        // SEP-2663: on HTTP, task status goes only on the stream of a tasks/get for that task.
        const asked = params(carrier.json).taskId;
        if (carrier.method !== 'tasks/get')
          report(
            '/method',
            `notifications/tasks/status on the stream of ${request}; task status rides only the stream of a tasks/get for that task`,
          );
        else if (status.taskId !== asked)
          report(
            '/params/taskId',
            `the status of task ${JSON.stringify(status.taskId)} on the stream of tasks/get for task ${JSON.stringify(asked)}`,
          );
        return;
      }
      const ack = notification(o, 'notifications/subscriptions/acknowledged');
      const sub = ack ? metaOf(ack)?.[SUB_ID] : undefined;
      // An acknowledgment for another open listen (SUB-ID-TAG judges a tag that names none).
      if (sub !== undefined && carrier.method !== LISTEN && state.pending['client-to-server'].get(idKey(sub))?.method === LISTEN) {
        report(
          '/method',
          `the acknowledgment of subscription ${JSON.stringify(sub)} on the stream of ${request}; it belongs on that subscription's own stream`,
        );
      }
    },
  },
];
