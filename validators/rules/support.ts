import type { HttpExchange, HttpHeaders } from '../../lib/cassette/cassette.js';
import type { Direction } from '../../lib/message.js';
import type { ExchangeFact, SessionDigest } from '../recording.js';
import { type Interest, isObject, type Observed, type Rule, since } from '../rule.js';
import { idKey, LIST_KEYS, mrtrKey, type PendingRequest, revisionOf, seenAt, sessionSlot, type SessionState } from '../session-state.js';

export function clientCapabilities(request: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = isObject(request.params) ? request.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const caps = meta?.['io.modelcontextprotocol/clientCapabilities'];
  return isObject(caps) ? caps : undefined;
}

export const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';

export const KEY = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`);

export const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

export const META = 'io.modelcontextprotocol/';

export function meta(json?: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = json && isObject(json.params) ? json.params : undefined;
  return params && isObject(params._meta) ? params._meta : undefined;
}

/** Which required envelope fields a modern request lacks. */
export function missingEnvelope(json: Record<string, unknown>): string[] {
  const m = meta(json);
  const missing: string[] = [];
  if (typeof m?.[`${META}protocolVersion`] !== 'string') missing.push(`${META}protocolVersion`);
  if (!isObject(m?.[`${META}clientCapabilities`])) missing.push(`${META}clientCapabilities`);
  return missing;
}

/** The MCP revisions there are: a version outside them is one no server implements. */
export const KNOWN_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

/**
 * The protocol version a request names in its envelope when the server does not support it:
 * absent from the `supportedVersions` the server announced (`supported`, by default the session's
 * DiscoverResult), or, before any discover answer, no MCP revision at all. Such a request is to be
 * refused with -32022.
 */
export function unsupportedVersion(request: Record<string, unknown>, supported: readonly string[] | undefined): string | undefined {
  const version = revisionOf(request);
  if (version === undefined) return undefined;
  return (supported ? supported.includes(version) : KNOWN_REVISIONS.includes(version)) ? undefined : version;
}

/**
 * Why a server may refuse a request, if it may: the request broke a MUST (a violation of error
 * severity on it, such as a missing envelope field or a schema breach), or it names a protocol
 * version the server does not support. The rules that judge whether an answer should have been a
 * result (CAP-DECLARED-ANSWERS, TOOLS-ERR-EXECUTION) do not judge the answers to such requests.
 */
export function refusable(request: PendingRequest, state: SessionState): string | undefined {
  if (request.invalid) return `it broke ${request.invalid}`;
  const version = unsupportedVersion(request.json, state.supportedVersions);
  return version === undefined ? undefined : `it asked for protocol version ${version}, which the server does not support`;
}

export const RULE_OF_LIST: Record<string, string> = { 'tools/list': 'TOOLS-LIST-INVARIANT', 'resources/list': 'RES-LIST-INVARIANT', 'prompts/list': 'PROMPTS-LIST-INVARIANT' };

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

export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

export const resultFor = (o: O, method?: string) => (o.json && isObject(o.json.result) && (!method || o.request?.method === method) ? o.json.result : undefined);

export const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** A client request that retries an earlier input_required answer: its params and what the
 * server handed out then. */
export function retryOf(o: Parameters<Rule['check']>[0], state: Parameters<Rule['check']>[2]) {
  if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json)) return undefined;
  const params = isObject(o.json.params) ? o.json.params : undefined;
  if (!params || !('inputResponses' in params || 'requestState' in params)) return undefined;
  const issued = state.issuedState.get(mrtrKey(o.json));
  return issued ? { params, issued, id: o.json.id } : undefined;
}

/** Server asks for client features: modern inputRequests, and 2025 server→client requests. */
export function asks(o: O, method: string): [Record<string, unknown>, string][] {
  if (o.msg.direction !== 'server-to-client' || !o.json) return [];
  if (o.json.method === method && isObject(o.json.params)) return [[o.json.params, '/params']];
  const r = isObject(o.json.result) ? o.json.result : undefined;
  if (!r || r.resultType !== 'input_required' || !isObject(r.inputRequests)) return [];
  return Object.entries(r.inputRequests).filter(([, v]) => isObject(v) && v.method === method && isObject(v.params))
    .map(([k, v]) => [(v as Record<string, unknown>).params as Record<string, unknown>, `/result/inputRequests/${k}/params`]);
}

/** What `asks` reads: a 2025 server→client message with the method, or an input_required result. */
export const asking = (method: string): Interest[] => [`server-request ${method}`, `server-notification ${method}`, 'server-input_required'];

/** A header's first value, by case-insensitive name. */
export function headerOf(headers: HttpHeaders | undefined, name: string): string | undefined {
  if (!headers) return undefined;
  for (const k of Object.keys(headers)) {
    // The first key that matches, in the headers' order; lowercased only when the length fits.
    if (k === name || (k.length === name.length && k.toLowerCase() === name)) {
      const v = headers[k];
      return Array.isArray(v) ? v[0] : v;
    }
  }
  return undefined;
}

export type Json = Record<string, unknown>;

export const TASKS = 'io.modelcontextprotocol/tasks';

export const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

export const LIST_FLAG: Record<string, string> = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' };

/** A JSON-RPC error response whose id is null or absent. */
export const idlessError = (o: Observed): boolean => !!o.json && isObject(o.json.error) && typeof o.json.method !== 'string' && (o.json.id === null || !('id' in o.json));

export const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);

export const params = (json?: Json): Json => obj(json?.params) ?? {};

export const result = (o: Observed): Json | undefined => (o.msg.direction === 'server-to-client' ? obj(o.json?.result) : undefined);

export const clientRequest = (o: Observed): Json | undefined =>
  o.msg.direction === 'client-to-server' && o.json && typeof o.json.method === 'string' && 'id' in o.json ? o.json : undefined;

export const isReadableId = (id: unknown): boolean => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));

export const extensionsOf = (caps?: Json): Json => obj(caps?.extensions) ?? {};

export const canonicalWithMeta = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(canonicalWithMeta).join(',')}]` : isObject(v) ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonicalWithMeta(v[k])}`).join(',')}}` : JSON.stringify(v);

