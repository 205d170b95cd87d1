import { isObject, type Interest, type Rule } from '../rule.js';
import { canonical, memory, type O } from './features-common.js';

const PAGINATED = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);
const CACHEABLE = new Set([...PAGINATED, 'resources/read', 'server/discover']);
/** The list_changed kind that invalidates each list. */
const KIND: Record<string, string> = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resources' };
/** Three re-fetches in a row, each right when the previous answer went stale, make a TTL timer. */
const POLL_STREAK = 3;
const RESULT_ONLY = new Set(['_meta', 'ttlMs', 'cacheScope', 'resultType']);

interface Caching {
  /** Per method, the message whose page ended with `nextCursor: ""`, until the client follows it. */
  emptyAt: Map<string, number>;
  /** Methods whose non-empty cursors the client followed: it does paginate. */
  follows: Set<string>;
  /** `method \0 cursor` → the cacheScope of the traversal that handed the cursor out. */
  traversals: Map<string, { scope: unknown; seq: number }>;
  /** Earlier answers per request: the Authorization they were given for, and until when they are fresh. */
  answers: Map<string, Answer[]>;
  /** Per request, when its last answer came and how long it stayed fresh, and the on-time streak. */
  polls: Map<string, { answerT?: number; ttl?: number; streak: number }>;
}

/** An answer, its comparable body (canonical JSON) made only when a comparison needs it. */
interface Answer {
  auth?: string;
  result: Record<string, unknown>;
  body?: string;
  seq: number;
  freshUntil: number;
}
const bodyOf = (a: Answer): string => (a.body ??= canonical(a.result, RESULT_ONLY));

const cursorOf = (request: Record<string, unknown>): unknown => (isObject(request.params) ? request.params.cursor : undefined);
/** What makes two requests the same question (method and canonical params); the last one is
 * kept, as the rules of this file ask about the same request in turn. */
let lastKey: { request: Record<string, unknown>; key: string } | undefined;
function requestKey(request: Record<string, unknown>): string {
  if (lastKey?.request !== request) lastKey = { request, key: `${String(request.method)}\0${canonical(request.params ?? {})}` };
  return lastKey.key;
}
const completeResult = (o: O) => (o.json && isObject(o.json.result) && o.json.result.resultType !== 'input_required' ? o.json.result : undefined);

/** The streak of re-fetches sent exactly when the previous answer went stale, this one included. */
function streakOf(t: Caching, o: O, key: string): number {
  const p = t.polls.get(key);
  if (!p || p.answerT === undefined || !p.ttl) return 0;
  const late = o.msg.t - p.answerT - p.ttl;
  return late >= 0 && late <= Math.max(50, p.ttl * 0.02) ? p.streak + 1 : 0;
}

const recall = memory<Caching>(
  () => ({ emptyAt: new Map(), follows: new Set(), traversals: new Map(), answers: new Map(), polls: new Map() }),
  (t, o, state) => {
    const json = o.json;
    if (!json) return undefined;
    if (o.msg.direction === 'client-to-server' && typeof json.method === 'string' && 'id' in json) {
      const method = json.method;
      const cursor = cursorOf(json);
      const restart = cursor === undefined || cursor === '';
      // Only cacheable requests are keyed (canonical JSON); others teach at most the cursor facts.
      if (!CACHEABLE.has(method)) {
        if (restart ? !t.emptyAt.has(method) : typeof cursor !== 'string' || t.follows.has(method)) return undefined;
        return () => {
          if (restart) t.emptyAt.delete(method);
          else t.follows.add(method);
        };
      }
      const key = requestKey(json);
      const streak = streakOf(t, o, key);
      return () => {
        if (restart) t.emptyAt.delete(method);
        if (typeof cursor === 'string' && cursor !== '') t.follows.add(method);
        t.polls.set(key, { ...t.polls.get(key), streak });
      };
    }
    const r = completeResult(o);
    if (!r || !o.request || !CACHEABLE.has(o.request.method)) return undefined;
    const req = o.request;
    const method = req.method;
    const auth = state.header(req.msg, 'authorization');
    return () => {
      if (r.nextCursor === '') t.emptyAt.set(method, o.msg.seq);
      if (typeof r.nextCursor === 'string') {
        const from = t.traversals.get(`${method}\0${String(cursorOf(req.json))}`);
        const first = cursorOf(req.json) === undefined || !from;
        t.traversals.set(`${method}\0${r.nextCursor}`, first ? { scope: r.cacheScope, seq: o.msg.seq } : from);
      }
      const key = requestKey(req.json);
      const freshUntil = o.msg.t + (typeof r.ttlMs === 'number' && r.ttlMs > 0 ? r.ttlMs : 0);
      t.answers.set(key, [...(t.answers.get(key) ?? []), { ...(auth !== undefined ? { auth } : {}), result: r, seq: o.msg.seq, freshUntil }]);
      const p = t.polls.get(key) ?? { streak: 0 };
      t.polls.set(key, { ...p, answerT: o.msg.t, ...(typeof r.ttlMs === 'number' ? { ttl: r.ttlMs } : {}) });
    };
  },
);

