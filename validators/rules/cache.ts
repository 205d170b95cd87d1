/** RULES.md §12: caching (CACHE). */
import type { Interest, Rule } from '../rule.js';
import {
  type Answer,
  CACHEABLE,
  CACHING_LEARNS,
  completeResult,
  cursorOf,
  KIND,
  PAGINATED,
  recallCaching,
  requestKey,
  streakOf,
} from './support/memories.js';
import { canonical, resultFor } from './support/messages.js';

const CACHE_HINT_METHODS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

/** Three re-fetches in a row, each right when the previous answer went stale, make a TTL timer. */
const POLL_STREAK = 3;

const RESULT_ONLY = new Set(['_meta', 'ttlMs', 'cacheScope', 'resultType']);

const bodyOf = (a: Answer): string => (a.body ??= canonical(a.result, RESULT_ONLY));

export const cacheRules: Rule[] = [
  {
    id: 'CACHE-HINTS',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'server/utilities/caching.mdx §Cacheable Results',
    title: 'List and read results carry ttlMs and cacheScope',
    on: ['result tools/list', 'result prompts/list', 'result resources/list', 'result resources/templates/list', 'result resources/read'],
    check(o, report) {
      const r = resultFor(o);
      if (!r || !o.request || !CACHE_HINT_METHODS.has(o.request.method) || r.resultType === 'input_required') return;
      if (typeof r.ttlMs !== 'number' || !Number.isInteger(r.ttlMs))
        report('/result/ttlMs', `${o.request.method} result without an integer ttlMs`);
      if (r.cacheScope !== 'public' && r.cacheScope !== 'private')
        report('/result/cacheScope', `${o.request.method} result without cacheScope "public" or "private"`);
    },
  },
  {
    id: 'CACHE-TTL-NONNEG',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'server/utilities/caching.mdx §Time-to-Live (TTL) Field',
    title: 'ttlMs is not negative',
    on: ['result'],
    check(o, report) {
      const r = resultFor(o);
      if (r && typeof r.ttlMs === 'number' && r.ttlMs < 0) report('/result/ttlMs', `ttlMs is ${r.ttlMs}`);
    },
  },
  {
    id: 'CACHE-INTERIM-NONE',
    level: 'desc',
    obs: '1',
    era: 'modern',
    source: 'server/utilities/caching.mdx §Cacheable Results',
    title: 'input_required results carry no caching hints',
    on: ['result'],
    check(o, report) {
      const r = resultFor(o);
      if (r?.resultType !== 'input_required') return;
      // Each hint is a member that does not belong there.
      for (const hint of ['ttlMs', 'cacheScope'])
        if (hint in r) report(`/result/${hint}`, `an input_required result with the caching hint ${hint}; interim results are not cached`);
    },
  },
  {
    id: 'CACHE-SCOPE-PAGES',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'server/utilities/caching.mdx §Interaction with Pagination',
    title: 'Every page of one list traversal has the same cacheScope',
    on: [...CACHING_LEARNS, ...[...PAGINATED].map((m): Interest => `result ${m}`)],
    check(o, report, state) {
      const t = recallCaching(o, state);
      const r = completeResult(o);
      const cursor = o.request ? cursorOf(o.request.json) : undefined;
      if (!r || !o.request || !PAGINATED.has(o.request.method) || typeof cursor !== 'string' || typeof r.cacheScope !== 'string') return;
      const from = t.traversals.get(`${o.request.method}\0${cursor}`);
      if (from && typeof from.scope === 'string' && from.scope !== r.cacheScope) {
        report(
          '/result/cacheScope',
          `this ${o.request.method} page is ${JSON.stringify(r.cacheScope)} but the traversal's first page (message #${from.seq}) was ${JSON.stringify(from.scope)}; all pages share one cacheScope`,
        );
      }
    },
  },
  {
    id: 'CACHE-SCOPE-SEMANTICS',
    level: 'MUST NOT',
    obs: 'H',
    era: 'modern',
    transport: 'streamable-http',
    source: 'server/utilities/caching.mdx §Choosing a Cache Scope',
    title: 'A result that differs by authorization is not cacheScope "public"',
    on: [...CACHING_LEARNS, ...[...CACHEABLE].map((m): Interest => `result ${m}`)],
    check(o, report, state) {
      const t = recallCaching(o, state);
      const r = completeResult(o);
      if (!r || !o.request || !CACHEABLE.has(o.request.method) || r.cacheScope !== 'public') return;
      const auth = state.header(o.request.msg, 'authorization');
      let body: string | undefined;
      // Evidence: a still-fresh answer given to another Authorization, which a shared cache could
      // serve this caller, differs from what this caller gets.
      const other = t.answers
        .get(requestKey(o.request.json))
        ?.find((a) => a.auth !== auth && o.msg.t < a.freshUntil && bodyOf(a) !== (body ??= canonical(r, RESULT_ONLY)));
      if (other)
        report(
          '/result/cacheScope',
          `${o.request.method} answers this caller differently from another Authorization's still-fresh answer (message #${other.seq}), so it depends on the caller, yet it is "public" and may be shared across users; use "private"`,
        );
    },
  },
  {
    id: 'CACHE-POLL-JITTER',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'server/utilities/caching.mdx §Freshness Calculation',
    title: 'A client does not poll exactly on the TTL (polling needs jitter and backoff)',
    on: [...CACHING_LEARNS, ...[...CACHEABLE].map((m): Interest => `client-request ${m}`)],
    check(o, report, state) {
      const t = recallCaching(o, state);
      if (
        o.msg.direction !== 'client-to-server' ||
        !o.json ||
        typeof o.json.method !== 'string' ||
        !('id' in o.json) ||
        !CACHEABLE.has(o.json.method)
      )
        return;
      const key = requestKey(o.json);
      if (streakOf(t, o, key) === POLL_STREAK && !state.listChanged.has(KIND[o.json.method] ?? '')) {
        report(
          '',
          `${o.json.method} re-fetched ${POLL_STREAK} times in a row just as the previous answer's ttlMs (${t.polls.get(key)!.ttl} ms) ran out: a TTL timer without jitter or backoff; the TTL is a freshness hint, not a polling interval`,
        );
      }
    },
  },
];
