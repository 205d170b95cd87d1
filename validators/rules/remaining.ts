import type { HttpExchange } from '../../lib/cassette/cassette.js';
import type { BareExchangeRule, ExchangeRule, SessionEndRule } from '../rule.js';
import { isObject, since, type Observed, type Report, type Rule } from '../rule.js';
import { idKey, MODERN_REVISION, sessionSlot, type SessionState } from '../session-state.js';
import { LISTEN, SUB_ID, metaOf, notification } from './features-common.js';
import { obj, params, type Json } from './negotiation.js';
import { missingEnvelope, refusable } from './version.js';
import { headerOf } from './wire-http.js';

/** Rule-private memory of one session, one WeakMap per concern. */
const perSession = sessionSlot;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const exchangeOf = (o: Observed, state: SessionState): HttpExchange | undefined => (o.msg.http ? state.exchanges.get(o.msg.http.exchange) : undefined);
/** Answers the proxy gave itself (Host/Origin refusal, upstream down) are not the server's. */
const fromServer = (x: HttpExchange): boolean => x.status !== undefined && x.outcome !== 'refused' && x.outcome !== 'upstream-error';
const is2xx = (x: HttpExchange): boolean => x.status !== undefined && x.status >= 200 && x.status < 300;
const isSse = (x: HttpExchange): boolean => (x.contentType ?? '').toLowerCase().startsWith('text/event-stream');
/** Statuses of layers before JSON-RPC dispatch (authorization, HTTP method, size, media type, rate limits). */
const PRE_DISPATCH_STATUS = new Set([401, 403, 405, 406, 413, 415, 429]);
/** Errors a server may give before it looks at the method: parse, envelope, headers, version, capabilities. */
const PRE_DISPATCH_CODES = new Set([-32700, -32600, -32020, -32021, -32022]);

// --- TASKS-STATUS (SEP-2663 §Task Status, §Task Polling, §Task Execution Errors) ----------------

const TASK_STATUSES = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A task as the server showed it: a tasks/get result, a notifications/tasks/status, or the seed
 * of a CreateTaskResult (which carries no result, error or inputRequests). */
function taskView(o: Observed): { task: Json; at: string; taskId?: string; seed: boolean } | undefined {
  if (o.msg.direction !== 'server-to-client' || !o.json) return undefined;
  const r = obj(o.json.result);
  if (r && o.request?.method === 'tasks/get') return { task: r, at: '/result', ...idOf(r.taskId ?? params(o.request.json).taskId), seed: false };
  if (r && o.request?.method === 'tools/call' && r.resultType === 'task') return { task: r, at: '/result', ...idOf(r.taskId), seed: true };
  const p = notification(o, 'notifications/tasks/status');
  return p ? { task: p, at: '/params', ...idOf(p.taskId), seed: false } : undefined;
}
const idOf = (v: unknown): { taskId?: string } => (typeof v === 'string' ? { taskId: v } : {});

/** What is missing or wrong beside a task's status (the DetailedTask variants). */
function companionProblem(status: string, task: Json): string | undefined {
  if (status === 'input_required' && !isObject(task.inputRequests)) return 'an input_required task carries its outstanding inputRequests';
  if (status === 'completed' && !isObject(task.result)) return 'a completed task carries its final result in `result`';
  if (status !== 'failed') return undefined;
  const e = task.error;
  if (!isObject(e)) {
    return isObject(task.result) && task.result.isError === true
      ? 'a tool result with isError: true is a completed task (status completed, the result in `result`); failed is only for JSON-RPC errors'
      : 'a failed task carries the JSON-RPC error in `error`';
  }
  if (!Number.isInteger(e.code) || typeof e.message !== 'string') return 'a failed task\'s `error` is a JSON-RPC error object ({code: integer, message: string})';
  return undefined;
}

const terminalOf = perSession(() => new Map<string, { status: string; seq: number }>());
const hasTtl = (task: Json): boolean => ['ttlSeconds', 'ttlMs', 'ttl'].some((k) => typeof task[k] === 'number');

