import { isObject, type Rule } from '../rule.js';
import { idKey, sessionSlot, type PendingRequest } from '../session-state.js';

/** Helpers shared by the features-*.ts rule groups. */
export type O = Parameters<Rule['check']>[0];
export type S = Parameters<Rule['check']>[2];

export const SUB_ID = 'io.modelcontextprotocol/subscriptionId';
export const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
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
const META_ONLY: ReadonlySet<string> = new Set(['_meta']);

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