/**
 * What these rules remember of a session beyond the shared SessionState. It follows the engine's
 * rule: a message is folded in only when the next message is checked, so every rule sees the
 * state before the message it judges.
 */
export interface Memory {
  last?: Observed;
  /** Client frames whose id could not be read and that no id-less error answered yet (stdio). */
  unreadable: number;
  /** The kind of each side's last frame, and its last notification. */
  lastKind: Partial<Record<Direction, string>>;
  lastNotification: Partial<Record<Direction, { method: string; seq: number }>>;
  /** MRTR-eligible requests (by mrtrKey) whose latest answer had no resultType: read it through
   * `untypedOf`, which first folds in `untypedLater`. */
  untyped: Set<string>;
  /** Answers not folded into `untyped` yet. A request's key (its arguments as JSON) is made only
   * when a retry asks, or when many answers wait: keying every answered call cost more than
   * anything else this memory does, and retries are rare. */
  untypedLater: { request: Json; typed: boolean }[];
  /** The last -32022: what the server said it supports, and the version it refused. */
  refused?: { supported?: string[]; requested?: string; seq: number };
  /** Server capabilities from server/discover, and the seq at which the server's capabilities became known. */
  discovered?: Json;
  capsSeq?: number;
  /** The client's capabilities from a 2025-era initialize. */
  initCaps?: Json;
  /** Whether the last tools/list traversal reached its last page. */
  toolsComplete: boolean;
  /** tools/call request ids answered with a CreateTaskResult (idKey → taskId), and every taskId seen. */
  taskRequests: Map<string, string>;
  taskIds: Set<string>;
  /** inputRequests seen per task: key → what identifies the request (inputIdentity). */
  taskKeys: Map<string, Map<string, string>>;
}

export const memories = sessionSlot<Memory>(() => ({ unreadable: 0, lastKind: {}, lastNotification: {}, untyped: new Set(), untypedLater: [], toolsComplete: false, taskRequests: new Map(), taskIds: new Set(), taskKeys: new Map() }));

export function memoryOf(o: Observed, state: SessionState): Memory {
  const m = memories(state);
  if (m.last?.msg !== o.msg) {
    if (m.last) remember(m, m.last);
    m.last = o;
  }
  return m;
}

/** Inputs requested of a task, from a tasks/get result or a task status notification. */
export function taskInputs(o: Observed): { taskId: string; inputRequests: Json; at: string } | undefined {
  const r = result(o);
  if (r && o.request?.method === 'tasks/get' && isObject(r.inputRequests)) {
    const taskId = r.taskId ?? params(o.request.json).taskId;
    return typeof taskId === 'string' ? { taskId, inputRequests: r.inputRequests, at: '/result/inputRequests' } : undefined;
  }
  if (o.msg.direction !== 'server-to-client' || typeof o.json?.method !== 'string' || !o.json.method.startsWith('notifications/tasks')) return undefined;
  const p = params(o.json);
  return typeof p.taskId === 'string' && isObject(p.inputRequests) ? { taskId: p.taskId, inputRequests: p.inputRequests, at: '/params/inputRequests' } : undefined;
}

