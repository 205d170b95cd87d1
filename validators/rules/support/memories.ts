/** Rule support: the session memories rule groups share (`memory`, and what the caching, client-ask, subscription and list rules learn). */
import { type Interest, isObject, type Rule, since } from '../../rule.js';
import { idKey, LIST_KEYS, mrtrKey, type PendingRequest, seenAt, sessionSlot } from '../../session-state.js';
import { at, canonical, LISTEN, metaOf, notification, type O, type S, SUB_ID } from './messages.js';

const RULE_OF_LIST: Record<string, string> = {
  'tools/list': 'TOOLS-LIST-INVARIANT',
  'resources/list': 'RES-LIST-INVARIANT',
  'prompts/list': 'PROMPTS-LIST-INVARIANT',
};

export const nameOf = (item: unknown): string => (isObject(item) ? String(item.name ?? item.uri ?? '') : '');

/** A later first-page answer of a list method, compared with the previous one the server
 * context holds; `ownSession`: only one of this session (on stateless HTTP, whether a list may
 * change between exchanges is STATE-LIST-INVARIANT's, which weighs the time and the requests in
 * between). */
export function relist(o: Parameters<Rule['check']>[0], state: Parameters<Rule['check']>[2], method: string, ownSession: boolean) {
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

export function invariance(method: string): Rule {
  return {
    id: RULE_OF_LIST[method]!,
    level: 'MUST NOT',
    obs: 'N',
    era: 'all',
    source: `server/${method.split('/')[0]}.mdx §Capabilities`,
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
        const parts = [
          added.length ? `added ${added.join(', ')}` : '',
          removed.length ? `removed ${removed.join(', ')}` : '',
          changed.length ? `changed ${changed.join(', ')}` : '',
        ].filter(Boolean);
        report(
          `/result/${LIST_KEYS[method]}`,
          `${method} differs from its answer in ${seenAt(r.before, state)} without a list_changed notification: ${parts.join('; ')}`,
        );
      }
    },
  };
}

/** Server asks for client features: modern inputRequests, and 2025 server→client requests. */
export function asks(o: O, method: string): [Record<string, unknown>, string][] {
  if (o.msg.direction !== 'server-to-client' || !o.json) return [];
  if (o.json.method === method && isObject(o.json.params)) return [[o.json.params, '/params']];
  const r = isObject(o.json.result) ? o.json.result : undefined;
  if (!r || r.resultType !== 'input_required' || !isObject(r.inputRequests)) return [];
  return Object.entries(r.inputRequests)
    .filter(([, v]) => isObject(v) && v.method === method && isObject(v.params))
    .map(([k, v]) => [(v as Record<string, unknown>).params as Record<string, unknown>, `${at('/result/inputRequests', k)}/params`]);
}

/** What `asks` reads: a 2025 server→client message with the method, or an input_required result. */
export const asking = (method: string): Interest[] => [
  `server-request ${method}`,
  `server-notification ${method}`,
  'server-input_required',
];

/**
 * What a server asks of the client, from both carriers: a 2025 server→client request, and the
 * `inputRequests` of a 2026-07-28 `input_required` result. Each with its params and their path.
 */
export function asked(o: O, method: string): [Record<string, unknown>, string, string?][] {
  if (o.msg.direction !== 'server-to-client' || !o.json) return [];
  if (o.json.method === method && 'id' in o.json && isObject(o.json.params)) return [[o.json.params, '/params']];
  const r = isObject(o.json.result) ? o.json.result : undefined;
  if (!r || r.resultType !== 'input_required' || !isObject(r.inputRequests)) return [];
  return Object.entries(r.inputRequests)
    .filter(([, v]) => isObject(v) && v.method === method && isObject(v.params))
    .map(([k, v]) => [(v as Record<string, unknown>).params as Record<string, unknown>, `${at('/result/inputRequests', k)}/params`, k]);
}

/**
 * The `subscriptions/listen` request a server message belongs to: on HTTP the listen whose
 * response stream carries it, on stdio the open listen its `subscriptionId` names.
 */
export function listenOf(o: O, state: S): PendingRequest | undefined {
  if (o.msg.http) {
    const r = state.exchangeRequest(o.msg.http.exchange);
    return r?.method === LISTEN ? r : undefined;
  }
  const sub = metaOf(o.json?.params)?.[SUB_ID];
  if (sub === undefined) return undefined;
  const r = state.pending['client-to-server'].get(idKey(sub));
  return r?.method === LISTEN ? r : undefined;
}

