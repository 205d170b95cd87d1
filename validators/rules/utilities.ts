import { isObject, type Rule } from '../rule.js';
import { idKey, progressToken, sessionSlot } from '../session-state.js';

const PAGINATED = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);
const CACHEABLE = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const MIME = /^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;
const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

type O = Parameters<Rule['check']>[0];
const result = (o: O, method?: string) => (o.json && isObject(o.json.result) && (!method || o.request?.method === method) ? o.json.result : undefined);
const notification = (o: O, method: string) => (o.json && o.json.method === method && !('id' in o.json) && isObject(o.json.params) ? o.json.params : undefined);

/** §6-12 of RULES.md: resources, prompts, completion, logging, progress, cancellation, pagination, caching. */
const unusableAnswers = sessionSlot(() => new Set<string>());

export const utilityRules: Rule[] = [
  {
    id: 'RES-NOTFOUND-NOT-32002', level: 'MUST NOT', obs: '1', era: 'modern', source: 'server/resources.mdx §Error Handling',
    title: 'A missing resource is -32602, never -32002, on 2026-07-28',
    on: ['error resources/read'],
    check(o, report) {
      if (o.request?.method === 'resources/read' && o.json && isObject(o.json.error) && o.json.error.code === -32002) report('/error/code', 'resources/read answered -32002; 2026-07-28 uses -32602 for a resource that does not exist');
    },
  },
  {
    id: 'RES-BLOB-ENC', level: 'MUST', obs: '1', era: 'all', source: 'server/resources.mdx §Security Considerations',
    title: 'Binary resource contents are valid base64',
    on: ['result resources/read'],
    check(o, report) {
      const r = result(o, 'resources/read');
      if (!r || !Array.isArray(r.contents)) return;
      r.contents.forEach((c, i) => {
        if (isObject(c) && typeof c.blob === 'string' && !BASE64.test(c.blob)) report(`/result/contents/${i}/blob`, 'blob is not valid base64');
      });
    },
  },
  {
    id: 'RES-URI-RFC3986', level: 'MUST', obs: '1', era: 'all', source: 'server/resources.mdx §Custom URI Schemes',
    title: 'Resource URIs conform to RFC 3986',
    on: ['result resources/list', 'result resources/read'],
    check(o, report) {
      const r = result(o);
      if (!r || (o.request?.method !== 'resources/list' && o.request?.method !== 'resources/read')) return;
      const items = Array.isArray(r.resources) ? r.resources : Array.isArray(r.contents) ? r.contents : [];
      const key = Array.isArray(r.resources) ? 'resources' : 'contents';
      items.forEach((item, i) => {
        if (isObject(item) && typeof item.uri === 'string' && !URI.test(item.uri)) report(`/result/${key}/${i}/uri`, `${JSON.stringify(item.uri)} is not an RFC 3986 URI (scheme ":" …, no spaces)`);
      });
    },
  },
  {
    id: 'PROMPTS-MEDIA', level: 'MUST', obs: '1', era: 'all', source: 'server/prompts.mdx §Image Content',
    title: 'Prompt images and audio are base64 with a valid MIME type',
    on: ['result prompts/get'],
    check(o, report) {
      const r = result(o, 'prompts/get');
      if (!r || !Array.isArray(r.messages)) return;
      r.messages.forEach((m, i) => {
        const c = isObject(m) && isObject(m.content) ? m.content : undefined;
        if (!c || (c.type !== 'image' && c.type !== 'audio')) return;
        if (typeof c.data !== 'string' || !BASE64.test(c.data)) report(`/result/messages/${i}/content/data`, `${String(c.type)} data is not base64`);
        if (typeof c.mimeType !== 'string' || !MIME.test(c.mimeType)) report(`/result/messages/${i}/content/mimeType`, `${String(c.type)} has no valid MIME type`);
      });
    },
  },
  {
    id: 'PROMPTS-EMBEDDED', level: 'MUST', obs: '1', era: 'all', source: 'server/prompts.mdx §Embedded Resources',
    title: 'An embedded resource in a prompt has a URI, a MIME type, and text or a base64 blob',
    on: ['result prompts/get'],
    check(o, report) {
      const r = result(o, 'prompts/get');
      if (!r || !Array.isArray(r.messages)) return;
      r.messages.forEach((m, i) => {
        const c = isObject(m) && isObject(m.content) ? m.content : undefined;
        if (!c || c.type !== 'resource') return;
        const res = isObject(c.resource) ? c.resource : {};
        const missing = [typeof res.uri === 'string' && URI.test(res.uri) ? '' : 'a valid uri', typeof res.mimeType === 'string' ? '' : 'a mimeType',
          typeof res.text === 'string' || (typeof res.blob === 'string' && BASE64.test(res.blob)) ? '' : 'text or a base64 blob'].filter(Boolean);
        if (missing.length) report(`/result/messages/${i}/content/resource`, `the embedded resource lacks ${missing.join(', ')}`);
      });
    },
  },
  {
    id: 'COMPL-RESULT-SHAPE', level: 'MUST', obs: '1', era: 'all', source: 'server/utilities/completion.mdx §Completion Results',
    title: 'completion.values is a string[] of at most 100 items',
    on: ['result completion/complete'],
    check(o, report) {
      const r = result(o, 'completion/complete');
      if (!r) return;
      const c = isObject(r.completion) ? r.completion : undefined;
      if (!c || !Array.isArray(c.values) || !c.values.every((v) => typeof v === 'string')) return report('/result/completion/values', '`completion.values` is not an array of strings');
      if (c.values.length > 100) report('/result/completion/values', `${c.values.length} values; at most 100 are allowed`);
    },
  },
  {
    id: 'COMPL-TOTAL', level: 'derived', obs: '1', era: 'all', source: 'server/utilities/completion.mdx §Completion Results',
    title: 'completion.total, when present, is at least the number of values',
    on: ['result completion/complete'],
    check(o, report) {
      const c = isObject(result(o, 'completion/complete')?.completion) ? (result(o, 'completion/complete')!.completion as Record<string, unknown>) : undefined;
      if (c && typeof c.total === 'number' && Array.isArray(c.values) && c.total < c.values.length) report('/result/completion/total', `total ${c.total} is below the ${c.values.length} values returned`);
    },
  },
  {
    id: 'LOG-THRESHOLD', level: 'SHOULD NOT', obs: 'N', era: 'modern', source: 'server/utilities/logging.mdx §Log Levels',
    title: 'No log messages below the level the request asked for',
    on: ['notification notifications/message'],
    check(o, report, state) {
      const p = notification(o, 'notifications/message');
      if (!p || typeof p.level !== 'string' || !o.msg.http) return;
      // On HTTP a log message rides the response stream of the request that set the level.
      const request = [...state.pending['client-to-server'].values()].find((r) => r.msg.http?.exchange === o.msg.http!.exchange);
      const meta = request && isObject(request.json.params) && isObject(request.json.params._meta) ? request.json.params._meta : undefined;
      const wanted = meta?.['io.modelcontextprotocol/logLevel'];
      if (typeof wanted === 'string' && LEVELS.indexOf(p.level) < LEVELS.indexOf(wanted)) report('/params/level', `a ${p.level} message, below the ${wanted} level the request asked for`);
    },
  },
  {
    id: 'PROG-TOKEN-UNIQUE', level: 'MUST', obs: 'N', era: 'all', source: 'basic/patterns/progress.mdx §Progress Flow',
    title: 'A progress token is unique across the active requests',
    on: ['client-request'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const token = progressToken(o.json);
      const earlier = token === undefined ? undefined : state.progress.get(JSON.stringify(token));
      if (earlier && !earlier.answered) report('/params/_meta/progressToken', `progress token ${JSON.stringify(token)} is already in use by an active request`);
    },
  },
  {
    id: 'PROG-ACTIVE-ONLY', level: 'MUST', obs: 'N', era: 'all', source: 'basic/patterns/progress.mdx §Behavior Requirements',
    title: 'Progress names the token of a request in flight',
    on: ['server-notification notifications/progress'],
    check(o, report, state) {
      const p = notification(o, 'notifications/progress');
      if (!p || o.msg.direction !== 'server-to-client') return;
      if (!state.progress.has(JSON.stringify(p.progressToken))) report('/params/progressToken', `no request was sent with progress token ${JSON.stringify(p.progressToken)}`);
    },
  },
  {
    id: 'PROG-STOP', level: 'MUST', obs: 'N', era: 'all', source: 'basic/patterns/progress.mdx §Implementation Notes',
    title: 'No progress after the final response',
    on: ['notification notifications/progress'],
    check(o, report, state) {
      const p = notification(o, 'notifications/progress');
      const known = p ? state.progress.get(JSON.stringify(p.progressToken)) : undefined;
      if (known?.answered) report('/params/progressToken', `progress for ${JSON.stringify(p!.progressToken)} after its request was answered`);
    },
  },
  {
    id: 'PROG-MONOTONIC', level: 'MUST', obs: 'N', era: 'all', source: 'basic/patterns/progress.mdx §Progress Flow',
    title: '`progress` strictly increases per token',
    on: ['notification notifications/progress'],
    check(o, report, state) {
      const p = notification(o, 'notifications/progress');
      const known = p ? state.progress.get(JSON.stringify(p.progressToken)) : undefined;
      if (known && known.last !== undefined && typeof p!.progress === 'number' && p!.progress <= known.last) report('/params/progress', `progress ${p!.progress} after ${known.last}: it must increase`);
    },
  },
  {
    id: 'CANCEL-REF-VALID', level: 'MUST', obs: 'N', era: 'all', source: 'basic/patterns/cancellation.mdx §Behavior Requirements',
    title: 'notifications/cancelled names a request the client has in flight',
    on: ['server-result', 'client-notification notifications/cancelled'],
    check(o, report, state) {
      // A response a client cannot accept (a result that is not an object) leaves the request in
      // flight for the client: cancelling it then is the server's fault (ENV-RES-RESULT), not this.
      if (o.request && o.msg.direction === 'server-to-client' && o.json && !isObject(o.json.result) && !('error' in o.json)) unusableAnswers(state).add(idKey(o.json.id));
      const p = o.msg.direction === 'client-to-server' ? notification(o, 'notifications/cancelled') : undefined;
      // A stateless HTTP exchange is a session of its own: the request it cancels is in another.
      if (o.transport === 'streamable-http' && state.exchanges.size <= 1) return;
      if (p && unusableAnswers(state).has(idKey(p.requestId))) return;
      // Without a requestId nothing is named: the shape is CANCEL-STDIO's (and the schema's).
      if (p && p.requestId !== undefined && !state.pending['client-to-server'].has(idKey(p.requestId))) report('/params/requestId', `request ${JSON.stringify(p.requestId)} is not in flight`);
    },
  },
  {
    id: 'CANCEL-SILENCE', level: 'MUST NOT', obs: 'N', era: 'all', source: 'basic/transports/stdio.mdx §Cancellation',
    title: 'After cancellation the server sends no more progress for that request',
    on: ['notification notifications/progress'],
    check(o, report, state) {
      // A response already in flight when the cancellation crossed it is tolerated (C2); progress is not.
      const p = notification(o, 'notifications/progress');
      const known = p ? state.progress.get(JSON.stringify(p.progressToken)) : undefined;
      if (known?.cancelled && !known.answered) report('/params/progressToken', `progress for a request the client cancelled`);
    },
  },
  {
    id: 'PAGE-OPS', level: 'desc', obs: '1', era: 'all', source: 'server/utilities/pagination.mdx §Operations Supporting Pagination',
    title: 'Only the four list operations paginate',
    on: ['result'],
    check(o, report) {
      const r = result(o);
      if (r && 'nextCursor' in r && o.request && !PAGINATED.has(o.request.method)) report('/result/nextCursor', `${o.request.method} returned a nextCursor; only tools/list, prompts/list, resources/list and resources/templates/list paginate`);
    },
  },
  {
    id: 'PAGE-CURSOR-OPAQUE', level: 'MUST', obs: 'N', era: 'all', source: 'server/utilities/pagination.mdx §Implementation Guidelines',
    title: 'A cursor the client sends is one the server returned for that method',
    on: ['client-request', 'client-notification'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !isObject(o.json.params) || typeof o.json.params.cursor !== 'string') return;
      if (!state.cursors.get(o.json.method)?.has(o.json.params.cursor)) report('/params/cursor', `cursor ${JSON.stringify(o.json.params.cursor)} was never returned as a nextCursor of ${o.json.method}`);
    },
  },
  {
    id: 'CACHE-HINTS', level: 'MUST', obs: '1', era: 'modern', source: 'server/utilities/caching.mdx §Cacheable Results',
    title: 'List and read results carry ttlMs and cacheScope',
    on: ['result tools/list', 'result prompts/list', 'result resources/list', 'result resources/templates/list', 'result resources/read'],
    check(o, report) {
      const r = result(o);
      if (!r || !o.request || !CACHEABLE.has(o.request.method) || r.resultType === 'input_required') return;
      if (typeof r.ttlMs !== 'number' || !Number.isInteger(r.ttlMs)) report('/result/ttlMs', `${o.request.method} result without an integer ttlMs`);
      if (r.cacheScope !== 'public' && r.cacheScope !== 'private') report('/result/cacheScope', `${o.request.method} result without cacheScope "public" or "private"`);
    },
  },
  {
    id: 'CACHE-TTL-NONNEG', level: 'MUST', obs: '1', era: 'modern', source: 'server/utilities/caching.mdx §Time-to-Live (TTL) Field',
    title: 'ttlMs is not negative',
    on: ['result'],
    check(o, report) {
      const r = result(o);
      if (r && typeof r.ttlMs === 'number' && r.ttlMs < 0) report('/result/ttlMs', `ttlMs is ${r.ttlMs}`);
    },
  },
  {
    id: 'CACHE-INTERIM-NONE', level: 'desc', obs: '1', era: 'modern', source: 'server/utilities/caching.mdx §Cacheable Results',
    title: 'input_required results carry no caching hints',
    on: ['result'],
    check(o, report) {
      const r = result(o);
      if (r && r.resultType === 'input_required' && ('ttlMs' in r || 'cacheScope' in r)) report('/result', 'an input_required result with caching hints (ttlMs/cacheScope)');
    },
  },
];
