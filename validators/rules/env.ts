/** RULES.md §1: the JSON-RPC envelope and message model (ENV). */
import type { Direction } from '../../lib/message.js';
import { isObject, NO_BATCHES, type Rule, since } from '../rule.js';
import { idKey, mrtrKey } from '../session-state.js';
import { marks, pointer } from '../walk.js';
import { clientCapabilities, clientRequest, type Json, KEY, metaOf, MRTR_METHODS, params } from './support/messages.js';
import { idlessError, memoryOf, untypedOf } from './support/negotiated.js';
import { pointerToken } from '../../lib/json-pointer.js';

const isRpc = (m?: Record<string, unknown>): m is Record<string, unknown> => m !== undefined && m.jsonrpc === '2.0';

const onWire = (channel: string) => channel !== 'stderr';

function errorCode(json?: Record<string, unknown>): number | undefined {
  const e = json && isObject(json.error) ? json.error : undefined;
  return e && typeof e.code === 'number' ? e.code : undefined;
}

const EXEMPT = new Set(['traceparent', 'tracestate', 'baggage']);

/** The codes JSON-RPC 2.0 itself defines. */
const JSONRPC_CODES = new Set([-32700, -32600, -32601, -32602, -32603]);

/** The same few `_meta` keys come in every message: their verdicts are kept (a bounded cache). */
const keyVerdicts = new Map<string, boolean>();

function validKey(key: string): boolean {
  let v = keyVerdicts.get(key);
  if (v === undefined) {
    v = EXEMPT.has(key) || KEY.test(key);
    if (keyVerdicts.size >= 1024) keyVerdicts.clear();
    keyVerdicts.set(key, v);
  }
  return v;
}

