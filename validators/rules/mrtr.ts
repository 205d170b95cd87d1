/** RULES.md §14: multi round-trip requests (MRTR). */
import { type Interest, isObject, type Rule } from '../rule.js';
import { mrtrKey } from '../session-state.js';
import { canonicalWithMeta, clientCapabilities, clientRequest, MRTR_METHODS, params, result, retryOf } from './support/messages.js';
import { memoryOf } from './support/negotiated.js';

const CAPABILITY_OF: Record<string, string> = {
  'elicitation/create': 'elicitation',
  'sampling/createMessage': 'sampling',
  'roots/list': 'roots',
};

function inputRequired(o: Parameters<Rule['check']>[0]): Record<string, unknown> | undefined {
  if (o.msg.direction !== 'server-to-client' || !o.json || !isObject(o.json.result)) return undefined;
  return o.json.result.resultType === 'input_required' ? o.json.result : undefined;
}

// Raw JSON: JSON.parse keeps only the last of duplicate keys, so duplicates are found in the text.
/** The keys of the object at `path` in raw JSON text, duplicates kept (undefined if there is none). */
function rawKeysAt(text: string, path: readonly string[]): string[] | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    return JSON.parse(text.slice(start, ++i)) as string;
  };
  const value = (depth: number, onPath: boolean): string[] | undefined => {
    ws();
    const c = text[i];
    if (c === '"') return void str();
    if (c !== '{' && c !== '[') {
      while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
      return undefined;
    }
    i++;
    ws();
    const keys: string[] = [];
    let found: string[] | undefined;
    if (text[i] === (c === '{' ? '}' : ']')) i++;
    else {
      for (;;) {
        let key: string | undefined;
        if (c === '{') {
          ws();
          keys.push((key = str()));
          ws();
          i++; // ':'
        }
        found = value(depth + 1, onPath && depth < path.length && key === path[depth]) ?? found;
        ws();
        if (text[i++] !== ',') break;
      }
    }
    return onPath && depth === path.length && c === '{' ? keys : found;
  };
  try {
    return value(0, true);
  } catch {
    return undefined;
  }
}

