/** ENV rules on results: the 2026-07-28 `resultType` and how legacy results are read. */
import { isObject, type Rule } from '../../rule.js';
import { clientCapabilities, clientRequest, MRTR_METHODS, params } from '../support/messages.js';
import { memoryOf, untypedKey, untypedOf } from '../support/negotiated.js';
import { isRpc } from './support.js';

export const resultRules: Rule[] = [
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
        !untypedOf(m).has(untypedKey(req))
      )
        return;
      report(
        '/params',
        `${String(req.method)} is retried with ${'inputResponses' in p ? 'inputResponses' : 'requestState'} after an answer without resultType; an absent resultType means "complete", so there is nothing to retry`,
      );
    },
  },
];
