import type { HttpExchange } from '../../lib/cassette/cassette.js';
import type { ExchangeFact } from '../recording.js';
import { type BareExchangeRule, type ExchangeRule, type Interest, isObject, NO_BATCHES, type Observed, type RecordingRule, type Report, type Rule, type SessionEndRule } from '../rule.js';
import { idKey, MODERN_REVISION, revisionOf, sessionSlot, type SessionState } from '../session-state.js';
import { exchangeOf, exchangesOf, factFromServer, fromServer, headerOf, is2xx, LISTEN, metaOf, missingEnvelope, notification, params, perSession, SUB_ID } from './support.js';

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

// --- Base64 sentinel (streamable-http.mdx §Value Encoding) -------------------------------------

const SENTINEL = /^=\?base64\?(.*)\?=$/s;

const SENTINEL_ANY_CASE = /^=\?base64\?.*\?=$/is;

/** A value the client must send as `=?base64?…?=`: non-ASCII or control characters (a tab
 * inside is tolerated), leading or trailing whitespace, or a value that looks like a sentinel. */
function mustEncode(value: string): boolean {
  return /[^\x20-\x7E\t]/.test(value) || /^[ \t]|[ \t]$/.test(value) || SENTINEL.test(value);
}

/** The header value with the Base64 sentinel decoded (servers compare this with the body). */
function decodeHeaderValue(header: string): string {
  const m = SENTINEL.exec(header);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : header;
}

const sentinelOf = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** For HTTP-MCP-NAME: how `header` carries `value` is HTTP-B64-SENTINEL's to report (a value
 * that needs Base64 and did not get it right, or wrong-case markers). */
const sentinelProblem = (header: string, value: string): boolean => encodingProblem('', header, value) !== undefined;

/** What is wrong with how `header` carries `value`, as far as the encoding goes. */
function encodingProblem(name: string, header: string, value: string): string | undefined {
  if (mustEncode(value)) {
    if (SENTINEL.test(header) && decodeHeaderValue(header) === value) return undefined;
    const sent = header === value ? 'unencoded' : `as ${JSON.stringify(header)}`;
    return `${name} carries ${JSON.stringify(value)} ${sent}; a value that is not plain header-safe ASCII (or looks like a sentinel) must be sent as ${sentinelOf(value)}`;
  }
  if (header !== value && SENTINEL_ANY_CASE.test(header) && !SENTINEL.test(header)) return `${name} is ${JSON.stringify(header)}: the =?base64? and ?= markers are lowercase and exact`;
  return undefined;
}

// --- x-mcp-header (streamable-http.mdx §Custom Headers from Tool Parameters) ---------------------

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The `x-mcp-header` annotations of a tool's inputSchema, with the argument path each mirrors, or
 * undefined when an annotation is invalid (then the client must drop the tool, so its calls are
 * not judged here).
 */
function headerParams(schema: unknown): { name: string; path: string[] }[] | undefined {
  const out: { name: string; path: string[] }[] = [];
  let valid = true;
  const visit = (node: unknown, path: string[] | null): void => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, null));
    if (!isObject(node)) return;
    if ('x-mcp-header' in node) {
      const name = node['x-mcp-header'];
      const type = node.type;
      if (!path || path.length === 0 || typeof name !== 'string' || !TOKEN.test(name) || (type !== undefined && !['string', 'integer', 'boolean'].includes(type as string))) valid = false;
      else out.push({ name, path });
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && path && isObject(v)) for (const [p, sub] of Object.entries(v)) visit(sub, [...path, p]);
      else if (k !== 'x-mcp-header') visit(v, null);
    }
  };
  visit(schema, []);
  const names = out.map((p) => p.name.toLowerCase());
  if (new Set(names).size !== names.length) valid = false;
  return valid ? out : undefined;
}

function valueAt(args: unknown, path: string[]): unknown {
  let v: unknown = args;
  for (const p of path) v = isObject(v) ? v[p] : undefined;
  return v;
}

// --- helpers ---------------------------------------------------------------------------------

/** A 2026-07-28 request or notification POSTed by the client, by its envelope or its header. */
function modernClientMessage(o: Observed, state: SessionState): Record<string, unknown> | undefined {
  if (o.msg.direction !== 'client-to-server' || !o.msg.http || !o.json || typeof o.json.method !== 'string') return undefined;
  const version = revisionOf(o.json) ?? state.header(o.msg, 'mcp-protocol-version');
  return (version !== undefined && version >= MODERN_REVISION) || o.era === 'modern' ? o.json : undefined;
}