export function untypedOf(m: Memory): Set<string> {
  for (const { request, typed } of m.untypedLater) {
    if (typed) m.untyped.delete(mrtrKey(request));
    else m.untyped.add(mrtrKey(request));
  }
  m.untypedLater.length = 0;
  return m.untyped;
}

export function remember(m: Memory, o: Observed): void {
  const json = o.json;
  if (o.msg.channel !== 'stderr') m.lastKind[o.msg.direction] = o.msg.kind;
  if (o.msg.kind === 'notification') m.lastNotification[o.msg.direction] = { method: String(json?.method), seq: o.msg.seq };
  if (o.msg.direction === 'client-to-server') {
    const unreadable = o.msg.kind === 'text' || o.msg.kind === 'non-jsonrpc' || o.msg.kind === 'batch' || (o.msg.kind === 'request' && !isReadableId(json?.id));
    if (unreadable && o.msg.raw?.trim() !== '') m.unreadable++;
    if (json?.method === 'initialize' && isObject(params(json).capabilities)) m.initCaps = params(json).capabilities as Json;
    return;
  }
  const error = obj(json?.error);
  if (idlessError(o) && m.unreadable > 0) m.unreadable--; // it answered an unreadable frame
  if (error?.code === -32022) {
    const data = obj(error.data) ?? {};
    m.refused = {
      ...(Array.isArray(data.supported) ? { supported: data.supported.filter((v): v is string => typeof v === 'string') } : {}),
      ...(typeof data.requested === 'string' ? { requested: data.requested } : {}),
      seq: o.msg.seq,
    };
  }
  const inputs = taskInputs(o);
  if (inputs) {
    const keys = m.taskKeys.get(inputs.taskId) ?? new Map<string, string>();
    for (const [k, v] of Object.entries(inputs.inputRequests)) if (!keys.has(k)) keys.set(k, inputIdentity(v));
    m.taskKeys.set(inputs.taskId, keys);
  }
  const r = result(o);
  if (!r || !o.request) return;
  const method = o.request.method;
  if ((method === 'initialize' || method === 'server/discover') && isObject(r.capabilities)) m.capsSeq = o.msg.seq;
  if (method === 'server/discover' && isObject(r.capabilities)) m.discovered = r.capabilities;
  if (MRTR_METHODS.has(method)) {
    // (a typed answer only removes, which an empty set needs not)
    if (r.resultType === undefined || m.untyped.size > 0 || m.untypedLater.length > 0) {
      m.untypedLater.push({ request: o.request.json, typed: r.resultType !== undefined });
      if (m.untypedLater.length >= 64) untypedOf(m);
    }
  }
  // A page without nextCursor ends the traversal; SessionState.tools then holds every tool.
  if (method === 'tools/list' && Array.isArray(r.tools)) m.toolsComplete = typeof r.nextCursor !== 'string';
  if (r.resultType === 'task' && typeof r.taskId === 'string') {
    m.taskIds.add(r.taskId);
    if (method === 'tools/call') m.taskRequests.set(idKey(o.request.json.id), r.taskId);
  }
}

/** What `acknowledgment` reads. */
export const ACKNOWLEDGED: Interest[] = ['server-request notifications/subscriptions/acknowledged', 'server-notification notifications/subscriptions/acknowledged'];

/** A subscriptions/acknowledged notification: what it grants, and the listen request it answers (when in view). */
export function acknowledgment(o: Observed, state: SessionState): { granted: Json; asked?: Json } | undefined {
  if (o.msg.direction !== 'server-to-client' || o.json?.method !== 'notifications/subscriptions/acknowledged') return undefined;
  const p = params(o.json);
  const sub = obj(p._meta)?.['io.modelcontextprotocol/subscriptionId'];
  const listen = sub !== undefined ? state.pending['client-to-server'].get(idKey(sub)) : o.msg.http ? state.exchangeRequest(o.msg.http.exchange) : undefined;
  const asked = listen?.method === 'subscriptions/listen' ? obj(params(listen.json).notifications) : undefined;
  return { granted: obj(p.notifications) ?? {}, ...(asked ? { asked } : {}) };
}

/** List kinds the listen request asked for and the server declared listChanged for, yet the acknowledgment leaves out. */
export function listChangedRefused(o: Observed, state: SessionState, kinds: string[]): string[] {
  const ack = acknowledgment(o, state);
  const caps = state.serverCapabilities;
  if (!ack?.asked || !caps) return [];
  return kinds.filter((k) => ack.asked![LIST_FLAG[k]!] === true && obj(caps[k])?.listChanged === true && ack.granted[LIST_FLAG[k]!] !== true);
}

