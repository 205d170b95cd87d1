/** RULES.md §12: pagination (PAGE). */
import { isObject, type Rule } from '../rule.js';
import { CACHING_LEARNS, cursorOf, KIND, PAGINATED, recallCaching } from './support/memories.js';
import { resultFor } from './support/messages.js';

export const paginationRules: Rule[] = [
  {
    id: 'PAGE-OPS',
    level: 'desc',
    obs: '1',
    era: 'all',
    source: 'server/utilities/pagination.mdx §Operations Supporting Pagination',
    title: 'Only the four list operations paginate',
    on: ['result'],
    check(o, report) {
      const r = resultFor(o);
      if (r && 'nextCursor' in r && o.request && !PAGINATED.has(o.request.method))
        report(
          '/result/nextCursor',
          `${o.request.method} returned a nextCursor; only tools/list, prompts/list, resources/list and resources/templates/list paginate`,
        );
    },
  },
  {
    id: 'PAGE-CURSOR-OPAQUE',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'server/utilities/pagination.mdx §Implementation Guidelines',
    title: 'A cursor the client sends is one the server returned for that method',
    on: ['client-request', 'client-notification'],
    check(o, report, state) {
      if (
        o.msg.direction !== 'client-to-server' ||
        !o.json ||
        typeof o.json.method !== 'string' ||
        !isObject(o.json.params) ||
        typeof o.json.params.cursor !== 'string'
      )
        return;
      if (!state.cursors.get(o.json.method)?.has(o.json.params.cursor))
        report('/params/cursor', `cursor ${JSON.stringify(o.json.params.cursor)} was never returned as a nextCursor of ${o.json.method}`);
    },
  },
  {
    id: 'PAGE-EMPTY-CURSOR',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'server/utilities/pagination.mdx §Implementation Guidelines',
    title: 'A client does not treat nextCursor "" as the end of the results',
    on: [...CACHING_LEARNS, 'client-request'],
    check(o, report, state) {
      const t = recallCaching(o, state);
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const method = o.json.method;
      const stopped = t.emptyAt.get(method);
      // Evidence: the client follows this method's other cursors, yet starts over instead of
      // sending cursor "", with no list_changed to explain the restart.
      if (stopped === undefined || cursorOf(o.json) !== undefined || !t.follows.has(method) || state.listChanged.has(KIND[method] ?? ''))
        return;
      report(
        '/params',
        `${method} starts over from the first page without following the nextCursor "" of message #${stopped}; an empty string is a valid cursor, not the end of results`,
      );
    },
  },
];