export const mrtrRules: Rule[] = [
  {
    id: 'MRTR-METHODS',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Supported Requests',
    title: 'input_required answers only tools/call, prompts/get and resources/read',
    on: ['server-input_required'],
    check(o, report) {
      if (inputRequired(o) && o.request && !MRTR_METHODS.has(o.request.method))
        report('/result/resultType', `input_required in answer to ${o.request.method}`);
    },
  },
  {
    id: 'MRTR-NONEMPTY',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'An InputRequiredResult has inputRequests, requestState, or both',
    on: ['server-input_required'],
    check(o, report) {
      const r = inputRequired(o);
      if (r && !('inputRequests' in r) && !('requestState' in r))
        report('/result', 'input_required with neither inputRequests nor requestState');
    },
  },
  {
    id: 'MRTR-DECLARED-ONLY',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'inputRequests holds only kinds the request declared in clientCapabilities',
    on: ['server-input_required'],
    check(o, report) {
      const r = inputRequired(o);
      if (!r || !o.request || !isObject(r.inputRequests)) return;
      const caps = clientCapabilities(o.request.json) ?? {};
      for (const [key, req] of Object.entries(r.inputRequests)) {
        const cap = isObject(req) ? CAPABILITY_OF[String(req.method)] : undefined;
        if (cap && !(cap in caps))
          report(
            `/result/inputRequests/${key}`,
            `asks for ${String((req as { method: unknown }).method)}, but the request did not declare the ${cap} capability (answer -32021 instead)`,
          );
      }
    },
  },
  {
    id: 'MRTR-ECHO-STATE',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Client Requirements',
    title: 'The retry echoes requestState exactly, or sends none if none was given',
    on: ['client-request'],
    check(o, report, state) {
      const r = retryOf(o, state);
      if (!r) return;
      const { params: p, issued } = r;
      if (issued.state === undefined && 'requestState' in p)
        report('/params/requestState', 'the retry sends a requestState, but the server gave none');
      else if (issued.state !== undefined && p.requestState !== issued.state)
        report(
          '/params/requestState',
          `the retry's requestState ${JSON.stringify(p.requestState)} is not the ${JSON.stringify(issued.state)} the server returned`,
        );
    },
  },
  {
    id: 'MRTR-NEW-ID',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Client Requirements',
    title: 'The retry has a new JSON-RPC id',
    on: ['client-request'],
    check(o, report, state) {
      const r = retryOf(o, state);
      // tools/call has a rule of its own (TOOLS-RETRY-NEW-ID).
      if (r && o.json?.method !== 'tools/call' && JSON.stringify(r.issued.id) === JSON.stringify(r.id))
        report('/id', `the retry reuses id ${JSON.stringify(r.id)} of the request it retries`);
    },
  },
  {
    // stdio only: on stateless HTTP the answer that asked for input may have gone to another
    // server context (another caller, a token since refreshed) or before the recording began.
    id: 'MRTR-NO-CROSS-USE',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    transport: 'stdio',
    source: 'basic/patterns/mrtr.mdx §Client Requirements',
    title: 'inputResponses and requestState appear only on the retry of their own request',
    // `client-other`: String() of a method that is no string (an array) can still match.
    on: [...[...MRTR_METHODS].map((m): Interest => `client-request ${m}`), 'client-other'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server' || !o.json || !('id' in o.json) || !isObject(o.json.params)) return;
      if (!('inputResponses' in o.json.params) && !('requestState' in o.json.params)) return;
      // Only the three MRTR methods retry; tasks/update carries inputResponses by design.
      if (!MRTR_METHODS.has(String(o.json.method))) return;
      // A retry is the same method on the same tool, prompt or resource; whether it repeats the
      // arguments is MRTR-SAME-REQUEST's (a retry is not another request, and arguments in
      // another key order are the same arguments).
      const { method } = o.json;
      const target = canonicalWithMeta(o.json.params.name ?? o.json.params.uri ?? null);
      const asked = [...state.issuedState.keys()].some((key) => {
        const [m, name] = JSON.parse(key) as [unknown, unknown];
        return m === method && canonicalWithMeta(name) === target;
      });
      if (!asked)
        report(
          'requestState' in o.json.params ? '/params/requestState' : '/params/inputResponses',
          'inputResponses/requestState on a request that no input_required answer asked to retry',
        );
    },
  },
  {
    id: 'MRTR-RESPONSES-COMPLETE',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Client Requirements',
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
    id: 'MRTR-KEYS-UNIQUE',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'inputRequests has no duplicate keys in the raw JSON text',
    on: ['server-result'],
    check(o, report, state) {
      memoryOf(o, state);
      const r = result(o);
      // Without `raw` the frame was exactly JSON.stringify(json), which cannot repeat a key.
      if (!r || !isObject(r.inputRequests) || o.msg.raw === undefined) return;
      const keys = rawKeysAt(o.msg.raw, ['result', 'inputRequests']) ?? [];
      const repeated = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
      if (repeated.length)
        report(
          '/result/inputRequests',
          `inputRequests repeats ${repeated.map((k) => JSON.stringify(k)).join(', ')}; a JSON parser keeps only the last, so the other input request is lost`,
        );
    },
  },
  {
    id: 'MRTR-SAME-REQUEST',
    level: 'desc',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/mrtr.mdx §Multi Round-Trip Requests',
    title: 'A retry repeats the original method, name or uri, and arguments',
    on: ['client-request'],
    check(o, report, state) {
      memoryOf(o, state);
      const req = clientRequest(o);
      const p = params(req);
      if (!req || typeof p.requestState !== 'string' || p.requestState === '') return;
      const owners = [...state.issuedState.entries()].filter(([, v]) => v.state === p.requestState).map(([k]) => k);
      if (owners.length === 0 || owners.includes(mrtrKey(req))) return;
      const [method, name, args] = JSON.parse(owners[0]!) as [string, unknown, unknown];
      const changed = [
        method !== req.method ? 'method' : '',
        canonicalWithMeta(name) !== canonicalWithMeta(p.name ?? p.uri ?? null) ? (p.uri !== undefined ? 'uri' : 'name') : '',
        canonicalWithMeta(args) !== canonicalWithMeta(p.arguments ?? null) ? 'arguments' : '',
      ].filter(Boolean);
      if (changed.length)
        report(
          '/params',
          `this request carries the requestState given to ${method} ${JSON.stringify(name)} but changes its ${changed.join(' and ')}; a retry repeats the original request and only adds inputResponses and requestState`,
        );
    },
  },
];