// --- CAP-UNDECLARED-32601 -------------------------------------------------------------------------

/** The client→server request methods of each revision whose schema is known (the official schemas). */
const LEGACY_METHODS = ['initialize', 'ping', 'resources/list', 'resources/templates/list', 'resources/read', 'resources/subscribe', 'resources/unsubscribe', 'prompts/list', 'prompts/get', 'tools/list', 'tools/call', 'logging/setLevel', 'completion/complete'];
const CLIENT_METHODS: Record<string, ReadonlySet<string>> = {
  '2025-06-18': new Set(LEGACY_METHODS),
  '2025-11-25': new Set([...LEGACY_METHODS, 'tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list']),
  [MODERN_REVISION]: new Set(['server/discover', 'resources/list', 'resources/templates/list', 'resources/read', 'subscriptions/listen', 'prompts/list', 'prompts/get', 'tools/list', 'tools/call', 'completion/complete']),
};
const EVERY_CORE_METHOD = new Set(Object.values(CLIENT_METHODS).flatMap((s) => [...s]));
/** Methods and the server capability that gates them (`a.b`: a flag of `a` that must be true). */
const GATES: Record<string, string> = {
  'tools/list': 'tools', 'tools/call': 'tools', 'prompts/list': 'prompts', 'prompts/get': 'prompts',
  'resources/list': 'resources', 'resources/read': 'resources', 'resources/templates/list': 'resources',
  'resources/subscribe': 'resources.subscribe', 'resources/unsubscribe': 'resources.subscribe',
  'completion/complete': 'completions', 'logging/setLevel': 'logging',
};
const declares = (caps: Json, gate: string): boolean => {
  const [cap, flag] = gate.split('.') as [string, string?];
  return cap in caps && (!flag || obj(caps[cap])?.[flag] === true);
};

/** Why the server does not serve `method` in this session, if it does not. */
function notServed(method: string, revision: string | undefined, caps: Json): string | undefined {
  // C7: what a 2026-07-28 server answers to initialize is implementation-defined; tasks/* are
  // reserved for the tasks extension (its own rules).
  if (method === 'initialize' || revision === undefined) return undefined;
  const known = CLIENT_METHODS[revision];
  if (known && EVERY_CORE_METHOD.has(method) && !known.has(method) && !(revision >= MODERN_REVISION && method.startsWith('tasks/'))) return `${method} is not a ${revision} method`;
  const gate = GATES[method];
  if (gate && revision >= '2025-03-26' && !declares(caps, gate)) return `the server's declared capabilities (${Object.keys(caps).join(', ') || 'none'}) lack ${gate}`;
  return undefined;
}

/** The message at which the server's capabilities became known, and from which handshake. */
const capsOf = perSession(() => ({}) as { at?: number; from?: string });

// --- PROMPTS-ERR-ARGS ---------------------------------------------------------------------------

/** From the session's prompts/list answers: each prompt's required arguments, and where. */
const promptsOf = perSession(() => new Map<string, { required: string[]; seq: number }>());

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

// --- CANCEL-SERVER-TEARDOWN -----------------------------------------------------------------------

/** Listen ids the server itself cancelled (notifications/cancelled on stdio). */
const serverCancelled = perSession(() => new Set<string>());

// --- AUTH-PRM-AS, AUTH-OWN-AS-ONLY ------------------------------------------------------------------

const PRM_PATH = /^\/\.well-known\/oauth-protected-resource(\/|\?|$)/;

/** The Protected Resource Metadata document a GET of the well-known URI got, when the cassette kept it. */
function prmOf(x: HttpExchange): Json | undefined {
  if (x.mcp || x.method !== 'GET' || !PRM_PATH.test(x.path) || !fromServer(x) || !is2xx(x) || x.responseBody === undefined) return undefined;
  try {
    return obj(JSON.parse(x.responseBody));
  } catch {
    return undefined;
  }
}