/** What identifies an input request across polls: not its wording, its metadata or a fresh URL. */
export function inputIdentity(request: unknown): string {
  const r = obj(request) ?? {};
  const { _meta: _m, message: _t, url: _u, ...rest } = obj(r.params) ?? {};
  return canonicalWithMeta({ method: r.method, params: rest });
}

/** Helpers shared by the features-*.ts rule groups. */
export type O = Parameters<Rule['check']>[0];

export type S = Parameters<Rule['check']>[2];

export const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

export const LISTEN = 'subscriptions/listen';

export const metaOf = (v: unknown): Record<string, unknown> | undefined => (isObject(v) && isObject(v._meta) ? v._meta : undefined);

/** The params of a notification with this method, from either side. */
export function notification(o: O, method: string): Record<string, unknown> | undefined {
  return o.json && o.json.method === method && !('id' in o.json) && isObject(o.json.params) ? o.json.params : undefined;
}

/** `/a/b` + a key that may hold `/` or `~`. */
export const at = (base: string, key: string | number): string => `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;

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

/** JSON with sorted keys and without `_meta`, to compare answers. */
export const META_ONLY: ReadonlySet<string> = new Set(['_meta']);

export function canonical(v: unknown, skip: ReadonlySet<string> = META_ONLY): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, skip)).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).filter((k) => !skip.has(k)).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k], skip)}`).join(',')}}`;
  return JSON.stringify(v);
}

/**
 * Rule-private memory for one session. A rule sees each message before the engine commits it, so
 * what a message teaches is prepared from the state before it and applied when the next message
 * of the group arrives: every rule of a group judges a message against the same "before". Each
 * rule of the group calls the returned function first, so no message the group sees is missed;
 * and each rule's `on` includes every message `learn` learns from (the group's LEARNS list), so
 * the group sees them all.
 */
export function memory<T>(init: () => T, learn: (t: T, o: O, state: S) => (() => void) | undefined) {
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
export const KIND: Record<string, string> = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources', 'resources/templates/list': 'resources' };

export interface Caching {
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
export let lastKey: { request: Record<string, unknown>; key: string } | undefined;

export function requestKey(request: Record<string, unknown>): string {
  if (lastKey?.request !== request) lastKey = { request, key: `${String(request.method)}\0${canonical(request.params ?? {})}` };
  return lastKey.key;
}

export const completeResult = (o: O) => (o.json && isObject(o.json.result) && o.json.result.resultType !== 'input_required' ? o.json.result : undefined);

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
      t.answers.set(key, [...(t.answers.get(key) ?? []), { ...(auth !== undefined ? { auth } : {}), result: r, seq: o.msg.seq, freshUntil }]);
      const p = t.polls.get(key) ?? { streak: 0 };
      t.polls.set(key, { ...p, answerT: o.msg.t, ...(typeof r.ttlMs === 'number' ? { ttl: r.ttlMs } : {}) });
    };
  },
);

/** What `recall` learns from: every rule of this file runs on these too (as well as on what it
 * judges), so that no message that teaches something is missed. */
export const CACHING_LEARNS: Interest[] = ['client-request', ...[...CACHEABLE].map((m): Interest => `result ${m}`)];

export interface Asks {
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
    if (o.msg.direction === 'client-to-server' && json.method === 'initialize' && isObject(json.params) && isObject(json.params.capabilities)) {
      const caps = json.params.capabilities;
      return () => (t.initCaps = caps);
    }
    if (!o.request || !('id' in json) || !isObject(json.result)) return undefined;
    const forms = new Map<string, Record<string, unknown>>();
    for (const [p, , key] of asked(o, 'elicitation/create')) if (key !== undefined && p.mode !== 'url' && isObject(p.requestedSchema)) forms.set(key, p.requestedSchema);
    if (forms.size === 0) return undefined;
    const retry = mrtrKey(o.request.json);
    return () => t.forms.set(retry, forms);
  },
);

/** What `recall` learns from: every rule of this file runs on these too (as well as on what it
 * judges), so that no message that teaches something is missed. */
export const ASK_LEARNS: Interest[] = ['client-request initialize', 'client-notification initialize', 'server-input_required'];

export const CHANGED_KIND: Record<string, string> = {
  'notifications/tools/list_changed': 'tools', 'notifications/prompts/list_changed': 'prompts', 'notifications/resources/list_changed': 'resources',
};

export interface Subscriptions {
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
  `client-request ${LISTEN}`, `server-result ${LISTEN}`, 'server-notification notifications/subscriptions/acknowledged',
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
    id, level: 'SHOULD', obs: 'N', era: 'modern', source,
    title: `A server declaring ${kind}.listChanged sends notifications/${kind}/list_changed to the subscriptions that asked`,
    on: [...SUBSCRIPTION_LEARNS, `server-result ${method}`],
    check(o, report, state) {
      const t = recallSubscriptions(o, state);
      const cap = state.serverCapabilities?.[kind];
      if (o.msg.direction !== 'server-to-client' || !isObject(cap) || cap.listChanged !== true) return;
      const r = o.request?.method === method && o.json && isObject(o.json.result) ? o.json.result : undefined;
      const before = state.lastList.get(method);
      if (!r || !before || !state.listChanged.has(kind) || (isObject(o.request!.json.params) && o.request!.json.params.cursor !== undefined)) return;
      if (canonical(r[kind]) === canonical(before.items)) return;
      for (const [key, a] of t.acked) {
        const open = state.pending['client-to-server'].has(key);
        if (open && a.filter[flag] === true && a.seq < before.seq && (t.delivered.get(key)?.get(kind) ?? -1) < before.seq) {
          report(`/result/${kind}`, `${method} changed since message #${before.seq} and a list_changed went out, but not to subscription ${key}, which asked for ${flag}`);
        }
      }
    },
  };
}

