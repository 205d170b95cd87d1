import { isObject, since, type Interest, type Rule } from '../rule.js';
import { idKey, mrtrKey } from '../session-state.js';
import { retryOf } from './mrtr.js';

type O = Parameters<Rule['check']>[0];
const KNOWN_META = new Set(['protocolVersion', 'clientCapabilities', 'clientInfo', 'serverInfo', 'logLevel', 'subscriptionId', 'related-task']);
const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
const LISTEN_ONLY = new Set(['notifications/tools/list_changed', 'notifications/prompts/list_changed', 'notifications/resources/list_changed', 'notifications/resources/updated']);
const FILTER_OF: Record<string, string> = {
  'notifications/tools/list_changed': 'toolsListChanged', 'notifications/prompts/list_changed': 'promptsListChanged', 'notifications/resources/list_changed': 'resourcesListChanged',
};

const metaOf = (v: unknown): Record<string, unknown> | undefined => (isObject(v) && isObject(v._meta) ? v._meta : undefined);
const exchangeOf = (o: O, state: Parameters<Rule['check']>[2]) => (o.msg.http ? state.exchanges.get(o.msg.http.exchange) : undefined);

/** The listen request whose stream (HTTP) a server message rides, if any. */
function listenOf(o: O, state: Parameters<Rule['check']>[2]) {
  if (!o.msg.http) return undefined;
  const r = state.exchangeRequest(o.msg.http.exchange);
  return r?.method === 'subscriptions/listen' ? r : undefined;
}

/** ENV-META-RESERVED on one `_meta`: keys whose prefix's second label is MCP's (`io.modelcontextprotocol/`, `x.mcp/`) but whose name MCP does not define. */
function reservedKeys(meta: Record<string, unknown> | undefined, at: string, report: Parameters<Rule['check']>[1]): void {
  if (!meta) return;
  for (const key of Object.keys(meta)) {
    if (isReserved(key)) report(`${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`, `${key} uses a prefix reserved for MCP but is not a key MCP defines`);
  }
}

/** The same few keys come in every message: their verdicts are kept (a bounded cache). */
const reservedVerdicts = new Map<string, boolean>();
function isReserved(key: string): boolean {
  let v = reservedVerdicts.get(key);
  if (v === undefined) {
    const slash = key.lastIndexOf('/');
    // No prefix, or a name MCP defines, is fine.
    const second = slash < 0 || KNOWN_META.has(key.slice(slash + 1)) ? undefined : key.slice(0, slash).split('.')[1];
    v = second === 'modelcontextprotocol' || second === 'mcp';
    if (reservedVerdicts.size >= 1024) reservedVerdicts.clear();
    reservedVerdicts.set(key, v);
  }
  return v;
}

/** More of §1, §2, §13, §14, §19 and §20 of RULES.md. */
/** The requests an InputRequiredResult may answer, and so the only ones that are retried. */
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

