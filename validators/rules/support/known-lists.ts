/**
 * Rule support: what a server's lists are known to hold, per server context (so across the
 * stateless HTTP exchanges that share one). A list is known when the server gave every page of
 * one traversal (the last page without `nextCursor`) and nothing since may have changed it: no
 * `list_changed` of its kind, and no request that may change state sent or answered since its
 * first page was asked for. Or, with no list answer at all, when the server's capabilities leave
 * the feature out: a server without `prompts` has no prompts (the client SDKs conclude the same).
 */
import type { Interest } from '../../rule.js';
import type { ServerContext } from '../../server-context.js';
import { seenAt } from '../../session-state.js';
import { KIND } from './memories.js';
import { LISTEN, type O, obj, params, type S } from './messages.js';

/** Requests that cannot change a list: the list methods themselves, discovery, listening, completion. */
export const READ_ONLY: ReadonlySet<string> = new Set([
  'server/discover',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'prompts/list',
  LISTEN,
  'completion/complete',
  'ping',
]);

/** Each list method: the array its answer holds and the member that names an item. */
const ITEMS: Record<string, { key: string; id: string }> = {
  'tools/list': { key: 'tools', id: 'name' },
  'prompts/list': { key: 'prompts', id: 'name' },
  'resources/list': { key: 'resources', id: 'uri' },
  'resources/templates/list': { key: 'resourceTemplates', id: 'uriTemplate' },
};

const CHANGED: Record<string, string> = {
  'notifications/tools/list_changed': 'tools',
  'notifications/prompts/list_changed': 'prompts',
  'notifications/resources/list_changed': 'resources',
};

/** One traversal of a list: its names so far, where it goes on, and when its first page was asked. */
interface Traversal {
  names: Set<string>;
  next?: string;
  complete: boolean;
  /** The tick of its first page's request: a change after it may be missing from the list. */
  asked: number;
  auth?: string;
  /** Where its last page was answered, as a finding names it. */
  at: { seq: number; session: string; exchange?: number };
}

interface Lists {
  /** The last message learnt from (each is learnt once, whoever asks). */
  last?: O['msg'];
  /** Counts the messages learnt from: the order of events in the server context. */
  tick: number;
  /** When a request that may change a list was last sent or answered. */
  busy: number;
  /** When the last list_changed of each kind came. */
  changed: Map<string, number>;
  /** First-page list requests, by their JSON, with the tick they were sent at. */
  requested: WeakMap<object, number>;
  traversals: Map<string, Traversal>;
  /** List methods the server answered with a list, ever (then its capabilities prove nothing). */
  answered: Set<string>;
}

const byContext = new WeakMap<ServerContext, Lists>();

/** What `learnLists` reads: a rule that calls it takes these messages (its `on` includes them). */
export const LIST_LEARNS: Interest[] = [
  'client-request',
  'server-response',
  ...Object.keys(CHANGED).flatMap((m): Interest[] => [`server-notification ${m}`, `server-request ${m}`]),
];

/** Learns from one message what the server context's lists hold; call it on every message of `LIST_LEARNS`. */
export function learnLists(o: O, state: S): void {
  let m = byContext.get(state.context);
  if (!m)
    byContext.set(
      state.context,
      (m = { tick: 0, busy: -1, changed: new Map(), requested: new WeakMap(), traversals: new Map(), answered: new Set() }),
    );
  const json = o.json;
  if (m.last === o.msg || !json) return;
  m.last = o.msg;
  const tick = ++m.tick;
  if (o.msg.direction === 'client-to-server') {
    if (typeof json.method !== 'string' || !('id' in json)) return;
    if (!READ_ONLY.has(json.method)) m.busy = tick;
    else if (ITEMS[json.method] && params(json).cursor === undefined) m.requested.set(json, tick);
    return;
  }
  if (typeof json.method === 'string') {
    const kind = CHANGED[json.method];
    if (kind) m.changed.set(kind, tick);
    return;
  }
  const req = o.request;
  if (!req) return;
  // An answer, like the request, may come after the change it made.
  if (!READ_ONLY.has(req.method)) m.busy = tick;
  else learnPage(m, o, state, tick);
}

function learnPage(m: Lists, o: O, state: S, tick: number): void {
  const req = o.request!;
  const item = ITEMS[req.method];
  const r = obj(o.json!.result);
  const items = r?.[item?.key ?? ''];
  if (!item || !r || r.resultType === 'input_required' || !Array.isArray(items)) return;
  m.answered.add(req.method);
  const auth = state.header(req.msg, 'authorization');
  const cursor = params(req.json).cursor;
  let t = m.traversals.get(req.method);
  if (cursor === undefined)
    m.traversals.set(
      req.method,
      (t = { names: new Set(), complete: false, asked: m.requested.get(req.json) ?? tick, at: { seq: 0, session: '' } }),
    );
  else if (!t || t.next === undefined || cursor !== t.next || auth !== t.auth) {
    // A page of a traversal whose start, or the page before, is not the one we hold.
    m.traversals.delete(req.method);
    return;
  }
  if (auth !== undefined) t.auth = auth;
  for (const i of items) {
    const name = obj(i)?.[item.id];
    if (typeof name === 'string') t.names.add(name);
  }
  t.next = typeof r.nextCursor === 'string' ? r.nextCursor : undefined;
  t.complete = r.nextCursor === undefined;
  t.at = { seq: o.msg.seq, session: state.session.id, ...(o.msg.http ? { exchange: o.msg.http.exchange } : {}) };
}

/** A list known in full: its names, and the answer that gave it in a finding's words (none when
 * the capabilities did: the list is empty). */
export interface KnownList {
  names: ReadonlySet<string>;
  source?: string;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * What `method`'s list is known to hold when the server answers `o` (a response): the complete,
 * unchanged list of the server context, given for the Authorization the request carries; or
 * nothing, when the server's capabilities leave the list's feature out and it never answered the
 * list. Undefined when it is not known.
 */
export function knownList(o: O, state: S, method: string): KnownList | undefined {
  const m = byContext.get(state.context);
  const kind = KIND[method]!;
  const t = m?.traversals.get(method);
  if (m && t) {
    const changed = Math.max(m.busy, m.changed.get(kind) ?? -1);
    if (!t.complete || changed > t.asked || (o.request && state.header(o.request.msg, 'authorization')) !== t.auth) return undefined;
    return { names: t.names, source: `the complete ${method} answer (${seenAt(t.at, state)})` };
  }
  const caps = state.serverCapabilities;
  if (!caps || kind in caps || m?.answered.has(method)) return undefined;
  return { names: NONE };
}

/**
 * Whether `uri` may be an expansion of the RFC 6570 `template` (or the template itself): the
 * literal parts appear in order, each expression standing for any text. A superset of the real
 * expansions, so a URI it rejects is none. Linear: no regular expression built from server text.
 */
export function mayExpandTo(template: string, uri: string): boolean {
  const parts = template.split(/\{[^{}]*\}/);
  if (parts.length === 1) return template === uri;
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const end = uri.length - last.length;
  if (end < first.length || !uri.startsWith(first) || !uri.endsWith(last)) return false;
  let from = first.length;
  for (const literal of parts.slice(1, -1)) {
    const i = uri.indexOf(literal, from);
    if (i < 0 || i + literal.length > end) return false;
    from = i + literal.length;
  }
  return true;
}
