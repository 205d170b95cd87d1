import type { ExchangeRule } from '../rule.js';
import { isObject, type Interest, type Rule } from '../rule.js';
import { idKey } from '../session-state.js';
import { LISTEN, SUB_ID, at, canonical, filterOf, listenOf, memory, metaOf, notification } from './features-common.js';

const CHANGED_KIND: Record<string, string> = {
  'notifications/tools/list_changed': 'tools', 'notifications/prompts/list_changed': 'prompts', 'notifications/resources/list_changed': 'resources',
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

const recall = memory<Subscriptions>(
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
const LEARNS: Interest[] = [
  `client-request ${LISTEN}`, `server-result ${LISTEN}`, 'server-notification notifications/subscriptions/acknowledged',
  ...Object.keys(CHANGED_KIND).flatMap((m): Interest[] => [`server-request ${m}`, `server-notification ${m}`]),
];

/**
 * A server that declares `listChanged` for resources or prompts tells every subscriber about a
 * change: a change announced on one subscription also reaches each other open, acknowledged
 * subscription that asked for the kind. (A change announced nowhere is *-LIST-INVARIANT's, and an
 * acknowledgment that refuses the kind is CAP-LISTCHANGED's.)
 */
function listChanged(kind: 'resources' | 'prompts', id: string, source: string): Rule {
  const flag = `${kind}ListChanged`;
  const method = `${kind}/list`;
  return {
    id, level: 'SHOULD', obs: 'N', era: 'modern', source,
    title: `A server declaring ${kind}.listChanged sends notifications/${kind}/list_changed to the subscriptions that asked`,
    on: [...LEARNS, `server-result ${method}`],
    check(o, report, state) {
      const t = recall(o, state);
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

/** §13 of RULES.md (subscriptions) and the rules that depend on subscription state. */
export const subscriptionRules: (Rule | ExchangeRule)[] = [
  {
    id: 'RES-UPDATED-SCOPE', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'basic/patterns/subscriptions.mdx §Opening a Stream',
    title: 'resources/updated only for URIs the subscription listed in resourceSubscriptions',
    on: [...LEARNS, 'server-notification notifications/resources/updated'],
    check(o, report, state) {
      recall(o, state);
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/resources/updated') : undefined;
      // Off a listen stream it is SUB-CHANGE-ONLY-ON-LISTEN's or SUB-ID-TAG's.
      const listen = p && typeof p.uri === 'string' ? listenOf(o, state) : undefined;
      if (!listen) return;
      const uri = p!.uri as string;
      const listed = filterOf(listen).resourceSubscriptions;
      const subs = Array.isArray(listed) ? listed.filter((s): s is string => typeof s === 'string') : [];
      // "This might be a sub-resource of the one that the client actually subscribed to."
      if (subs.some((s) => uri.startsWith(s))) return;
      report('/params/uri', subs.length ? `resources/updated for ${uri}, which is neither one of nor under the subscribed ${subs.join(', ')}` : `resources/updated for ${uri} on a subscription that listed no resourceSubscriptions`);
    },
  },
  listChanged('resources', 'RES-LISTCHANGED', 'server/resources.mdx §List Changed Notification'),
  listChanged('prompts', 'PROMPTS-LISTCHANGED', 'server/prompts.mdx §List Changed Notification'),
  {
    id: 'SUB-ACK-FIRST', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/patterns/subscriptions.mdx §Acknowledgment',
    title: 'notifications/subscriptions/acknowledged is the first message of a subscription',
    on: [...LEARNS, 'server-notification'],
    check(o, report, state) {
      const t = recall(o, state);
      if (o.msg.direction !== 'server-to-client' || !o.json || typeof o.json.method !== 'string' || 'id' in o.json) return;
      if (o.json.method === 'notifications/subscriptions/acknowledged') return;
      const listen = listenOf(o, state);
      if (listen && !t.acked.has(idKey(listen.json.id))) report('/method', `${o.json.method} on subscription ${JSON.stringify(listen.json.id)} before its notifications/subscriptions/acknowledged`);
    },
  },
  {
    id: 'SUB-ACK-SUBSET', level: 'desc', obs: 'N', era: 'modern', source: 'basic/patterns/subscriptions.mdx §Acknowledgment',
    title: 'The acknowledged filter is a subset of the requested one',
    on: [...LEARNS, 'server-notification notifications/subscriptions/acknowledged'],
    check(o, report, state) {
      recall(o, state);
      const ack = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/subscriptions/acknowledged') : undefined;
      const listen = ack ? listenOf(o, state) : undefined;
      if (!listen || !isObject(ack!.notifications)) return;
      const asked = filterOf(listen);
      for (const [key, v] of Object.entries(ack!.notifications)) {
        if (v === true && asked[key] !== true) report(at('/params/notifications', key), `the acknowledgment grants ${key}, which the request did not ask for`);
        if (Array.isArray(v)) {
          const wanted = Array.isArray(asked[key]) ? (asked[key] as unknown[]) : [];
          v.forEach((x, i) => {
            if (!wanted.includes(x)) report(`${at('/params/notifications', key)}/${i}`, `the acknowledgment grants ${JSON.stringify(x)} in ${key}, which the request did not list`);
          });
        }
      }
    },
  },
  {
    id: 'SUB-GRACEFUL', level: 'SHOULD', obs: 'N', era: 'modern', source: 'basic/patterns/subscriptions.mdx §Graceful Closure',
    title: 'A subscription ends with a result carrying its subscriptionId, and then its stream closes',
    on: [...LEARNS, 'server-result subscriptions/listen', 'server-notification'],
    check(o, report, state) {
      const t = recall(o, state);
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      if (o.request?.method === LISTEN && isObject(o.json.result)) {
        const sub = metaOf(o.json.result)?.[SUB_ID];
        if (sub === undefined) return report('/result/_meta', `the result ending subscription ${JSON.stringify(o.request.json.id)} lacks _meta ${SUB_ID}`);
        if (idKey(sub) !== idKey(o.request.json.id)) report(at('/result/_meta', SUB_ID), `subscriptionId ${JSON.stringify(sub)} is not the listen request's id ${JSON.stringify(o.request.json.id)} (same value and JSON type)`);
        return;
      }
      if (o.msg.http && t.closed.has(o.msg.http.exchange) && typeof o.json.method === 'string' && !('id' in o.json)) {
        report('/method', `${o.json.method} after the result that ended the subscription; the stream should close after it`);
      }
    },
    // HTTP: the listen stream ended cleanly (its body ended; not cut off, not dropped by the
    // client) while the listen was still unanswered: the server closed it without the result.
    checkExchange(x, _first, report, state) {
      const listen = state.exchangeRequest(x.id);
      if (x.outcome !== 'complete' || x.endT === undefined || listen?.method !== LISTEN || listen.era !== 'modern') return;
      report('', `the server closed the stream of subscription ${JSON.stringify(listen.json.id)} without first answering it with {resultType: "complete", _meta: {${SUB_ID}}}`);
    },
  },
  {
    id: 'SUB-HTTP-SSE', level: 'desc', obs: '1', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'On HTTP a subscriptions/listen is answered with a long-lived text/event-stream',
    on: [...LEARNS, 'server-json'],
    check(o, report, state) {
      recall(o, state);
      const x = o.msg.http ? state.exchanges.get(o.msg.http.exchange) : undefined;
      if (o.msg.direction !== 'server-to-client' || !x || !o.json || 'error' in o.json) return; // a refusal may be plain JSON
      if (state.exchangeRequest(x.id)?.method !== LISTEN || (x.contentType ?? '').toLowerCase().startsWith('text/event-stream')) return;
      if (state.once(`listen-sse:${x.id}`)) report('', `subscriptions/listen answered with ${JSON.stringify(x.contentType ?? '')}; a listen stream is a long-lived text/event-stream`);
    },
  },
  {
    id: 'CANCEL-SERVER-SUBS-ONLY', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'basic/patterns/cancellation.mdx §Behavior Requirements',
    title: 'A server sends notifications/cancelled only to end a subscriptions/listen',
    on: [...LEARNS, 'server-notification notifications/cancelled'],
    check(o, report, state) {
      const t = recall(o, state);
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/cancelled') : undefined;
      if (!p || t.listens.has(idKey(p.requestId))) return;
      const ref = state.pending['client-to-server'].get(idKey(p.requestId));
      report('/params/requestId', `the server cancelled ${ref ? `${ref.method} ${JSON.stringify(ref.json.id)}` : `request ${JSON.stringify(p.requestId)}`}; servers use notifications/cancelled only to end a subscriptions/listen`);
    },
  },
];