/** The latest PRM document of the session that was complete before `t`. */
function prmBefore(state: SessionState, t: number): Json | undefined {
  let found: { doc: Json; at: number } | undefined;
  for (const x of state.exchanges.values()) {
    const doc = prmOf(x);
    const at = x.endT ?? x.t;
    if (doc && at <= t && (!found || at >= found.at)) found = { doc, at };
  }
  return found?.doc;
}

const trimSlash = (s: string): string => s.replace(/\/+$/, '');
const LOCAL_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2})$/i;

function httpUrl(text: string): URL | undefined {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** An audience names the resource when both are the same origin and one path contains the other
 * (RFC 8707 lets a client ask for a less specific resource). */
function covers(aud: URL, resource: URL): boolean {
  if (aud.origin.toLowerCase() !== resource.origin.toLowerCase()) return false;
  const a = trimSlash(aud.pathname);
  const r = trimSlash(resource.pathname);
  return a === r || r.startsWith(`${a}/`) || a.startsWith(`${r}/`);
}

/**
 * Catalogue rules that came last (the rule catalogue (RULES.md)): task status, undeclared methods, prompt
 * arguments, stream resumption and relatedness on 2026-07-28 HTTP, subscription teardown on
 * stdio, and what the authorization metadata and tokens show.
 */
export const remainingRules: (Rule | ExchangeRule | BareExchangeRule | SessionEndRule)[] = [
  {
    id: 'TASKS-STATUS', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/versioning.mdx §Extension Negotiation',
    title: 'A task status is one of the five, with its companion field; terminal states never change',
    on: ['server-result tasks/get', 'server-result tools/call', 'server-notification notifications/tasks/status'],
    check(o, report, state) {
      const view = taskView(o);
      if (!view) return;
      const { task, at, taskId, seed } = view;
      const status = task.status;
      if (typeof status !== 'string' || !TASK_STATUSES.has(status)) {
        return report(`${at}/status`, `task status ${JSON.stringify(status)} is none of working, input_required, completed, failed, cancelled (SEP-2663 §Task Status)`);
      }
      // A CreateTaskResult is only the seed: result, error and inputRequests come with tasks/get.
      const problem = seed ? undefined : companionProblem(status, task);
      if (problem) report(status === 'failed' && isObject(task.error) ? `${at}/error` : at, `task${taskId ? ` ${taskId}` : ''} is ${status}, but ${problem} (SEP-2663)`);
      if (taskId === undefined) return;
      const terminal = terminalOf(state);
      const before = terminal.get(taskId);
      // Servers MAY mark a task failed once its TTL has elapsed (SEP-2663 §Task Polling).
      if (before && before.status !== status && !(status === 'failed' && hasTtl(task))) {
        report(`${at}/status`, `task ${taskId} is ${status}, but message #${before.seq} showed it ${before.status}: a terminal status never changes`);
      }
      if (!before && TERMINAL.has(status)) terminal.set(taskId, { status, seq: o.msg.seq });
    },
  },
  {
    // The N part: the session's own server/discover or initialize told what the server serves.
    // A successful answer despite that is CAP-DECL-*'s; the client's side of it is CAP-RESPECT's.
    id: 'CAP-UNDECLARED-32601', level: 'desc', obs: 'N', era: 'all', source: 'basic/transports/streamable-http.mdx §Protocol Version Header',
    title: 'An unknown method, or one gated behind an undeclared capability, gets -32601 (on 2026-07-28 HTTP with 404)',
    on: ['server-response'],
    check(o, report, state) {
      const caps = capsOf(state);
      const req = o.request;
      if (o.msg.direction !== 'server-to-client' || !o.json || !req) return;
      const r = obj(o.json.result);
      if (r && isObject(r.capabilities) && (req.method === 'initialize' || req.method === 'server/discover')) {
        caps.at = o.msg.seq;
        caps.from = req.method;
        return;
      }
      const e = obj(o.json.error);
      const declared = state.serverCapabilities;
      // Only requests sent once the capabilities were known, by the handshake of their own era.
      if (!e || !declared || caps.at === undefined || req.msg.seq < caps.at || caps.from !== (req.era === 'modern' ? 'server/discover' : 'initialize')) return;
      if (state.cancelled.has(idKey(req.json.id))) return;
      const why = notServed(req.method, o.revision, declared);
      if (!why) return;
      const x = exchangeOf(o, state);
      if (x && (!fromServer(x) || PRE_DISPATCH_STATUS.has(x.status!))) return;
      const code = e.code;
      if (PRE_DISPATCH_CODES.has(code as number) || (code === -32602 && req.era === 'modern' && missingEnvelope(req.json).length > 0)) return;
      const modernHttp = x !== undefined && req.era === 'modern';
      if (code !== -32601) {
        report('/error/code', `${req.method} (message #${req.msg.seq}) is not served here: ${why}; the answer is -32601 (Method not found)${modernHttp ? ' with HTTP 404' : ''}, not ${JSON.stringify(code)}`);
      } else if (modernHttp && x.status !== 404) {
        report('/error/code', `-32601 for ${req.method} came with HTTP ${x.status}; on 2026-07-28 Streamable HTTP a method the server does not serve is answered 404 Not Found`);
      }
    },
  },
  {
    id: 'PROMPTS-ERR-ARGS', level: 'SHOULD', obs: 'N', era: 'all', source: 'server/prompts.mdx §Error Handling',
    title: 'prompts/get missing an argument prompts/list marked required gets -32602',
    on: ['server-response prompts/list', 'server-response prompts/get'],
    check(o, report, state) {
      const prompts = promptsOf(state);
      const req = o.request;
      if (o.msg.direction !== 'server-to-client' || !o.json || !req) return;
      const r = obj(o.json.result);
      if (req.method === 'prompts/list' && r && Array.isArray(r.prompts)) {
        if (params(req.json).cursor === undefined) prompts.clear(); // a first page starts a new list
        for (const p of r.prompts.map(obj)) {
          if (typeof p?.name !== 'string') continue;
          const required = (Array.isArray(p.arguments) ? p.arguments.map(obj) : []).filter((a) => a?.required === true && typeof a.name === 'string').map((a) => a!.name as string);
          prompts.set(p.name, { required, seq: o.msg.seq });
        }
        return;
      }
      const p = params(req.json);
      // A retry carries what the server asked for through MRTR; a changed list may have changed the arguments.
      if (req.method !== 'prompts/get' || typeof p.name !== 'string' || 'inputResponses' in p || 'requestState' in p || state.listChanged.has('prompts')) return;
      const listed = prompts.get(p.name);
      const args = obj(p.arguments) ?? {};
      const missing = (listed?.required ?? []).filter((a) => !Object.hasOwn(args, a));
      if (!listed || missing.length === 0) return;
      const named = `prompts/get ${JSON.stringify(p.name)} without ${missing.join(', ')}, which prompts/list (message #${listed.seq}) marks required,`;
      if (r) {
        if (r.resultType !== 'input_required') report('/result', `${named} succeeded; a missing required argument gets -32602 (Invalid params)`);
        return;
      }
      const e = obj(o.json.error);
      const x = exchangeOf(o, state);
      if (!e || e.code === -32602 || PRE_DISPATCH_CODES.has(e.code as number) || (x && (!fromServer(x) || PRE_DISPATCH_STATUS.has(x.status!))) || refusable(req, state)) return;
      report('/error/code', `${named} was answered with error ${JSON.stringify(e.code)}; a missing required argument gets -32602 (Invalid params)`);
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
  {
    // C1: cancellation.mdx says MUST send notifications/cancelled, subscriptions.mdx says SHOULD
    // answer the listen: either will do, and neither before the close is a warning. Judged only
    // when the server shut down deliberately: it exited cleanly (code 0), on its own or asked to
    // by a signal. A crash or a kill is an abrupt close that carries nothing (schema.ts:
    // SubscriptionsListenResult), and a close the client started (its stdin EOF) or a client
    // that went away is not the server's teardown.
    id: 'CANCEL-SERVER-TEARDOWN', level: 'MUST', obs: 'N', era: 'modern', transport: 'stdio', source: 'basic/patterns/cancellation.mdx', severity: 'warning',
    title: 'A server that ends a stdio session ends its open subscriptions first (result or notifications/cancelled)',
    on: ['server-notification notifications/cancelled'],
    check(o, _report, state) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/cancelled') : undefined;
      if (p) serverCancelled(state).add(idKey(p.requestId));
    },
    checkSessionEnd(end, report, state) {
      if (end?.reason !== 'exit' || end.exitCode !== 0 || end.initiatedBy === 'host-eof' || end.initiatedBy === 'host-gone') return;
      const cancelled = serverCancelled(state);
      for (const r of state.pending['client-to-server'].values()) {
        const key = idKey(r.json.id);
        if (r.method !== LISTEN || r.era !== 'modern' || state.cancelled.has(key) || cancelled.has(key)) continue;
        report(r.msg.seq, '', `the session closed while subscription ${key} was open, and the server sent neither its subscriptions/listen result nor notifications/cancelled for it; end each subscription with one of them before closing`);
      }
    },
  },
  {
    id: 'AUTH-PRM-AS', level: 'MUST', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/authorization/authorization-server-discovery.mdx §Authorization Server Location',
    revisions: since('2025-06-18'),
    title: 'The Protected Resource Metadata names at least one authorization server',
    on: [],
    check() {},
    checkBareExchange(x, report) {
      const doc = prmOf(x);
      if (!doc) return;
      const servers = doc.authorization_servers;
      if (Array.isArray(servers) && servers.some((s) => typeof s === 'string' && s !== '')) return;
      const what = servers === undefined ? 'has no authorization_servers' : Array.isArray(servers) ? 'lists no authorization server in authorization_servers' : 'has an authorization_servers that is not an array of URLs';
      report('', `the Protected Resource Metadata at ${x.path.split('?')[0]} ${what}; it must name at least one authorization server, so that clients can find where to get a token`);
    },
  },
  {
    // Decoded at record time (the token itself is masked): iss against the authorization
    // servers the session's PRM names, aud against the PRM's resource, or else the recorded
    // server's URL when that is a public one (behind a local address the public name is unknown).
    id: 'AUTH-OWN-AS-ONLY', level: 'MUST NOT', obs: 'H', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Token Handling',
    revisions: since('2025-06-18'),
    title: 'The client sends only tokens issued by this server\'s authorization server, for this server',
    on: [],
    check() {},
    checkExchange(x, _first, report, state) {
      const claims = x.tokenClaims;
      if (!claims || !x.mcp) return;
      const prm = prmBefore(state, x.t);
      const servers = (Array.isArray(prm?.authorization_servers) ? prm.authorization_servers : []).filter((s): s is string => typeof s === 'string' && s !== '');
      if (claims.iss !== undefined && servers.length > 0 && !servers.some((s) => trimSlash(s) === trimSlash(claims.iss!)) && state.once(`own-as-iss:${claims.iss}`)) {
        report('', `the client sent a token issued by ${claims.iss}, but the server's Protected Resource Metadata names ${servers.join(', ')}; send only tokens from the server's own authorization server`);
      }
      const target = state.session.target;
      const targetUrl = target && 'url' in target ? httpUrl(target.url) : undefined;
      const resource = str(prm?.resource) !== undefined ? httpUrl(prm!.resource as string) : targetUrl && !LOCAL_HOST.test(targetUrl.hostname) ? targetUrl : undefined;
      const auds = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      const urls = auds.map(httpUrl);
      // An audience that is no URL (an API id, a client id) cannot be compared: no verdict.
      if (!resource || urls.length === 0 || urls.some((u) => !u) || urls.some((u) => covers(u!, resource))) return;
      if (state.once(`own-as-aud:${auds.join(' ')}`)) report('', `the client sent a token for ${auds.join(', ')}, not for this server (${resource.href}); tokens are bound to the server they were issued for (RFC 8707)`);
    },
  },
];
