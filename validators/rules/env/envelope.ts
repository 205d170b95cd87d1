/** ENV rules on the JSON-RPC envelope: encoding, version tag, batches, ids, which side may send what, notifications. */
import type { Direction } from '../../../lib/message.js';
import { isObject, NO_BATCHES, type Rule } from '../../rule.js';
import { idKey } from '../../session-state.js';
import { idlessError, memoryOf } from '../support/negotiated.js';
import { isRpc, onWire } from './support.js';

export const envelopeRules: Rule[] = [
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
      report('', `an error answering the ${last.method} notification (message #${last.seq}); notifications get no response`);
    },
  },
];
