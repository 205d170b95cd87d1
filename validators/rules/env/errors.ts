/** ENV rules on error responses: shape, id, message and the error code ranges. */
import { isObject, type Rule } from '../../rule.js';
import type { Json } from '../support/messages.js';
import { idlessError, memoryOf } from '../support/negotiated.js';
import { isRpc, errorCode, JSONRPC_CODES } from './support.js';

export const errorRules: Rule[] = [
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
    // A 2025-era server turning a 2026-07-28 attempt away (-32000 to a discover, a 400 to a
    // probe) is judged by its own era (validators/legacy-rejection.ts): this rule never sees it.
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
];