/** One challenge of a WWW-Authenticate header (RFC 9110 §11.6.1): scheme and auth-params. */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

export const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/** Parses WWW-Authenticate values (several challenges may share one value, comma-separated). */
export function parseChallenges(headers: HttpHeaders | undefined): Challenge[] {
  const raw = headers?.['www-authenticate'];
  const out: Challenge[] = [];
  for (const value of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
    let i = 0;
    let current: Challenge | undefined;
    const token = (): string => {
      const start = i;
      while (i < value.length && TOKEN_CHAR.test(value[i]!)) i++;
      return value.slice(start, i);
    };
    const spaces = (): void => {
      while (value[i] === ' ' || value[i] === '\t') i++;
    };
    while (i < value.length) {
      while (i < value.length && /[\s,]/.test(value[i]!)) i++;
      const name = token();
      if (!name) {
        i++;
        continue;
      }
      spaces();
      if (value[i] !== '=') {
        out.push((current = { scheme: name, params: {} }));
        continue;
      }
      i++;
      spaces();
      let v = '';
      if (value[i] === '"') {
        i++;
        while (i < value.length && value[i] !== '"') v += value[i] === '\\' ? value[++i] ?? '' : value[i], i++;
        i++;
      } else {
        const start = i;
        while (i < value.length && value[i] !== ',' && !/\s/.test(value[i]!)) i++;
        v = value.slice(start, i);
      }
      if (current) current.params[name.toLowerCase()] = v;
    }
  }
  return out;
}

/** Exchanges the proxy answered itself (Host/Origin refusal, upstream down) are not the server's. */
export const fromServer = (x: HttpExchange): boolean => x.status !== undefined && x.outcome !== 'refused' && x.outcome !== 'upstream-error';

/** Exchanges the proxy answered itself (Host/Origin refusal, upstream down) are not the server's. */
export const factFromServer = (x: ExchangeFact): boolean => x.status !== undefined && x.outcome !== 'refused' && x.outcome !== 'upstream-error';

export function exchangesOf(sessions: readonly SessionDigest[]): ExchangeFact[] {
  return sessions.flatMap((s) => [...s.exchanges.values()]).sort((a, b) => a.t - b.t || a.id - b.id);
}

/** Rule-private memory of one session, one WeakMap per concern. */
export const perSession = sessionSlot;

export const exchangeOf = (o: Observed, state: SessionState): HttpExchange | undefined => (o.msg.http ? state.exchanges.get(o.msg.http.exchange) : undefined);

export const is2xx = (x: HttpExchange): boolean => x.status !== undefined && x.status >= 200 && x.status < 300;

/** Statuses of layers before JSON-RPC dispatch (authorization, HTTP method, size, media type, rate limits). */
export const PRE_DISPATCH_STATUS = new Set([401, 403, 405, 406, 413, 415, 429]);

/** Errors a server may give before it looks at the method: parse, envelope, headers, version, capabilities. */
export const PRE_DISPATCH_CODES = new Set([-32700, -32600, -32020, -32021, -32022]);

