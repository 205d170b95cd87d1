import { isObject, NO_BATCHES, type Rule } from '../rule.js';
import { idKey } from '../session-state.js';

const isRpc = (m?: Record<string, unknown>): m is Record<string, unknown> => m !== undefined && m.jsonrpc === '2.0';
const onWire = (channel: string) => channel !== 'stderr';

/** §1 of RULES.md: the JSON-RPC envelope. */
export const envelopeRules: Rule[] = [
  {
    id: 'ENV-UTF8', level: 'MUST', obs: '1', era: 'all', source: 'basic/transports/index.mdx §Messages',
    title: 'Every JSON-RPC message is UTF-8 encoded',
    on: ['nonjson'],
    check(o, report) {
      if (o.msg.rawBase64 !== undefined && onWire(o.msg.channel)) report('', `${o.msg.bytes} bytes that are not valid UTF-8`);
    },
  },
  {
    id: 'ENV-JSONRPC20', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §Messages',
    title: 'Every message is JSON-RPC 2.0 with `jsonrpc: "2.0"`',
    on: ['json'],
    check(o, report) {
      if (o.json && o.json.jsonrpc !== '2.0') {
        report('/jsonrpc', o.json.jsonrpc === undefined ? 'the `jsonrpc` member is missing' : `\`jsonrpc\` is ${JSON.stringify(o.json.jsonrpc)}, not "2.0"`);
      }
    },
  },
  {
    id: 'ENV-NO-BATCH', level: 'MUST', obs: '1', era: 'all', source: 'basic/transports/stdio.mdx',
    revisions: NO_BATCHES,
    title: 'Each message is a single JSON object, never a batch array',
    on: ['nonjson'],
    check(o, report) {
      if (o.msg.kind === 'batch') report('', `a JSON-RPC batch of ${(o.msg.json as unknown[]).length} messages; send one message per line or POST`);
    },
  },
  {
    id: 'ENV-REQ-ID-TYPE', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §Requests',
    title: 'A request id is a string or an integer, never null or a fraction',
    on: ['request'],
    check(o, report) {
      if (!isRpc(o.json) || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const id = o.json.id;
      if (!(typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)))) report('/id', `request id ${JSON.stringify(id)} is not a string or an integer`);
    },
  },
  {
    id: 'ENV-REQ-ID-INFLIGHT', level: 'MUST NOT', obs: 'N', era: 'all', source: 'basic/index.mdx §Requests',
    title: 'A request id is not reused while the same sender still awaits it',
    on: ['request'],
    check(o, report, state) {
      if (!isRpc(o.json) || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const earlier = state.pending[o.msg.direction].get(idKey(o.json.id));
      if (earlier) report('/id', `id ${JSON.stringify(o.json.id)} is still in flight (message #${earlier.msg.seq}, ${earlier.method})`);
    },
  },
  {
    id: 'ENV-RES-ID-MATCH', level: 'MUST', obs: 'N', era: 'all', source: 'basic/index.mdx §Result Responses',
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
    id: 'ENV-RES-RESULT', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §Result Responses',
    title: 'A result response has a `result` object',
    on: ['result'],
    check(o, report) {
      if (isRpc(o.json) && 'result' in o.json && !('error' in o.json) && !isObject(o.json.result)) {
        report('/result', `\`result\` is ${JSON.stringify(o.json.result)}, not an object`);
      }
    },
  },
  {
    id: 'ENV-RESULTTYPE-PRESENT', level: 'MUST', obs: '1', era: 'modern', source: 'basic/index.mdx §ResultType',
    title: 'Every 2026-07-28 result has `resultType`',
    on: ['server-result'],
    check(o, report) {
      if (o.msg.direction === 'server-to-client' && isRpc(o.json) && isObject(o.json.result) && !('resultType' in o.json.result)) {
        report('/result/resultType', 'the result of a 2026-07-28 request has no `resultType` ("complete" or "input_required")');
      }
    },
  },
  {
    id: 'ENV-RESULTTYPE-KNOWN', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/index.mdx §ResultType',
    title: '`resultType` is "complete", "input_required" or a declared extension value',
    on: ['server-result'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !isRpc(o.json) || !isObject(o.json.result)) return;
      const t = o.json.result.resultType;
      if (t === undefined || t === 'complete' || t === 'input_required') return;
      const caps = o.request ? clientCapabilities(o.request.json) : undefined;
      const extensions = caps && isObject(caps.extensions) ? Object.keys(caps.extensions) : [];
      if (t === 'task') return; // the tasks extension's value: TASKS-NEGOTIATED judges whether it was declared
      report('/result/resultType', `resultType ${JSON.stringify(t)} is neither "complete" nor "input_required", nor an extension the request declared`);
    },
  },
  {
    id: 'ENV-ERR-SHAPE', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §Error Responses',
    title: '`error` has an integer `code` and a string `message`',
    on: ['error'],
    check(o, report) {
      if (!isRpc(o.json) || !('error' in o.json)) return;
      const e = o.json.error;
      if (!isObject(e)) return report('/error', '`error` is not an object');
      if (typeof e.code !== 'number' || !Number.isInteger(e.code)) report('/error/code', `error code ${JSON.stringify(e.code)} is not an integer`);
      if (typeof e.message !== 'string') report('/error/message', 'error `message` is not a string');
    },
  },
  {
    id: 'ENV-RESULT-XOR-ERROR', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §Messages',
    title: 'A response never carries both `result` and `error`',
    on: ['result'],
    check(o, report) {
      if (isRpc(o.json) && 'result' in o.json && 'error' in o.json) report('', 'the response has both `result` and `error`');
    },
  },
  {
    id: 'ENV-NOTIF-NO-ID', level: 'MUST NOT', obs: '1', era: 'all', source: 'basic/index.mdx §Notifications',
    title: 'A notification has no `id`',
    on: ['request'],
    check(o, report) {
      if (isRpc(o.json) && typeof o.json.method === 'string' && o.json.method.startsWith('notifications/') && 'id' in o.json) {
        report('/id', `${o.json.method} is a notification but carries an id`);
      }
    },
  },
  {
    id: 'ENV-NO-SERVER-REQ', level: 'MUST NOT', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/patterns/index.mdx',
    title: 'A 2026-07-28 server never sends JSON-RPC requests',
    on: ['server-request'],
    check(o, report) {
      // On an SSE stream it is HTTP-SSE-NO-REQ's.
      if (o.msg.direction === 'server-to-client' && o.msg.http?.part !== 'sse' && isRpc(o.json) && typeof o.json.method === 'string' && 'id' in o.json) {
        report('', `server→client request ${o.json.method}; on 2026-07-28 it belongs in an InputRequiredResult's inputRequests`);
      }
    },
  },
  {
    id: 'ENV-NO-CLIENT-RESP', level: 'MUST NOT', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/patterns/index.mdx',
    title: 'A 2026-07-28 client never sends JSON-RPC responses',
    on: ['client-response'],
    check(o, report) {
      if (o.msg.direction === 'client-to-server' && isRpc(o.json) && typeof o.json.method !== 'string' && ('result' in o.json || 'error' in o.json)) {
        report('', 'client→server response; 2026-07-28 clients answer input requests by retrying with inputResponses');
      }
    },
  },
  {
    id: 'ENV-ERRCODE-RESERVED', level: 'MUST NOT', obs: '1', era: 'modern', source: 'basic/index.mdx §Error Codes',
    title: 'Codes -32020..-32099 are only -32020, -32021, -32022',
    on: ['error'],
    check(o, report) {
      const code = errorCode(o.json);
      if (code !== undefined && code <= -32020 && code >= -32099 && code !== -32020 && code !== -32021 && code !== -32022 && code !== -32042) {
        report('/error/code', `error code ${code} is reserved to the MCP specification`);
      }
    },
  },
  {
    id: 'ENV-ERRCODE-REMOVED', level: 'MUST NOT', obs: '1', era: 'modern', source: 'basic/index.mdx §Error Codes',
    title: 'A 2026-07-28 server never emits -32002 or -32042',
    on: ['server-error'],
    check(o, report) {
      const code = errorCode(o.json);
      // -32002 on resources/read has its own rule (RES-NOTFOUND-NOT-32002).
      if (o.msg.direction === 'server-to-client' && (code === -32042 || (code === -32002 && o.request?.method !== 'resources/read'))) {
        report('/error/code', code === -32002 ? '-32002 (resource not found) is gone in 2026-07-28; use -32602' : '-32042 (URL elicitation required) is gone in 2026-07-28; use input_required');
      }
    },
  },
  {
    id: 'ENV-SERVERINFO', level: 'SHOULD', obs: '1', era: 'modern', source: 'basic/index.mdx §`_meta`',
    title: 'Every result carries `_meta["io.modelcontextprotocol/serverInfo"]`',
    on: ['server-result'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !isRpc(o.json) || !isObject(o.json.result)) return;
      const meta = o.json.result._meta;
      if (!isObject(meta) || !isObject(meta['io.modelcontextprotocol/serverInfo'])) report('/result/_meta', 'the result has no io.modelcontextprotocol/serverInfo in `_meta`');
    },
  },
];

function errorCode(json?: Record<string, unknown>): number | undefined {
  const e = json && isObject(json.error) ? json.error : undefined;
  return e && typeof e.code === 'number' ? e.code : undefined;
}

export function clientCapabilities(request: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = isObject(request.params) ? request.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const caps = meta?.['io.modelcontextprotocol/clientCapabilities'];
  return isObject(caps) ? caps : undefined;
}
