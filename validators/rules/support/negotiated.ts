/** Rule support: what a session negotiated (capabilities, extensions, tasks, input requests), learnt by `memoryOf` from every message. */
import { createHash } from 'node:crypto';
import type { Direction } from '../../../lib/message.js';
import { type Interest, isObject, type Observed } from '../../rule.js';
import { idKey, mrtrKey, sessionSlot, type SessionState } from '../../session-state.js';
import { forgetOldest, PER_REQUEST_KEPT } from '../../session-bounds.js';
import { canonicalWithMeta, isReadableId, type Json, MRTR_METHODS, obj, params, result } from './messages.js';

export const LIST_FLAG: Record<string, string> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/** A JSON-RPC error response whose id is null or absent. */
export const idlessError = (o: Observed): boolean =>
  !!o.json && isObject(o.json.error) && typeof o.json.method !== 'string' && (o.json.id === null || !('id' in o.json));

/**
 * What these rules remember of a session beyond the shared SessionState. It follows the engine's
 * rule: a message is folded in only when the next message is checked, so every rule sees the
 * state before the message it judges.
 */
interface Memory {
  last?: Observed;
  /** Client frames whose id could not be read and that no id-less error answered yet (stdio). */
  unreadable: number;
  /** The kind of each side's last frame, and its last notification. */
  lastKind: Partial<Record<Direction, string>>;
  lastNotification: Partial<Record<Direction, { method: string; seq: number }>>;
  /** MRTR-eligible requests (by untypedKey) whose latest answer had no resultType: read it
   * through `untypedOf`, which first folds in `untypedLater`. */
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

const memories = sessionSlot<Memory>(() => ({
  unreadable: 0,
  lastKind: {},
  lastNotification: {},
  untyped: new Set(),
  untypedLater: [],
  toolsComplete: false,
  taskRequests: new Map(),
  taskIds: new Set(),
  taskKeys: new Map(),
}));

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
  if (o.msg.direction !== 'server-to-client' || typeof o.json?.method !== 'string' || !o.json.method.startsWith('notifications/tasks'))
    return undefined;
  const p = params(o.json);
  return typeof p.taskId === 'string' && isObject(p.inputRequests)
    ? { taskId: p.taskId, inputRequests: p.inputRequests, at: '/params/inputRequests' }
    : undefined;
}

/** How many requests answered without resultType are remembered (the oldest are forgotten
 * first): a retry follows its answer, and a session that runs for weeks must not keep every
 * call it ever saw (a soak of a 2025 session grew by every call's arguments). */
export const UNTYPED_KEPT = PER_REQUEST_KEPT;

/** A request as `untyped` remembers it: the digest of its mrtrKey (method, name, arguments), so
 * an entry costs the same whatever the size of the arguments. */
export const untypedKey = (request: Json): string => createHash('sha256').update(mrtrKey(request)).digest('base64');

export function untypedOf(m: Memory): Set<string> {
  for (const { request, typed } of m.untypedLater) {
    const k = untypedKey(request);
    m.untyped.delete(k);
    if (!typed) m.untyped.add(k);
  }
  m.untypedLater.length = 0;
  forgetOldest(m.untyped, UNTYPED_KEPT);
  return m.untyped;
}

function remember(m: Memory, o: Observed): void {
  const json = o.json;
  if (o.msg.channel !== 'stderr') m.lastKind[o.msg.direction] = o.msg.kind;
  if (o.msg.kind === 'notification') m.lastNotification[o.msg.direction] = { method: String(json?.method), seq: o.msg.seq };
  if (o.msg.direction === 'client-to-server') {
    const unreadable =
      o.msg.kind === 'text' ||
      o.msg.kind === 'non-jsonrpc' ||
      o.msg.kind === 'batch' ||
      (o.msg.kind === 'request' && !isReadableId(json?.id));
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
export const ACKNOWLEDGED: Interest[] = [
  'server-request notifications/subscriptions/acknowledged',
  'server-notification notifications/subscriptions/acknowledged',
];

/** A subscriptions/acknowledged notification: what it grants, and the listen request it answers (when in view). */
export function acknowledgment(o: Observed, state: SessionState): { granted: Json; asked?: Json } | undefined {
  if (o.msg.direction !== 'server-to-client' || o.json?.method !== 'notifications/subscriptions/acknowledged') return undefined;
  const p = params(o.json);
  const sub = obj(p._meta)?.['io.modelcontextprotocol/subscriptionId'];
  const listen =
    sub !== undefined
      ? state.pending['client-to-server'].get(idKey(sub))
      : o.msg.http
        ? state.exchangeRequest(o.msg.http.exchange)
        : undefined;
  const asked = listen?.method === 'subscriptions/listen' ? obj(params(listen.json).notifications) : undefined;
  return { granted: obj(p.notifications) ?? {}, ...(asked ? { asked } : {}) };
}

/** List kinds the listen request asked for and the server declared listChanged for, yet the acknowledgment leaves out. */
export function listChangedRefused(o: Observed, state: SessionState, kinds: string[]): string[] {
  const ack = acknowledgment(o, state);
  const caps = state.serverCapabilities;
  if (!ack?.asked || !caps) return [];
  return kinds.filter(
    (k) => ack.asked![LIST_FLAG[k]!] === true && obj(caps[k])?.listChanged === true && ack.granted[LIST_FLAG[k]!] !== true,
  );
}

/** What identifies an input request across polls: not its wording, its metadata or a fresh URL. */
export function inputIdentity(request: unknown): string {
  const r = obj(request) ?? {};
  const { _meta: _m, message: _t, url: _u, ...rest } = obj(r.params) ?? {};
  return canonicalWithMeta({ method: r.method, params: rest });
}