/** The notification filter a listen request asked for. */
export function filterOf(listen: PendingRequest): Record<string, unknown> {
  const p = isObject(listen.json.params) ? listen.json.params : {};
  return isObject(p.notifications) ? p.notifications : {};
}

/**
 * Rule-private memory for one session. A rule sees each message before the engine commits it, so
 * what a message teaches is prepared from the state before it and applied when the next message
 * of the group arrives: every rule of a group judges a message against the same "before". Each
 * rule of the group calls the returned function first, so no message the group sees is missed;
 * and each rule's `on` includes every message `learn` learns from (the group's LEARNS list), so
 * the group sees them all.
 */
function memory<T>(init: () => T, learn: (t: T, o: O, state: S) => (() => void) | undefined) {
  const slot = sessionSlot<{ t: T; seq?: number; pending?: (() => void) | undefined }>(() => ({ t: init() }));
  return (o: O, state: S): T => {
    const m = slot(state);
    if (m.seq !== o.msg.seq) {
      m.pending?.();
      m.seq = o.msg.seq;
      m.pending = learn(m.t, o, state);
    }
    return m.t;
  };
}

export const PAGINATED = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

export const CACHEABLE = new Set([...PAGINATED, 'resources/read', 'server/discover']);

/** The list_changed kind that invalidates each list. */
export const KIND: Record<string, string> = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resources',
};

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
export interface Answer {
  auth?: string;
  result: Record<string, unknown>;
  body?: string;
  seq: number;
  freshUntil: number;
}

export const cursorOf = (request: Record<string, unknown>): unknown => (isObject(request.params) ? request.params.cursor : undefined);

/** What makes two requests the same question (method and canonical params); the last one is
 * kept, as the rules of this file ask about the same request in turn. */
let lastKey: { request: Record<string, unknown>; key: string } | undefined;

export function requestKey(request: Record<string, unknown>): string {
  if (lastKey?.request !== request) lastKey = { request, key: `${String(request.method)}\0${canonical(request.params ?? {})}` };
  return lastKey.key;
}

export const completeResult = (o: O) =>
  o.json && isObject(o.json.result) && o.json.result.resultType !== 'input_required' ? o.json.result : undefined;

/** The streak of re-fetches sent exactly when the previous answer went stale, this one included. */
export function streakOf(t: Caching, o: O, key: string): number {
  const p = t.polls.get(key);
  if (!p || p.answerT === undefined || !p.ttl) return 0;
  const late = o.msg.t - p.answerT - p.ttl;
  return late >= 0 && late <= Math.max(50, p.ttl * 0.02) ? p.streak + 1 : 0;
}

export const recallCaching = memory<Caching>(
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
      t.answers.set(key, [
        ...(t.answers.get(key) ?? []),
        { ...(auth !== undefined ? { auth } : {}), result: r, seq: o.msg.seq, freshUntil },
      ]);
      const p = t.polls.get(key) ?? { streak: 0 };
      t.polls.set(key, { ...p, answerT: o.msg.t, ...(typeof r.ttlMs === 'number' ? { ttl: r.ttlMs } : {}) });
    };
  },
);

/** What `recall` learns from: every rule of this file runs on these too (as well as on what it
 * judges), so that no message that teaches something is missed. */
export const CACHING_LEARNS: Interest[] = ['client-request', ...[...CACHEABLE].map((m): Interest => `result ${m}`)];

interface Asks {
  /** The capabilities the client declared in `initialize` (2025 era). */
  initCaps?: Record<string, unknown>;
  /** The requestedSchema of each form elicitation an input_required answer asked, by retry key. */
  forms: Map<string, Map<string, Record<string, unknown>>>;
}

export const recallAsks = memory<Asks>(
  () => ({ forms: new Map() }),
  (t, o) => {
    const json = o.json;
    if (!json) return undefined;
    if (
      o.msg.direction === 'client-to-server' &&
      json.method === 'initialize' &&
      isObject(json.params) &&
      isObject(json.params.capabilities)
    ) {
      const caps = json.params.capabilities;
      return () => (t.initCaps = caps);
    }
    if (!o.request || !('id' in json) || !isObject(json.result)) return undefined;
    const forms = new Map<string, Record<string, unknown>>();
    for (const [p, , key] of asked(o, 'elicitation/create'))
      if (key !== undefined && p.mode !== 'url' && isObject(p.requestedSchema)) forms.set(key, p.requestedSchema);
    if (forms.size === 0) return undefined;
    const retry = mrtrKey(o.request.json);
    return () => t.forms.set(retry, forms);
  },
);