export const transportExtraRules: Rule[] = [
  {
    id: 'ENV-ERR-MSG', level: 'SHOULD', obs: 'H', era: 'all', source: 'basic/index.mdx §Error Responses',
    title: 'error.message is one concise sentence',
    on: ['error'],
    check(o, report) {
      const m = o.json && isObject(o.json.error) ? o.json.error.message : undefined;
      if (typeof m === 'string' && (m.length > 300 || m.includes('\n'))) report('/error/message', `error message of ${m.length} characters${m.includes('\n') ? ' over several lines' : ''}; put details in error.data`);
    },
  },
  {
    id: 'ENV-META-RESERVED', level: 'desc', obs: 'H', era: 'all', source: 'basic/index.mdx §`_meta`',
    revisions: since('2025-06-18'),
    title: 'Keys under the MCP-reserved prefixes are ones MCP defines',
    on: ['json'],
    check(o, report) {
      reservedKeys(metaOf(o.json?.params), '/params/_meta', report);
      reservedKeys(metaOf(o.json?.result), '/result/_meta', report);
    },
  },
  {
    id: 'ENV-META-OTEL', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §`_meta`',
    revisions: since('2026-07-28'),
    title: 'traceparent follows W3C Trace Context',
    on: ['json'],
    check(o, report) {
      const meta = metaOf(o.json?.params);
      const tp = meta?.traceparent;
      if (tp !== undefined && (typeof tp !== 'string' || !TRACEPARENT.test(tp))) report('/params/_meta/traceparent', `traceparent ${JSON.stringify(tp)} is not a W3C Trace Context value`);
    },
  },
  {
    id: 'VER-32022-CONSISTENT', level: 'derived', obs: 'N', era: 'all', source: 'basic/versioning.mdx §Protocol Version Negotiation',
    revisions: since('2026-07-28'),
    title: '-32022 names the version that was sent, and does not list it as supported',
    on: ['error'],
    check(o, report) {
      const e = o.json && isObject(o.json.error) ? o.json.error : undefined;
      if (e?.code !== -32022 || !isObject(e.data) || !o.request) return;
      const sent = metaOf(o.request.json.params)?.['io.modelcontextprotocol/protocolVersion'] ?? (isObject(o.request.json.params) ? o.request.json.params.protocolVersion : undefined);
      if (typeof e.data.requested === 'string' && sent !== undefined && e.data.requested !== sent) report('/error/data/requested', `data.requested is ${e.data.requested} but the request asked for ${String(sent)}`);
      if (Array.isArray(e.data.supported) && typeof sent === 'string' && e.data.supported.includes(sent)) report('/error/data/supported', `${sent} was refused but is listed as supported`);
    },
  },
  {
    // stdio only: on stateless HTTP the answer that asked for input and the retry are separate
    // exchanges (separate cassette sessions), so their pairing is not visible per session.
    id: 'MRTR-NO-CROSS-USE', level: 'MUST NOT', obs: 'N', era: 'modern', transport: 'stdio', source: 'basic/patterns/mrtr.mdx §Client Requirements',
    title: 'inputResponses and requestState appear only on the retry of their own request',
    // `client-other`: String() of a method that is no string (an array) can still match.
    on: [...[...MRTR_METHODS].map((m): Interest => `client-request ${m}`), 'client-other'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server' || !o.json || !('id' in o.json) || !isObject(o.json.params)) return;
      if (!('inputResponses' in o.json.params) && !('requestState' in o.json.params)) return;
      // Only the three MRTR methods retry; tasks/update carries inputResponses by design.
      if (!MRTR_METHODS.has(String(o.json.method))) return;
      if (!state.issuedState.has(mrtrKey(o.json))) report('/params', 'inputResponses/requestState on a request that no input_required answer asked to retry');
    },
  },
  {
    id: 'MRTR-RESPONSES-COMPLETE', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/patterns/mrtr.mdx §Client Requirements',
    title: 'The retry answers every key of inputRequests',
    on: ['client-request'],
    check(o, report, state) {
      const r = retryOf(o, state);
      if (!r || r.issued.keys.length === 0) return;
      const answered = isObject(r.params.inputResponses) ? Object.keys(r.params.inputResponses) : [];
      const missing = r.issued.keys.filter((k) => !answered.includes(k));
      if (missing.length) report('/params/inputResponses', `the retry does not answer ${missing.join(', ')}`);
    },
  },
  {
    id: 'SUB-ID-TAG', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/patterns/subscriptions.mdx §Receiving Notifications',
    title: 'Listen-stream notifications carry the listen request id as subscriptionId',
    on: [...LISTEN_ONLY, 'notifications/subscriptions/acknowledged'].map((m): Interest => `server-notification ${m}`),
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.json || typeof o.json.method !== 'string' || 'id' in o.json) return;
      if (!LISTEN_ONLY.has(o.json.method) && o.json.method !== 'notifications/subscriptions/acknowledged') return;
      const sub = metaOf(o.json.params)?.['io.modelcontextprotocol/subscriptionId'];
      const listens = [...state.pending['client-to-server'].values()].filter((r) => r.method === 'subscriptions/listen');
      if (sub === undefined) return report('/params/_meta', `${o.json.method} without io.modelcontextprotocol/subscriptionId`);
      if (!listens.some((r) => idKey(r.json.id) === idKey(sub))) report('/params/_meta/io.modelcontextprotocol~1subscriptionId', `subscriptionId ${JSON.stringify(sub)} names no open subscriptions/listen request (same value and JSON type)`);
    },
  },
  {
    id: 'SUB-NO-REQSCOPED', level: 'MUST NOT', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'server/utilities/logging.mdx',
    title: 'No progress or log notifications on a listen stream',
    on: ['request notifications/progress', 'notification notifications/progress', 'request notifications/message', 'notification notifications/message'],
    check(o, report, state) {
      if (o.json && (o.json.method === 'notifications/progress' || o.json.method === 'notifications/message') && listenOf(o, state)) report('/method', `${String(o.json.method)} on a subscriptions/listen stream`);
    },
  },
  {
    id: 'SUB-CHANGE-ONLY-ON-LISTEN', level: 'desc', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'basic/patterns/subscriptions.mdx',
    title: 'list_changed and resources/updated arrive only on listen streams',
    on: [...LISTEN_ONLY].flatMap((m): Interest[] => [`request ${m}`, `notification ${m}`]),
    check(o, report, state) {
      if (!o.json || typeof o.json.method !== 'string' || !LISTEN_ONLY.has(o.json.method) || !o.msg.http) return;
      const carrier = state.exchangeRequest(o.msg.http.exchange);
      if (carrier && carrier.method !== 'subscriptions/listen') report('/method', `${o.json.method} on the stream of a ${carrier.method} request`);
    },
  },
  {
    id: 'SUB-ONLY-REQUESTED', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'basic/patterns/subscriptions.mdx §Opening a Stream',
    title: 'A subscription carries only the notification types its filter asked for',
    on: Object.keys(FILTER_OF).flatMap((m): Interest[] => [`server-request ${m}`, `server-notification ${m}`]),
    check(o, report, state) {
      // Own keys only: a method named like an Object.prototype member is no list_changed.
      if (o.msg.direction !== 'server-to-client' || !o.json || typeof o.json.method !== 'string' || !Object.hasOwn(FILTER_OF, o.json.method)) return;
      const sub = metaOf(o.json.params)?.['io.modelcontextprotocol/subscriptionId'];
      const listen = sub === undefined ? listenOf(o, state) : state.pending['client-to-server'].get(idKey(sub));
      if (!listen || listen.method !== 'subscriptions/listen') return;
      const filter = isObject(listen.json.params) && isObject(listen.json.params.notifications) ? listen.json.params.notifications : {};
      if (filter[FILTER_OF[o.json.method]!] !== true) report('/method', `${o.json.method}, which the subscription's filter did not ask for`);
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
    id: 'AUTH-NO-QUERY', level: 'MUST NOT', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Token Requirements',
    revisions: since('2025-03-26'),
    title: 'The access token never travels in the query string',
    on: ['client'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      // A path without a query has nothing to show now or later (the once is this rule's own).
      if (o.msg.direction !== 'client-to-server' || !x || !x.path.includes('?') || !state.once(`query:${x.id}`)) return;
      const query = new URL(x.path, 'http://x').searchParams;
      for (const key of ['access_token', 'token', 'api_key', 'apikey', 'auth']) if (query.has(key)) report('', `a credential-like query parameter ${key} in ${x.method} ${x.path.split('?')[0]}`);
    },
  },
  {
    id: 'AUTH-BEARER', level: 'MUST', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Token Requirements',
    revisions: since('2025-03-26'),
    title: 'Tokens travel as Authorization: Bearer',
    on: ['client'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server') return;
      const auth = state.header(o.msg, 'authorization');
      if (auth !== undefined && !/^Bearer\s/i.test(auth) && state.once(`bearer:${o.msg.http?.exchange}`)) report('', `Authorization uses the ${auth.split(' ')[0]} scheme, not Bearer`);
    },
  },
];
