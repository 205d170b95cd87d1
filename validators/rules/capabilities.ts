import { isObject, since, type Interest, type Rule } from '../rule.js';
import { LIST_KEYS, seenAt } from '../session-state.js';
import { refusable } from './version.js';

const CAPABILITY_OF_LIST: Record<string, string> = { 'tools/list': 'tools', 'resources/list': 'resources', 'prompts/list': 'prompts' };
const RULE_OF_LIST: Record<string, string> = { 'tools/list': 'TOOLS-LIST-INVARIANT', 'resources/list': 'RES-LIST-INVARIANT', 'prompts/list': 'PROMPTS-LIST-INVARIANT' };

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).filter((k) => k !== '_meta').sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}`;
  return JSON.stringify(v);
}

const nameOf = (item: unknown): string => (isObject(item) ? String(item.name ?? item.uri ?? '') : '');

/** A later first-page answer of a list method, compared with the previous one the server
 * context holds; `ownSession`: only one of this session (on stateless HTTP, whether a list may
 * change between exchanges is STATE-LIST-INVARIANT's, which weighs the time and the requests in
 * between). */
function relist(o: Parameters<Rule['check']>[0], state: Parameters<Rule['check']>[2], method: string, ownSession: boolean) {
  if (o.request?.method !== method || !o.json || !isObject(o.json.result)) return undefined;
  const key = LIST_KEYS[method]!;
  const items = o.json.result[key];
  if (!Array.isArray(items) || (isObject(o.request.json.params) && o.request.json.params.cursor !== undefined)) return undefined;
  const before = state.lastList.get(method);
  if (!before || state.listChanged.has(key)) return undefined; // announced with list_changed: allowed
  if (ownSession && before.session !== state.session.id) return undefined;
  // Lists MAY differ with the Authorization presented.
  if ((state.header(o.request.msg, 'authorization') ?? undefined) !== before.authorization) return undefined;
  return { items, before };
}

function invariance(method: string): Rule {
  return {
    id: RULE_OF_LIST[method]!, level: 'MUST NOT', obs: 'N', era: 'all', source: `server/${method.split('/')[0]}.mdx §Capabilities`,
    // Earlier revisions let lists change within a session (list_changed was optional).
    revisions: since('2026-07-28'),
    title: `${method} does not change between calls or as a side effect of other requests`,
    on: [`result ${method}`],
    check(o, report, state) {
      const r = relist(o, state, method, true);
      if (!r) return;
      const was = new Map(r.before.items.map((i) => [nameOf(i), canonical(i)]));
      const now = new Map(r.items.map((i) => [nameOf(i), canonical(i)]));
      const added = [...now.keys()].filter((k) => !was.has(k));
      const removed = [...was.keys()].filter((k) => !now.has(k));
      const changed = [...now.keys()].filter((k) => was.has(k) && was.get(k) !== now.get(k));
      if (added.length || removed.length || changed.length) {
        const parts = [added.length ? `added ${added.join(', ')}` : '', removed.length ? `removed ${removed.join(', ')}` : '', changed.length ? `changed ${changed.join(', ')}` : ''].filter(Boolean);
        report(`/result/${LIST_KEYS[method]}`, `${method} differs from its answer in ${seenAt(r.before, state)} without a list_changed notification: ${parts.join('; ')}`);
      }
    },
  };
}

/** A server feature seen in use although the capabilities it declared (in this session) lack it. */
function declares(id: string, capability: string, what: string, used: (o: Parameters<Rule['check']>[0]) => boolean, on: Interest[], source: string, revisions?: Rule['revisions']): Rule {
  return {
    id, level: 'MUST', obs: 'N', era: 'all', source, ...(revisions ? { revisions } : {}),
    title: `A server that ${what} declares the ${capability} capability`,
    on,
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !state.serverCapabilities || capability in state.serverCapabilities || !used(o)) return;
      report('', `the server ${what}, but its declared capabilities (${Object.keys(state.serverCapabilities).join(', ') || 'none'}) lack ${capability}`);
    },
  };
}
const answered = (method: string) => (o: Parameters<Rule['check']>[0]) => o.request?.method === method && o.json !== undefined && isObject(o.json.result);

/** §4 (capabilities) and the list rules of §5-7 of RULES.md. */
export const capabilityRules: Rule[] = [
  declares('CAP-DECL-TOOLS', 'tools', 'answers tools/list', answered('tools/list'), ['server-result tools/list'], 'server/tools.mdx §Capabilities'),
  declares('CAP-DECL-RESOURCES', 'resources', 'answers resources/list', answered('resources/list'), ['server-result resources/list'], 'server/resources.mdx §Capabilities'),
  declares('CAP-DECL-PROMPTS', 'prompts', 'answers prompts/list', answered('prompts/list'), ['server-result prompts/list'], 'server/prompts.mdx §Capabilities'),
  declares('CAP-DECL-COMPLETIONS', 'completions', 'answers completion/complete', answered('completion/complete'), ['server-result completion/complete'], 'server/utilities/completion.mdx §Capabilities', since('2025-03-26')),
  declares('CAP-DECL-LOGGING', 'logging', 'sends notifications/message', (o) => o.json?.method === 'notifications/message', ['server-request notifications/message', 'server-notification notifications/message'], 'server/utilities/logging.mdx §Capabilities'),
  {
    id: 'CAP-DECLARED-ANSWERS', level: 'MUST', obs: 'N', era: 'all', source: 'server/tools.mdx §Capabilities',
    title: 'A declared tools/resources/prompts capability answers its */list with a result, never an error',
    on: ['error tools/list', 'error resources/list', 'error prompts/list'],
    check(o, report, state) {
      const method = o.request?.method;
      const cap = method ? CAPABILITY_OF_LIST[method] : undefined;
      if (!cap || !o.json || !isObject(o.json.error) || !state.serverCapabilities || !(cap in state.serverCapabilities)) return;
      if (refusable(o.request!, state)) return; // a refused invalid request says nothing of the capability
      report('/error', `the server declared the ${cap} capability but answered ${method} with error ${String(o.json.error.code)}`);
    },
  },
  invariance('tools/list'),
  invariance('resources/list'),
  invariance('prompts/list'),
  {
    id: 'TOOLS-LIST-ORDER', level: 'SHOULD', obs: 'N', era: 'all', source: 'server/tools.mdx §Capabilities',
    revisions: since('2026-07-28'),
    title: 'Tools come in the same order while the set is unchanged',
    on: ['result tools/list'],
    check(o, report, state) {
      const r = relist(o, state, 'tools/list', false);
      if (!r) return;
      const was = r.before.items.map(nameOf);
      const now = r.items.map(nameOf);
      if (was.length === now.length && [...was].sort().join('\u0000') === [...now].sort().join('\u0000') && was.join('\u0000') !== now.join('\u0000')) {
        report('/result/tools', `same tools as in ${seenAt(r.before, state)}, in a different order`);
      }
    },
  },
  {
    id: 'TOOLS-ERR-EXECUTION', level: 'SHOULD', obs: 'N', era: 'all', source: 'server/tools.mdx §Error Handling',
    title: 'Errors from inside a tool are isError results, not JSON-RPC errors',
    on: ['error tools/call'],
    check(o, report, state) {
      if (o.request?.method !== 'tools/call' || !o.json || !isObject(o.json.error)) return;
      const params = isObject(o.request.json.params) ? o.request.json.params : {};
      const code = o.json.error.code;
      if (typeof params.name !== 'string' || !state.tools.has(params.name)) return; // unknown tool: a JSON-RPC error is right
      if (code === -32601 || code === -32020 || code === -32021 || code === -32022) return;
      // Before SEP-1303 (2025-11-25) invalid arguments were a protocol error.
      if (code === -32602 && o.revision !== undefined && o.revision < '2025-11-25') return;
      if (refusable(o.request, state)) return; // an invalid request is a JSON-RPC error (TOOLS-ERR-PROTOCOL)
      report('/error', `${params.name} is a listed tool, yet its failure came back as JSON-RPC error ${String(code)}; tool failures and invalid arguments are results with isError: true (SEP-1303)`);
    },
  },
];
