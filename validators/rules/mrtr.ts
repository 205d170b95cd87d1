import { isObject, type Rule } from '../rule.js';
import { mrtrKey } from '../session-state.js';
import { clientCapabilities } from './envelope.js';

const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
const CAPABILITY_OF: Record<string, string> = { 'elicitation/create': 'elicitation', 'sampling/createMessage': 'sampling', 'roots/list': 'roots' };

function inputRequired(o: Parameters<Rule['check']>[0]): Record<string, unknown> | undefined {
  if (o.msg.direction !== 'server-to-client' || !o.json || !isObject(o.json.result)) return undefined;
  return o.json.result.resultType === 'input_required' ? o.json.result : undefined;
}

/** A client request that retries an earlier input_required answer: its params and what the
 * server handed out then. */
export function retryOf(o: Parameters<Rule['check']>[0], state: Parameters<Rule['check']>[2]) {
  if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json)) return undefined;
  const params = isObject(o.json.params) ? o.json.params : undefined;
  if (!params || !('inputResponses' in params || 'requestState' in params)) return undefined;
  const issued = state.issuedState.get(mrtrKey(o.json));
  return issued ? { params, issued, id: o.json.id } : undefined;
}

/** §14 of RULES.md: multi round-trip requests. */
export const mrtrRules: Rule[] = [
  {
    id: 'MRTR-METHODS', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'basic/patterns/mrtr.mdx §Supported Requests',
    title: 'input_required answers only tools/call, prompts/get and resources/read',
    on: ['server-input_required'],
    check(o, report) {
      if (inputRequired(o) && o.request && !MRTR_METHODS.has(o.request.method)) report('/result/resultType', `input_required in answer to ${o.request.method}`);
    },
  },
  {
    id: 'MRTR-NONEMPTY', level: 'MUST', obs: '1', era: 'modern', source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'An InputRequiredResult has inputRequests, requestState, or both',
    on: ['server-input_required'],
    check(o, report) {
      const r = inputRequired(o);
      if (r && !('inputRequests' in r) && !('requestState' in r)) report('/result', 'input_required with neither inputRequests nor requestState');
    },
  },
  {
    id: 'MRTR-DECLARED-ONLY', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'inputRequests holds only kinds the request declared in clientCapabilities',
    on: ['server-input_required'],
    check(o, report) {
      const r = inputRequired(o);
      if (!r || !o.request || !isObject(r.inputRequests)) return;
      const caps = clientCapabilities(o.request.json) ?? {};
      for (const [key, req] of Object.entries(r.inputRequests)) {
        const cap = isObject(req) ? CAPABILITY_OF[String(req.method)] : undefined;
        if (cap && !(cap in caps)) report(`/result/inputRequests/${key}`, `asks for ${String((req as { method: unknown }).method)}, but the request did not declare the ${cap} capability (answer -32021 instead)`);
      }
    },
  },
  {
    id: 'MRTR-ECHO-STATE', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/patterns/mrtr.mdx §Client Requirements',
    title: 'The retry echoes requestState exactly, or sends none if none was given',
    on: ['client-request'],
    check(o, report, state) {
      const r = retryOf(o, state);
      if (!r) return;
      const { params: p, issued } = r;
      if (issued.state === undefined && 'requestState' in p) report('/params/requestState', 'the retry sends a requestState, but the server gave none');
      else if (issued.state !== undefined && p.requestState !== issued.state) report('/params/requestState', `the retry's requestState ${JSON.stringify(p.requestState)} is not the ${JSON.stringify(issued.state)} the server returned`);
    },
  },
  {
    id: 'MRTR-NEW-ID', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/patterns/mrtr.mdx §Client Requirements',
    title: 'The retry has a new JSON-RPC id',
    on: ['client-request'],
    check(o, report, state) {
      const r = retryOf(o, state);
      // tools/call has a rule of its own (TOOLS-RETRY-NEW-ID).
      if (r && o.json?.method !== 'tools/call' && JSON.stringify(r.issued.id) === JSON.stringify(r.id)) report('/id', `the retry reuses id ${JSON.stringify(r.id)} of the request it retries`);
    },
  },
  {
    id: 'TOOLS-RETRY-NEW-ID', level: 'MUST', obs: 'N', era: 'modern', source: 'server/tools.mdx §Calling Tools',
    title: 'The MRTR retry of tools/call uses a new JSON-RPC id',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const r = retryOf(o, state);
      if (r && o.json?.method === 'tools/call' && JSON.stringify(r.issued.id) === JSON.stringify(r.id)) report('/id', `the tools/call retry reuses id ${JSON.stringify(r.id)} of the call it retries`);
    },
  },
];
