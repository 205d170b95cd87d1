import type { HttpExchange, HttpHeaders } from '../../lib/cassette/cassette.js';
import type { ExchangeRule } from '../rule.js';
import { isObject, NO_BATCHES, type Observed, type Interest, type Rule } from '../rule.js';
import { MODERN_REVISION, revisionOf, sessionSlot, type SessionState } from '../session-state.js';

/** A header's first value, by case-insensitive name. */
export function headerOf(headers: HttpHeaders | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const k of Object.keys(headers)) {
    // The first key that matches, in the headers' order; lowercased only when the length fits.
    if (k === name || (k.length === name.length && k.toLowerCase() === name)) {
      const v = headers[k];
      return Array.isArray(v) ? v[0] : v;
    }
  }
  return undefined;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

// --- Base64 sentinel (streamable-http.mdx §Value Encoding) -------------------------------------

const SENTINEL = /^=\?base64\?(.*)\?=$/s;
const SENTINEL_ANY_CASE = /^=\?base64\?.*\?=$/is;

/** A value the client must send as `=?base64?…?=`: non-ASCII or control characters (a tab
 * inside is tolerated), leading or trailing whitespace, or a value that looks like a sentinel. */
export function mustEncode(value: string): boolean {
  return /[^\x20-\x7E\t]/.test(value) || /^[ \t]|[ \t]$/.test(value) || SENTINEL.test(value);
}

/** The header value with the Base64 sentinel decoded (servers compare this with the body). */
export function decodeHeaderValue(header: string): string {
  const m = SENTINEL.exec(header);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : header;
}

const sentinelOf = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** For HTTP-MCP-NAME: how `header` carries `value` is HTTP-B64-SENTINEL's to report (a value
 * that needs Base64 and did not get it right, or wrong-case markers). */
export const sentinelProblem = (header: string, value: string): boolean => encodingProblem('', header, value) !== undefined;

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
export function headerParams(schema: unknown): { name: string; path: string[] }[] | undefined {
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

const exchangeOf = (o: Observed, state: SessionState): HttpExchange | undefined => (o.msg.http ? state.exchanges.get(o.msg.http.exchange) : undefined);

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

/** §19 of RULES.md: Streamable HTTP rules that need the exchange (method, status, stream) or the
 * tool list. */
export const wireHttpRules: (Rule | ExchangeRule)[] = [
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
];