/** What `recall` learns from: every rule of this file runs on these too (as well as on what it
 * judges), so that no message that teaches something is missed. */
const LEARNS: Interest[] = ['client-request', ...[...CACHEABLE].map((m): Interest => `result ${m}`)];

/** §12 of RULES.md: pagination and caching rules that need the session's history. */
export const cacheRules: Rule[] = [
  {
    id: 'PAGE-EMPTY-CURSOR', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'server/utilities/pagination.mdx §Implementation Guidelines',
    title: 'A client does not treat nextCursor "" as the end of the results',
    on: [...LEARNS, 'client-request'],
    check(o, report, state) {
      const t = recall(o, state);
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const method = o.json.method;
      const stopped = t.emptyAt.get(method);
      // Evidence: the client follows this method's other cursors, yet starts over instead of
      // sending cursor "", with no list_changed to explain the restart.
      if (stopped === undefined || cursorOf(o.json) !== undefined || !t.follows.has(method) || state.listChanged.has(KIND[method] ?? '')) return;
      report('/params', `${method} starts over from the first page without following the nextCursor "" of message #${stopped}; an empty string is a valid cursor, not the end of results`);
    },
  },
  {
    id: 'CACHE-SCOPE-PAGES', level: 'MUST', obs: 'N', era: 'modern', source: 'server/utilities/caching.mdx §Interaction with Pagination',
    title: 'Every page of one list traversal has the same cacheScope',
    on: [...LEARNS, ...[...PAGINATED].map((m): Interest => `result ${m}`)],
    check(o, report, state) {
      const t = recall(o, state);
      const r = completeResult(o);
      const cursor = o.request ? cursorOf(o.request.json) : undefined;
      if (!r || !o.request || !PAGINATED.has(o.request.method) || typeof cursor !== 'string' || typeof r.cacheScope !== 'string') return;
      const from = t.traversals.get(`${o.request.method}\0${cursor}`);
      if (from && typeof from.scope === 'string' && from.scope !== r.cacheScope) {
        report('/result/cacheScope', `this ${o.request.method} page is ${JSON.stringify(r.cacheScope)} but the traversal's first page (message #${from.seq}) was ${JSON.stringify(from.scope)}; all pages share one cacheScope`);
      }
    },
  },
  {
    id: 'CACHE-SCOPE-SEMANTICS', level: 'MUST NOT', obs: 'H', era: 'modern', transport: 'streamable-http', source: 'server/utilities/caching.mdx §Choosing a Cache Scope',
    title: 'A result that differs by authorization is not cacheScope "public"',
    on: [...LEARNS, ...[...CACHEABLE].map((m): Interest => `result ${m}`)],
    check(o, report, state) {
      const t = recall(o, state);
      const r = completeResult(o);
      if (!r || !o.request || !CACHEABLE.has(o.request.method) || r.cacheScope !== 'public') return;
      const auth = state.header(o.request.msg, 'authorization');
      let body: string | undefined;
      // Evidence: a still-fresh answer given to another Authorization, which a shared cache could
      // serve this caller, differs from what this caller gets.
      const other = t.answers.get(requestKey(o.request.json))?.find((a) => a.auth !== auth && o.msg.t < a.freshUntil && bodyOf(a) !== (body ??= canonical(r, RESULT_ONLY)));
      if (other) report('/result/cacheScope', `${o.request.method} answers this caller differently from another Authorization's still-fresh answer (message #${other.seq}), so it depends on the caller, yet it is "public" and may be shared across users; use "private"`);
    },
  },
  {
    id: 'CACHE-POLL-JITTER', level: 'MUST', obs: 'N', era: 'modern', source: 'server/utilities/caching.mdx §Freshness Calculation',
    title: 'A client does not poll exactly on the TTL (polling needs jitter and backoff)',
    on: [...LEARNS, ...[...CACHEABLE].map((m): Interest => `client-request ${m}`)],
    check(o, report, state) {
      const t = recall(o, state);
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json) || !CACHEABLE.has(o.json.method)) return;
      const key = requestKey(o.json);
      if (streakOf(t, o, key) === POLL_STREAK && !state.listChanged.has(KIND[o.json.method] ?? '')) {
        report('', `${o.json.method} re-fetched ${POLL_STREAK} times in a row just as the previous answer's ttlMs (${t.polls.get(key)!.ttl} ms) ran out: a TTL timer without jitter or backoff; the TTL is a freshness hint, not a polling interval`);
      }
    },
  },
];