/** Per session: what the HTTP rules remember between messages and exchanges. */
interface HttpState {
  /** Exchanges whose response carried a body: `reply` when it was a JSON-RPC response. */
  bodies: Map<number, 'reply' | 'other'>;
  /** SSE exchanges: when the last response to the request they carried arrived. */
  finalAt: Map<number, number>;
  /** A POST to the endpoint was answered 2xx in this session. */
  postAccepted: boolean;
}

const httpState = sessionSlot<HttpState>(() => ({ bodies: new Map(), finalAt: new Map(), postAccepted: false }));

/** Notifications whose place on a 2026-07-28 stream other rules judge (LOG-*, CANCEL-HTTP, SUB-*). */
const MODERN_STREAM_RULED = new Set(['notifications/message', 'notifications/cancelled', 'notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed', 'notifications/resources/updated']);

/** How long a request stream may stay open after its final response before that counts. */
const SSE_LINGER_MS = 2000;

/** The core notifications a client used to send; none belongs on 2026-07-28 HTTP. */
const CORE_CLIENT_NOTIFICATIONS = new Set(['notifications/cancelled', 'notifications/initialized', 'notifications/progress', 'notifications/roots/list_changed']);

const missingEnvelopeOf = (request: Record<string, unknown>): boolean => missingEnvelope(request).length > 0;

const NAMED: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

function modernPost(o: Parameters<Rule['check']>[0]) {
  if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !o.msg.http) return undefined;
  return revisionOf(o.json) ? o.json : undefined;
}

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
      const modernOnly = Array.isArray(supported) && supported.length > 0 && supported.every((v) => typeof v === 'string' && v >= MODERN_REVISION);
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
const retryHinted = perSession(() => new Set<number>());

/** A GET that asks to resume a stream (Last-Event-ID) under 2026-07-28, answered with an event stream. */
function resumedStream(x: HttpExchange, report: Report): void {
  const lastEventId = headerOf(x.requestHeaders, 'last-event-id');
  const version = headerOf(x.requestHeaders, 'mcp-protocol-version');
  if (!x.mcp || x.method !== 'GET' || lastEventId === undefined || version === undefined || version < MODERN_REVISION) return;
  if (!fromServer(x) || !is2xx(x) || !isSse(x)) return;
  report('', `a GET with Last-Event-ID ${JSON.stringify(lastEventId)} and MCP-Protocol-Version ${version} was answered with an event stream (HTTP ${x.status}): a ${version} server does not resume streams; ignore Last-Event-ID (and answer GET with 405)`);
}