/** What `recall` learns from: every rule of this file runs on these too (as well as on what it
 * judges), so that no message that teaches something is missed. */
export const ASK_LEARNS: Interest[] = ['client-request initialize', 'client-notification initialize', 'server-input_required'];

const CHANGED_KIND: Record<string, string> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

interface Subscriptions {
  /** Acknowledged listens: when, and the filter the server agreed to. */
  acked: Map<string, { seq: number; filter: Record<string, unknown> }>;
  /** Per listen, the last list_changed of each kind delivered on it. */
  delivered: Map<string, Map<string, number>>;
  /** Every listen id the client opened. */
  listens: Set<string>;
  /** HTTP exchanges of listens the server has already ended with a result (graceful closure). */
  closed: Set<number>;
}

export const recallSubscriptions = memory<Subscriptions>(
  () => ({ acked: new Map(), delivered: new Map(), listens: new Set(), closed: new Set() }),
  (t, o, state) => {
    const json = o.json;
    if (!json) return undefined;
    if (o.msg.direction === 'client-to-server' && json.method === LISTEN && 'id' in json) return () => t.listens.add(idKey(json.id));
    if (o.msg.direction !== 'server-to-client') return undefined;
    if (o.request?.method === LISTEN && o.msg.http && isObject(json.result)) {
      const x = o.msg.http.exchange;
      return () => t.closed.add(x);
    }
    const listen = listenOf(o, state);
    if (!listen) return undefined;
    const key = idKey(listen.json.id);
    const ack = notification(o, 'notifications/subscriptions/acknowledged');
    if (ack) return () => t.acked.set(key, { seq: o.msg.seq, filter: isObject(ack.notifications) ? ack.notifications : {} });
    const kind = typeof json.method === 'string' && Object.hasOwn(CHANGED_KIND, json.method) ? CHANGED_KIND[json.method] : undefined;
    if (kind) return () => t.delivered.set(key, (t.delivered.get(key) ?? new Map<string, number>()).set(kind, o.msg.seq));
    return undefined;
  },
);

/** What `recall` learns from: every rule of this file runs on these too (as well as on what it
 * judges), so that no message that teaches something is missed. */
export const SUBSCRIPTION_LEARNS: Interest[] = [
  `client-request ${LISTEN}`,
  `server-result ${LISTEN}`,
  'server-notification notifications/subscriptions/acknowledged',
  ...Object.keys(CHANGED_KIND).flatMap((m): Interest[] => [`server-request ${m}`, `server-notification ${m}`]),
];

/**
 * A server that declares `listChanged` for resources or prompts tells every subscriber about a
 * change: a change announced on one subscription also reaches each other open, acknowledged
 * subscription that asked for the kind. (A change announced nowhere is *-LIST-INVARIANT's, and an
 * acknowledgment that refuses the kind is CAP-LISTCHANGED's.)
 */
export function listChanged(kind: 'resources' | 'prompts', id: string, source: string): Rule {
  const flag = `${kind}ListChanged`;
  const method = `${kind}/list`;
  return {
    id,
    level: 'SHOULD',
    obs: 'N',
    era: 'modern',
    source,
    title: `A server declaring ${kind}.listChanged sends notifications/${kind}/list_changed to the subscriptions that asked`,
    on: [...SUBSCRIPTION_LEARNS, `server-result ${method}`],
    check(o, report, state) {
      const t = recallSubscriptions(o, state);
      const cap = state.serverCapabilities?.[kind];
      if (o.msg.direction !== 'server-to-client' || !isObject(cap) || cap.listChanged !== true) return;
      const r = o.request?.method === method && o.json && isObject(o.json.result) ? o.json.result : undefined;
      const before = state.lastList.get(method);
      if (
        !r ||
        !before ||
        !state.listChanged.has(kind) ||
        (isObject(o.request!.json.params) && o.request!.json.params.cursor !== undefined)
      )
        return;
      if (canonical(r[kind]) === canonical(before.items)) return;
      for (const [key, a] of t.acked) {
        const open = state.pending['client-to-server'].has(key);
        if (open && a.filter[flag] === true && a.seq < before.seq && (t.delivered.get(key)?.get(kind) ?? -1) < before.seq) {
          report(
            `/result/${kind}`,
            `${method} changed since message #${before.seq} and a list_changed went out, but not to subscription ${key}, which asked for ${flag}`,
          );
        }
      }
    },
  };
}