const KNOWN_META = new Set([
  'protocolVersion',
  'clientCapabilities',
  'clientInfo',
  'serverInfo',
  'logLevel',
  'subscriptionId',
  'related-task',
]);

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** ENV-META-RESERVED on one `_meta`: keys whose prefix's second label is MCP's (`io.modelcontextprotocol/`, `x.mcp/`) but whose name MCP does not define. */
function reservedKeys(meta: Record<string, unknown> | undefined, at: string, report: Parameters<Rule['check']>[1]): void {
  if (!meta) return;
  for (const key of Object.keys(meta)) {
    if (isReserved(key)) report(`${at}/${pointerToken(key)}`, `${key} uses a prefix reserved for MCP but is not a key MCP defines`);
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

export const envRules: Rule[] = [
  {
    id: 'ENV-UTF8',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/transports/index.mdx §Messages',
    title: 'Every JSON-RPC message is UTF-8 encoded',
    on: ['nonjson'],
    check(o, report) {
      if (o.msg.rawBase64 !== undefined && onWire(o.msg.channel)) report('', `${o.msg.bytes} bytes that are not valid UTF-8`);
    },
  },
  {
    id: 'ENV-JSONRPC20',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Messages',
    title: 'Every message is JSON-RPC 2.0 with `jsonrpc: "2.0"`',
    on: ['json'],
    check(o, report) {
      if (o.json && o.json.jsonrpc !== '2.0') {
        report(
          '/jsonrpc',
          o.json.jsonrpc === undefined ? 'the `jsonrpc` member is missing' : `\`jsonrpc\` is ${JSON.stringify(o.json.jsonrpc)}, not "2.0"`,
        );
      }
    },
  },
  {
    id: 'ENV-NO-BATCH',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/transports/stdio.mdx',
    revisions: NO_BATCHES,
    title: 'Each message is a single JSON object, never a batch array',
    on: ['nonjson'],
    check(o, report) {
      if (o.msg.kind === 'batch')
        report('', `a JSON-RPC batch of ${(o.msg.json as unknown[]).length} messages; send one message per line or POST`);
    },
  },
  {
    id: 'ENV-REQ-ID-TYPE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Requests',
    title: 'A request id is a string or an integer, never null or a fraction',
    on: ['request'],
    check(o, report) {
      if (!isRpc(o.json) || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const id = o.json.id;
      if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))))
        report('/id', `request id ${JSON.stringify(id)} is not a string or an integer`);
    },
  },
  {
    id: 'ENV-REQ-ID-INFLIGHT',
    level: 'MUST NOT',
    obs: 'N',
    era: 'all',
    source: 'basic/index.mdx §Requests',
    title: 'A request id is not reused while the same sender still awaits it',
    on: ['request'],
    check(o, report, state) {
      if (!isRpc(o.json) || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const earlier = state.pending[o.msg.direction].get(idKey(o.json.id));
      if (earlier) report('/id', `id ${JSON.stringify(o.json.id)} is still in flight (message #${earlier.msg.seq}, ${earlier.method})`);
    },
  },
  {
    id: 'ENV-RES-ID-MATCH',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/index.mdx §Result Responses',
    title: 'A response carries the id of a pending request',
    on: ['response'],
    check(o, report) {
      if (!isRpc(o.json) || typeof o.json.method === 'string' || !('result' in o.json || 'error' in o.json)) return;
      if (o.request) return;
      // An unreadable request: the 2026-07-28 schema lets such an error omit the id or carry null (ENV-ERR-ID).
      if ('error' in o.json && (o.json.id === null || !('id' in o.json))) return;
      report('/id', `no request with id ${JSON.stringify(o.json.id)} is awaiting an answer`);
    },
  },
  {
    id: 'ENV-RES-RESULT',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Result Responses',
    title: 'A result response has a `result` object',
    on: ['result'],
    check(o, report) {
      if (isRpc(o.json) && 'result' in o.json && !('error' in o.json) && !isObject(o.json.result)) {
        report('/result', `\`result\` is ${JSON.stringify(o.json.result)}, not an object`);
      }
    },
  },
  {
    id: 'ENV-RESULTTYPE-PRESENT',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §ResultType',
    title: 'Every 2026-07-28 result has `resultType`',
    on: ['server-result'],
    check(o, report) {
      if (o.msg.direction === 'server-to-client' && isRpc(o.json) && isObject(o.json.result) && !('resultType' in o.json.result)) {
        report('/result/resultType', 'the result of a 2026-07-28 request has no `resultType` ("complete" or "input_required")');
      }
    },
  },
  {
    id: 'ENV-RESULTTYPE-KNOWN',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/index.mdx §ResultType',
    title: '`resultType` is "complete", "input_required" or a declared extension value',
    on: ['server-result'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !isRpc(o.json) || !isObject(o.json.result)) return;
      const t = o.json.result.resultType;
      if (t === undefined || t === 'complete' || t === 'input_required') return;
      const caps = o.request ? clientCapabilities(o.request.json) : undefined;
      if (t === 'task') return; // the tasks extension's value: TASKS-NEGOTIATED judges whether it was declared
      // An extension may add resultType values, and nothing says which: when the request declared
      // any extension, an unknown value may be its own, so only a request that declared none is judged.
      if (caps && isObject(caps.extensions) && Object.keys(caps.extensions).length > 0) return;
      report(
        '/result/resultType',
        `resultType ${JSON.stringify(t)} is neither "complete" nor "input_required", nor an extension the request declared`,
      );
    },
  },
  {
    id: 'ENV-ERR-SHAPE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Error Responses',
    title: '`error` has an integer `code` and a string `message`',
    on: ['error'],
    check(o, report) {
      if (!isRpc(o.json) || !('error' in o.json)) return;
      const e = o.json.error;
      if (!isObject(e)) return report('/error', '`error` is not an object');
      if (typeof e.code !== 'number' || !Number.isInteger(e.code))
        report('/error/code', `error code ${JSON.stringify(e.code)} is not an integer`);
      if (typeof e.message !== 'string') report('/error/message', 'error `message` is not a string');
    },
  },
  {
    id: 'ENV-RESULT-XOR-ERROR',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Messages',
    title: 'A response never carries both `result` and `error`',
    on: ['result'],
    check(o, report) {
      if (isRpc(o.json) && 'result' in o.json && 'error' in o.json) report('', 'the response has both `result` and `error`');
    },
  },
  {
    id: 'ENV-NOTIF-NO-ID',
    level: 'MUST NOT',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Notifications',
    title: 'A notification has no `id`',
    on: ['request'],
    check(o, report) {
      if (isRpc(o.json) && typeof o.json.method === 'string' && o.json.method.startsWith('notifications/') && 'id' in o.json) {
        report('/id', `${o.json.method} is a notification but carries an id`);
      }
    },
  },
  {
    id: 'ENV-NO-SERVER-REQ',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/patterns/index.mdx',
    title: 'A 2026-07-28 server never sends JSON-RPC requests',
    on: ['server-request'],
    check(o, report) {
      // On an SSE stream it is HTTP-SSE-NO-REQ's.
      if (
        o.msg.direction === 'server-to-client' &&
        o.msg.http?.part !== 'sse' &&
        isRpc(o.json) &&
        typeof o.json.method === 'string' &&
        'id' in o.json
      ) {
        report('', `server→client request ${o.json.method}; on 2026-07-28 it belongs in an InputRequiredResult's inputRequests`);
      }
    },
  },
  {
    id: 'ENV-NO-CLIENT-RESP',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/patterns/index.mdx',
    title: 'A 2026-07-28 client never sends JSON-RPC responses',
    on: ['client-response'],
    check(o, report) {
      if (
        o.msg.direction === 'client-to-server' &&
        isRpc(o.json) &&
        typeof o.json.method !== 'string' &&
        ('result' in o.json || 'error' in o.json)
      ) {
        report('', 'client→server response; 2026-07-28 clients answer input requests by retrying with inputResponses');
      }
    },
  },
  {
    id: 'ENV-ERRCODE-RESERVED',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §Error Codes',
    title: 'Codes -32020..-32099 are only -32020, -32021, -32022',
    on: ['error'],
    check(o, report) {
      const code = errorCode(o.json);
      if (
        code !== undefined &&
        code <= -32020 &&
        code >= -32099 &&
        code !== -32020 &&
        code !== -32021 &&
        code !== -32022 &&
        code !== -32042
      ) {
        report('/error/code', `error code ${code} is reserved to the MCP specification`);
      }
    },
  },
  {
    id: 'ENV-ERRCODE-REMOVED',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §Error Codes',
    title: 'A 2026-07-28 server never emits -32002 or -32042',
    on: ['server-error'],
    check(o, report) {
      const code = errorCode(o.json);
      // -32002 on resources/read has its own rule (RES-NOTFOUND-NOT-32002).
      if (o.msg.direction === 'server-to-client' && (code === -32042 || (code === -32002 && o.request?.method !== 'resources/read'))) {
        report(
          '/error/code',
          code === -32002
            ? '-32002 (resource not found) is gone in 2026-07-28; use -32602'
            : '-32042 (URL elicitation required) is gone in 2026-07-28; use input_required',
        );
      }
    },
  },
  {
    id: 'ENV-SERVERINFO',
    level: 'SHOULD',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §`_meta`',
    title: 'Every result carries `_meta["io.modelcontextprotocol/serverInfo"]`',
    on: ['server-result'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !isRpc(o.json) || !isObject(o.json.result)) return;
      const meta = o.json.result._meta;
      if (!isObject(meta) || !isObject(meta['io.modelcontextprotocol/serverInfo']))
        report('/result/_meta', 'the result has no io.modelcontextprotocol/serverInfo in `_meta`');
    },
  },
  {
    id: 'ENV-META-KEYFORMAT',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §`_meta`',
    revisions: since('2025-06-18'),
    title: '`_meta` keys are an optional dotted prefix with "/" and a name of [A-Za-z0-9._-]',
    on: ['json'],
    check(o, report) {
      if (!o.json) return;
      for (const [meta, at] of marks(o.json).metas) {
        for (const key of Object.keys(meta))
          if (!validKey(key)) report(`${pointer(at)}/${pointerToken(key)}`, `_meta key ${JSON.stringify(key)} is not a valid key`);
      }
    },
  },
  {
    id: 'ENV-ERRCODE-LEGACYRANGE',
    level: 'SHOULD NOT',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §Error Codes',
    title: 'New implementations avoid -32000..-32019',
    on: ['error'],
    check(o, report) {
      const code = o.json && isObject(o.json.error) ? o.json.error.code : undefined;
      if (typeof code === 'number' && code <= -32000 && code >= -32019 && code !== -32002)
        report('/error/code', `error code ${code} is in -32000..-32019, to which receivers may give no meaning`);
    },
  },
  {
    id: 'ENV-ERRCODE-APPDEF',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Error Codes',
    title: 'Application-defined codes lie outside -32768..-32000',
    on: ['error'],
    check(o, report) {
      const code = o.json && isObject(o.json.error) ? o.json.error.code : undefined;
      if (typeof code === 'number' && code >= -32768 && code <= -32100 && !JSONRPC_CODES.has(code))
        report('/error/code', `error code ${code} is inside the range JSON-RPC reserves; application codes lie outside -32768..-32000`);
    },
  },
  {
    id: 'ENV-ICON-SCHEME',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §`icons`',
    revisions: since('2025-11-25'),
    title: 'Icon src is https: or data:',
    on: ['server-json'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      for (const [icon, at] of marks(o.json).icons) {
        const src = isObject(icon) ? icon.src : undefined;
        if (typeof src === 'string' && !/^(https|data):/i.test(src))
          report(`${pointer(at)}/src`, `icon src ${JSON.stringify(src.slice(0, 60))} is neither https: nor data:; clients must reject it`);
      }
    },
  },
  {
    id: 'ENV-ERR-MSG',
    level: 'SHOULD',
    obs: 'H',
    era: 'all',
    source: 'basic/index.mdx §Error Responses',
    title: 'error.message is one concise sentence',
    on: ['error'],
    check(o, report) {
      const m = o.json && isObject(o.json.error) ? o.json.error.message : undefined;
      if (typeof m === 'string' && (m.length > 300 || m.includes('\n')))
        report(
          '/error/message',
          `error message of ${m.length} characters${m.includes('\n') ? ' over several lines' : ''}; put details in error.data`,
        );
    },
  },
  {
    id: 'ENV-META-RESERVED',
    level: 'desc',
    obs: 'H',
    era: 'all',
    source: 'basic/index.mdx §`_meta`',
    revisions: since('2025-06-18'),
    title: 'Keys under the MCP-reserved prefixes are ones MCP defines',
    on: ['json'],
    check(o, report) {
      reservedKeys(metaOf(o.json?.params), '/params/_meta', report);
      reservedKeys(metaOf(o.json?.result), '/result/_meta', report);
    },
  },
  {
    id: 'ENV-META-OTEL',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §`_meta`',
    revisions: since('2026-07-28'),
    title: 'traceparent follows W3C Trace Context',
    on: ['json'],
    check(o, report) {
      const meta = metaOf(o.json?.params);
      const tp = meta?.traceparent;
      if (tp !== undefined && (typeof tp !== 'string' || !TRACEPARENT.test(tp)))
        report('/params/_meta/traceparent', `traceparent ${JSON.stringify(tp)} is not a W3C Trace Context value`);
    },
  },
  {
    // No `on`: this rule runs on every message (era all, any transport), and so `memoryOf`
    // (support/negotiated.ts) sees every message, which it must (it counts each side's frames);
    // the other rules that read it run only on what they judge.
    id: 'ENV-RESULTTYPE-LEGACY',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/index.mdx §ResultType',
    title: 'A result without resultType is complete: the client does not retry it as input_required',
    check(o, report, state) {
      const m = memoryOf(o, state);
      const req = clientRequest(o);
      const p = params(req);
      if (
        !req ||
        !MRTR_METHODS.has(String(req.method)) ||
        !('inputResponses' in p || 'requestState' in p) ||
        !untypedOf(m).has(mrtrKey(req))
      )
        return;
      report(
        '/params',
        `${String(req.method)} is retried with ${'inputResponses' in p ? 'inputResponses' : 'requestState'} after an answer without resultType; an absent resultType means "complete", so there is nothing to retry`,
      );
    },
  },
  {
    id: 'ENV-ERR-ID',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/index.mdx §Error Responses',
    title: "An error response carries the request's id unless the request was unreadable",
    on: ['server-error'],
    check(o, report, state) {
      const m = memoryOf(o, state);
      if (o.msg.direction !== 'server-to-client' || !idlessError(o)) return;
      const code = (o.json!.error as Json).code;
      if (o.msg.http) {
        // Transport-level refusals (a bad Origin, an unknown session) may come without an id; judge
        // only errors produced after the body was read: a 2xx answer, or a body-level code.
        const x = state.exchanges.get(o.msg.http.exchange);
        const req = state.exchangeRequest(o.msg.http.exchange);
        const bodyLevel =
          (x?.status !== undefined && x.status >= 200 && x.status < 300) || [-32020, -32021, -32022, -32602].includes(code as number);
        if (req && bodyLevel && x?.outcome !== 'refused')
          report('/id', `the error has no id, but it answers ${req.method} with id ${JSON.stringify(req.json.id)}, which was readable`);
        return;
      }
      // stdio: excused by an unreadable client frame; after a notification it may answer that
      // instead (ENV-NOTIF-NO-REPLY), so only judge when the client's last frame was a request.
      const waiting = [...state.pending['client-to-server'].values()];
      if (m.unreadable > 0 || m.lastKind['client-to-server'] !== 'request' || waiting.length === 0) return;
      report(
        '/id',
        `the error has no id, yet every client frame had a readable id (awaiting: ${waiting.map((r) => `${r.method} ${JSON.stringify(r.json.id)}`).join(', ')})`,
      );
    },
  },
  {
    // stdio: an id-less error right after a notification, with nothing else awaiting an answer.
    // On HTTP, HTTP-NOTIF-202 judges what a notification POST gets back, and a result (which
    // carries an id) that answers nothing is ENV-RES-ID-MATCH.
    id: 'ENV-NOTIF-NO-REPLY',
    level: 'MUST NOT',
    obs: 'N',
    era: 'all',
    transport: 'stdio',
    source: 'basic/index.mdx §Notifications',
    title: 'Nobody answers a notification',
    on: ['error'],
    check(o, report, state) {
      const m = memoryOf(o, state);
      if (!idlessError(o)) return;
      const other: Direction = o.msg.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server';
      const last = m.lastNotification[other];
      if (
        m.lastKind[other] !== 'notification' ||
        !last ||
        state.pending[other].size > 0 ||
        (other === 'client-to-server' && m.unreadable > 0)
      )
        return;
      report('/error', `an error answering the ${last.method} notification (message #${last.seq}); notifications get no response`);
    },
  },
];