export const httpRules: (Rule | ExchangeRule | RecordingRule | BareExchangeRule | SessionEndRule)[] = [
  {
    id: 'HTTP-PV-PRESENT', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Protocol Version Header',
    title: 'Every POST carries MCP-Protocol-Version',
    on: ['client-request'],
    check(o, report, state) {
      const json = modernPost(o);
      if (json && 'id' in json && state.header(o.msg, 'mcp-protocol-version') === undefined) report('', `${String(json.method)} was POSTed without an MCP-Protocol-Version header`);
    },
  },
  {
    id: 'HTTP-PV-MATCH', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Protocol Version Header',
    title: 'MCP-Protocol-Version equals the body\'s _meta protocolVersion',
    on: ['client-request', 'client-notification'],
    check(o, report, state) {
      const json = modernPost(o);
      const header = json ? state.header(o.msg, 'mcp-protocol-version') : undefined;
      if (json && header !== undefined && header !== revisionOf(json)) report('/params/_meta', `MCP-Protocol-Version header ${header} but the body names ${String(revisionOf(json))}`);
    },
  },
  {
    id: 'HTTP-MCP-METHOD', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Standard Request Headers',
    title: 'Every request has an Mcp-Method header equal to the body\'s method',
    on: ['client-request'],
    check(o, report, state) {
      const json = modernPost(o);
      if (!json || !('id' in json)) return;
      const header = state.header(o.msg, 'mcp-method');
      if (header !== json.method) report('/method', header === undefined ? `${String(json.method)} was POSTed without an Mcp-Method header` : `Mcp-Method ${header} but the body's method is ${String(json.method)}`);
    },
  },
  {
    id: 'HTTP-MCP-NAME', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Standard Request Headers',
    title: 'tools/call, prompts/get and resources/read send Mcp-Name',
    on: Object.keys(NAMED).flatMap((m): Interest[] => [`client-request ${m}`, `client-notification ${m}`]),
    check(o, report, state) {
      const json = modernPost(o);
      const field = json && Object.hasOwn(NAMED, String(json.method)) ? NAMED[String(json.method)] : undefined;
      if (!json || !field) return;
      const params = isObject(json.params) ? json.params : {};
      const header = state.header(o.msg, 'mcp-name');
      // Base64 sentinel values are compared decoded; a badly encoded one is HTTP-B64-SENTINEL's.
      if (header !== undefined && typeof params[field] === 'string' && sentinelProblem(header, params[field] as string)) return;
      if ((header === undefined ? undefined : decodeHeaderValue(header)) !== params[field]) report(`/params/${field}`, header === undefined ? `${String(json.method)} without an Mcp-Name header` : `Mcp-Name ${header} but params.${field} is ${JSON.stringify(params[field])}`);
    },
  },
  {
    id: 'HTTP-400-MODERN', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Server Validation',
    title: '-32020, -32021, -32022 and a missing-envelope -32602 are sent with HTTP 400',
    on: ['server-error'],
    check(o, report, state) {
      const code = o.json && isObject(o.json.error) ? o.json.error.code : undefined;
      if (o.msg.direction !== 'server-to-client' || !o.msg.http || typeof code !== 'number') return;
      const x = state.exchanges.get(o.msg.http.exchange);
      const missingEnvelope = code === -32602 && o.request !== undefined && missingEnvelopeOf(o.request.json);
      if ((code === -32020 || code === -32021 || code === -32022 || missingEnvelope) && x?.status !== undefined && x.status !== 400) report('/error/code', `error ${code} came with HTTP status ${x.status}, not 400`);
    },
  },
  {
    id: 'HTTP-NO-SESSION', level: 'SHOULD', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Earlier Streamable HTTP Revisions',
    title: 'A 2026-07-28 exchange never mints or echoes Mcp-Session-Id',
    on: ['server-response'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.msg.http || !o.request || o.request.era !== 'modern') return;
      const x = state.exchanges.get(o.msg.http.exchange);
      if (x?.responseHeaders?.['mcp-session-id'] !== undefined) report('', 'a 2026-07-28 answer carries an Mcp-Session-Id header; the revision has no protocol sessions');
    },
  },
  {
    id: 'HTTP-ACCEPT', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'The Accept header lists application/json and text/event-stream',
    on: ['client-json'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server' || !o.msg.http || !o.json || !('id' in o.json)) return;
      const accept = state.header(o.msg, 'accept') ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) report('', `Accept is ${JSON.stringify(accept)}; it must list application/json and text/event-stream`);
    },
  },
  {
    id: 'HTTP-REQ-CT', level: 'MUST', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'A request is answered with application/json or text/event-stream',
    on: ['server'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      if (o.msg.direction !== 'server-to-client' || !x || !state.once(`ct:${x.id}`)) return;
      const type = (x.contentType ?? '').toLowerCase();
      if (!type.startsWith('application/json') && !type.startsWith('text/event-stream')) report('', `the answer's Content-Type is ${JSON.stringify(x.contentType ?? '')}`);
    },
  },
  {
    id: 'HTTP-XACCEL', level: 'SHOULD', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'SSE responses send X-Accel-Buffering: no',
    on: ['server'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      if (o.msg.direction !== 'server-to-client' || o.msg.http?.part !== 'sse' || !x || !state.once(`xaccel:${x.id}`)) return;
      if (x.responseHeaders?.['x-accel-buffering'] !== 'no') report('', 'an SSE response without X-Accel-Buffering: no (proxies may buffer it)');
    },
  },
  {
    id: 'HTTP-SSE-ONE-RESP', level: 'derived', obs: 'N', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Message Flow',
    title: 'A request\'s stream carries exactly one response, with the request\'s id',
    on: ['server-response'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || o.msg.http?.part !== 'sse' || !o.json || !('result' in o.json || 'error' in o.json)) return;
      if ((state.responsesInExchange.get(o.msg.http.exchange) ?? 0) >= 1) report('', 'a second response on the same request stream');
    },
  },
  {
    id: 'HTTP-ENDPOINT', level: 'MUST', obs: 'N', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx',
    title: 'The MCP endpoint accepts POST',
    on: [],
    check() {},
    // A 405 alone may come from a server of the old HTTP+SSE transport (which clients probe for),
    // so it counts only once the same session has seen the endpoint accept a POST.
    checkExchange(x, _first, report, state) {
      const s = httpState(state);
      if (x.method !== 'POST' || !x.mcp || x.status === undefined) return;
      if (x.status === 405 && s.postAccepted) report('', `POST ${x.path.split('?')[0]} was answered 405 Method Not Allowed, although the endpoint accepted POST earlier in this session; the MCP endpoint must accept POST`);
      if (x.status >= 200 && x.status < 300) s.postAccepted = true;
    },
  },
  {
    id: 'HTTP-POST', level: 'MUST', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'Every client message is sent with HTTP POST',
    on: ['client'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      if (o.msg.direction === 'client-to-server' && x && x.method !== 'POST' && state.once(`post:${x.id}`)) report('', `a JSON-RPC message sent with HTTP ${x.method}; every client message is a new POST to the MCP endpoint`);
    },
  },
  {
    // Batches (ENV-NO-BATCH), client responses (ENV-NO-CLIENT-RESP), a missing `jsonrpc`
    // (ENV-JSONRPC20) and invalid UTF-8 (ENV-UTF8) have rules of their own.
    id: 'HTTP-BODY-ONE', level: 'MUST', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Sending Messages',
    revisions: NO_BATCHES,
    title: 'A POST body is exactly one JSON-RPC request or notification',
    on: ['client-other', 'client-nonjson'],
    check(o, report) {
      if (o.msg.direction !== 'client-to-server' || o.msg.http?.part !== 'request' || o.msg.rawBase64 !== undefined) return;
      if (o.msg.kind === 'text') report('', `the POST body is not one JSON value (${JSON.stringify((o.msg.raw ?? '').slice(0, 60))}); send exactly one JSON-RPC request or notification`);
      else if (o.msg.kind === 'non-jsonrpc' && (!o.json || o.json.jsonrpc === '2.0')) report('', 'the POST body is JSON but neither a JSON-RPC request nor a notification');
    },
  },
  {
    id: 'HTTP-NOTIF-202', level: 'MUST', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'An accepted notification gets 202 Accepted with no body',
    on: ['server'],
    check(o, _report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.msg.http) return;
      const bodies = httpState(state).bodies;
      if (o.msg.kind === 'response' || o.msg.kind === 'error') bodies.set(o.msg.http.exchange, 'reply');
      else if (!bodies.has(o.msg.http.exchange)) bodies.set(o.msg.http.exchange, 'other');
    },
    // A JSON-RPC result or error in the body is ENV-NOTIF-NO-REPLY's (an error body with an
    // error status is allowed); this rule judges the status and any other body.
    checkExchange(x, first, report, state) {
      if (first.direction !== 'client-to-server' || first.kind !== 'notification' || x.status === undefined) return;
      const body = httpState(state).bodies.get(x.id);
      if (x.outcome === 'refused' || x.outcome === 'upstream-error' || body === 'reply') return;
      const method = String((first.json as { method?: unknown }).method);
      if (x.status >= 200 && x.status < 300 && x.status !== 202) report('', `the ${method} notification was accepted with HTTP ${x.status}; an accepted notification gets 202 Accepted with no body`);
      else if (x.status === 202 && body) report('', `the 202 answer to the ${method} notification has a body; it must have none`);
    },
  },
  {
    id: 'HTTP-SSE-NO-REQ', level: 'MUST NOT', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'No JSON-RPC requests on a 2026-07-28 SSE stream',
    on: ['server-request'],
    check(o, report) {
      if (o.msg.direction === 'server-to-client' && o.msg.http?.part === 'sse' && o.msg.kind === 'request') {
        report('', `server→client request ${String(o.json?.method)} on an SSE stream; on 2026-07-28 it belongs in an InputRequiredResult's inputRequests`);
      }
    },
  },
  {
    // After the final response: a second response is HTTP-SSE-ONE-RESP's, progress is
    // PROG-STOP's, a listen stream's close is SUB-GRACEFUL's, and on 2026-07-28 requests, log
    // messages, cancellations and subscription notifications have stream rules of their own.
    id: 'HTTP-SSE-END', level: 'SHOULD', obs: 'N', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'The final response ends the request\'s SSE stream',
    on: ['server-json'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || o.msg.http?.part !== 'sse' || !o.json) return;
      const x = o.msg.http.exchange;
      const s = httpState(state);
      if ('result' in o.json || 'error' in o.json) {
        if (o.request?.msg.http?.exchange === x && o.request.method !== 'subscriptions/listen') s.finalAt.set(x, o.msg.t);
        return;
      }
      const method = o.json.method;
      if (!s.finalAt.has(x) || method === 'notifications/progress' || (o.era === 'modern' && ('id' in o.json || MODERN_STREAM_RULED.has(method as string)))) return;
      if (state.once(`sse-end:${x}`)) report('', `${String(method)} after the final response on the same stream; the response should end the stream`);
    },
    checkExchange(x, _first, report, state) {
      const at = httpState(state).finalAt.get(x.id);
      if (at === undefined || x.endT === undefined || x.endT - at <= SSE_LINGER_MS) return;
      if (state.once(`sse-end:${x.id}`)) report('', `the SSE stream stayed open ${Math.round(x.endT - at)} ms after the final response${x.outcome === 'client-aborted' ? ', until the client closed it' : ''}; the response should end the stream`);
    },
  },
  {
    id: 'HTTP-B64-SENTINEL', level: 'MUST', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Value Encoding',
    title: 'Mcp-Name and Mcp-Param-* values that are not header-safe use =?base64?…?=',
    on: ['client-request'],
    check(o, report, state) {
      const json = modernClientMessage(o, state);
      const x = exchangeOf(o, state);
      if (!json || !('id' in json) || !x) return;
      const params = isObject(json.params) ? json.params : {};
      const field = json.method === 'resources/read' ? 'uri' : json.method === 'tools/call' || json.method === 'prompts/get' ? 'name' : undefined;
      const name = headerOf(x.requestHeaders, 'mcp-name');
      if (field && name !== undefined && typeof params[field] === 'string') {
        const problem = encodingProblem('Mcp-Name', name, params[field] as string);
        if (problem) report(`/params/${field}`, problem);
      }
      // Mcp-Param-* headers: by the value they mirror when the tool is known, else by their form.
      const known = new Map<string, { value: unknown; path: string[] }>();
      const tool = json.method === 'tools/call' ? state.tools.get(String(params.name)) : undefined;
      for (const p of (tool && headerParams(tool.inputSchema)) ?? []) known.set(`mcp-param-${p.name.toLowerCase()}`, { value: valueAt(params.arguments, p.path), path: p.path });
      for (const [key, raw] of Object.entries(x.requestHeaders)) {
        const header = Array.isArray(raw) ? raw[0] : raw;
        if (!key.toLowerCase().startsWith('mcp-param-') || header === undefined) continue;
        const mirrored = known.get(key.toLowerCase());
        const value = mirrored && (typeof mirrored.value === 'string' || typeof mirrored.value === 'number' || typeof mirrored.value === 'boolean') ? String(mirrored.value) : undefined;
        const at = mirrored ? `/params/arguments/${mirrored.path.map(escapePointer).join('/')}` : '';
        const problem = value !== undefined ? encodingProblem(key, header, value)
          : /[^\x20-\x7E\t]/.test(header) ? `${key} carries raw non-ASCII or control characters; such a value must be sent as =?base64?…?=`
          : SENTINEL_ANY_CASE.test(header) && !SENTINEL.test(header) ? `${key} is ${JSON.stringify(header)}: the =?base64? and ?= markers are lowercase and exact` : undefined;
        if (problem) report(at, problem);
      }
    },
  },
  {
    // Needs the tool's inputSchema from a tools/list answer in the same session.
    id: 'HTTP-MCP-PARAM', level: 'MUST', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Client Behavior',
    title: 'Each x-mcp-header argument with a value is mirrored as Mcp-Param-{Name}',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const json = modernClientMessage(o, state);
      const x = exchangeOf(o, state);
      if (!json || json.method !== 'tools/call' || !('id' in json) || !x || !isObject(json.params)) return;
      const tool = state.tools.get(String(json.params.name));
      for (const p of (tool && headerParams(tool.inputSchema)) ?? []) {
        const value = valueAt(json.params.arguments, p.path);
        const header = headerOf(x.requestHeaders, `mcp-param-${p.name.toLowerCase()}`);
        const at = `/params/arguments/${p.path.map(escapePointer).join('/')}`;
        if (value === undefined || value === null) {
          if (header !== undefined) report(at, `Mcp-Param-${p.name} was sent although arguments.${p.path.join('.')} is ${value === null ? 'null' : 'absent'}; omit the header then`);
          continue;
        }
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
        const expected = String(value);
        if (header === undefined) {
          report(at, `arguments.${p.path.join('.')} is ${JSON.stringify(value)} but the Mcp-Param-${p.name} header its x-mcp-header asks for is missing`);
        } else if (!mustEncode(expected) || SENTINEL.test(header)) {
          // A value that needs Base64 but came raw is HTTP-B64-SENTINEL's.
          const sent = decodeHeaderValue(header);
          if (sent !== expected && !(typeof value === 'number' && Number(sent) === value)) report(at, `Mcp-Param-${p.name} is ${JSON.stringify(sent)} but arguments.${p.path.join('.')} is ${JSON.stringify(value)}`);
        }
      }
    },
  },
  {
    // Extension notifications may exist; the core ones have no place on 2026-07-28 HTTP
    // (cancellation is closing the stream, and there is no handshake or roots notification).
    id: 'HTTP-NO-CLIENT-NOTIF', level: 'desc', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'No core client notifications are POSTed on 2026-07-28',
    on: [...CORE_CLIENT_NOTIFICATIONS].map((m): Interest => `client-notification ${m}`),
    check(o, report, state) {
      const json = modernClientMessage(o, state);
      if (!json || 'id' in json || !CORE_CLIENT_NOTIFICATIONS.has(json.method as string)) return;
      report('/method', json.method === 'notifications/cancelled'
        ? 'notifications/cancelled POSTed on 2026-07-28 HTTP; to cancel, close the request\'s response stream'
        : `${String(json.method)} POSTed on 2026-07-28 HTTP; the core protocol defines no client notification over HTTP`);
    },
  },
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
        report(init.at, '/method', `the client fell back to initialize ${Math.round(init.t - x.endT)} ms after a 400 whose body is ${what} (session ${x.request!.at.session}); that error comes from a 2026-07-28 server: correct the request or retry with a supported version instead of falling back`);
      }
    },
  },
  {
    // Passively: a GET resuming a stream under 2026-07-28, and a 2026-07-28 request stream the
    // server ends unanswered after a `retry` hint (the 2025 polling pattern, SEP-1699), which
    // only works if the client resumes. SSE ids as such carry no meaning and are allowed.
    id: 'HTTP-NO-RESUME', level: 'SHOULD', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Earlier Streamable HTTP Revisions',
    title: 'A 2026-07-28 server neither resumes streams nor relies on the client resuming one',
    on: ['server'],
    check(o, _report, state) {
      if (o.msg.direction === 'server-to-client' && o.msg.http?.part === 'sse' && o.msg.http.sse?.retry !== undefined) retryHinted(state).add(o.msg.http.exchange);
    },
    checkExchange(x, _first, report, state) {
      resumedStream(x, report);
      const req = state.exchangeRequest(x.id);
      if (x.outcome !== 'complete' || !isSse(x) || !retryHinted(state).has(x.id) || req?.era !== 'modern' || req.method === LISTEN) return;
      report('', `the server ended the stream of ${req.method} ${JSON.stringify(req.json.id)} without answering it, after an SSE retry hint: that is the 2025 polling pattern (the client reconnects with Last-Event-ID), but 2026-07-28 streams are not resumable; keep the stream open until the response`);
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
    id: 'HTTP-SSE-RELATED', level: 'MUST', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'Notifications on a request\'s SSE stream relate to that request',
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
        if (carrier.method !== 'tasks/get') report('/method', `notifications/tasks/status on the stream of ${request}; task status rides only the stream of a tasks/get for that task`);
        else if (status.taskId !== asked) report('/params/taskId', `the status of task ${JSON.stringify(status.taskId)} on the stream of tasks/get for task ${JSON.stringify(asked)}`);
        return;
      }
      const ack = notification(o, 'notifications/subscriptions/acknowledged');
      const sub = ack ? metaOf(ack)?.[SUB_ID] : undefined;
      // An acknowledgment for another open listen (SUB-ID-TAG judges a tag that names none).
      if (sub !== undefined && carrier.method !== LISTEN && state.pending['client-to-server'].get(idKey(sub))?.method === LISTEN) {
        report('/method', `the acknowledgment of subscription ${JSON.stringify(sub)} on the stream of ${request}; it belongs on that subscription's own stream`);
      }
    },
  },
];
