/** RULES.md §13: subscriptions (SUB; `subscriptions/listen`, new in 2026-07-28). */
import type { SessionDigest } from '../session-digest.js';
import { type ExchangeRule, type Interest, isObject, type RecordingRule, type Rule } from '../rule.js';
import { idKey } from '../session-state.js';
import { filterOf, listenOf, recallSubscriptions, SUBSCRIPTION_LEARNS } from './support/memories.js';
import { at, LISTEN, metaOf, notification, type O, SUB_ID } from './support/messages.js';

const LISTEN_ONLY = new Set([
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

const FILTER_OF: Record<string, string> = {
  'notifications/tools/list_changed': 'toolsListChanged',
  'notifications/prompts/list_changed': 'promptsListChanged',
  'notifications/resources/list_changed': 'resourcesListChanged',
};

/** The listen request whose stream (HTTP) a server message rides, if any. */
function streamListenOf(o: O, state: Parameters<Rule['check']>[2]) {
  if (!o.msg.http) return undefined;
  const r = state.exchangeRequest(o.msg.http.exchange);
  return r?.method === 'subscriptions/listen' ? r : undefined;
}

/** A new process of the same command and client this soon after the last one ended is a reconnect. */
const RECONNECT_WINDOW_MS = 60_000;

const sameCommand = (a: SessionDigest, b: SessionDigest): boolean => JSON.stringify(a.target) === JSON.stringify(b.target);

export const subscriptionRules: (Rule | ExchangeRule | RecordingRule)[] = [
  {
    id: 'SUB-ID-TAG',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/subscriptions.mdx §Receiving Notifications',
    title: 'Listen-stream notifications carry the listen request id as subscriptionId',
    on: [...LISTEN_ONLY, 'notifications/subscriptions/acknowledged'].map((m): Interest => `server-notification ${m}`),
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.json || typeof o.json.method !== 'string' || 'id' in o.json) return;
      if (!LISTEN_ONLY.has(o.json.method) && o.json.method !== 'notifications/subscriptions/acknowledged') return;
      // The tag is owed only by what a listen stream delivers (NotificationMetaObject). On HTTP a
      // change notification off an open listen stream (another request's stream, or one whose
      // listen was already answered) is SUB-CHANGE-ONLY-ON-LISTEN's or SUB-GRACEFUL's, not this.
      if (o.msg.http && LISTEN_ONLY.has(o.json.method) && !streamListenOf(o, state)) return;
      const sub = metaOf(o.json.params)?.['io.modelcontextprotocol/subscriptionId'];
      const listens = [...state.pending['client-to-server'].values()].filter((r) => r.method === 'subscriptions/listen');
      if (sub === undefined) return report('/params/_meta', `${o.json.method} without io.modelcontextprotocol/subscriptionId`);
      if (!listens.some((r) => idKey(r.json.id) === idKey(sub)))
        report(
          '/params/_meta/io.modelcontextprotocol~1subscriptionId',
          `subscriptionId ${JSON.stringify(sub)} names no open subscriptions/listen request (same value and JSON type)`,
        );
    },
  },
  {
    id: 'SUB-NO-REQSCOPED',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'server/utilities/logging.mdx',
    title: 'No progress or log notifications on a listen stream',
    on: [
      'request notifications/progress',
      'notification notifications/progress',
      'request notifications/message',
      'notification notifications/message',
    ],
    check(o, report, state) {
      if (o.json && (o.json.method === 'notifications/progress' || o.json.method === 'notifications/message') && streamListenOf(o, state))
        report('/method', `${String(o.json.method)} on a subscriptions/listen stream`);
    },
  },
  {
    id: 'SUB-CHANGE-ONLY-ON-LISTEN',
    level: 'desc',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/patterns/subscriptions.mdx',
    title: 'list_changed and resources/updated arrive only on listen streams',
    on: [...LISTEN_ONLY].flatMap((m): Interest[] => [`request ${m}`, `notification ${m}`]),
    check(o, report, state) {
      if (!o.json || typeof o.json.method !== 'string' || !LISTEN_ONLY.has(o.json.method) || !o.msg.http) return;
      const carrier = state.exchangeRequest(o.msg.http.exchange);
      if (carrier && carrier.method !== 'subscriptions/listen')
        report('/method', `${o.json.method} on the stream of a ${carrier.method} request`);
    },
  },
  {
    id: 'SUB-ONLY-REQUESTED',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/subscriptions.mdx §Opening a Stream',
    title: 'A subscription carries only the notification types its filter asked for',
    on: Object.keys(FILTER_OF).flatMap((m): Interest[] => [`server-request ${m}`, `server-notification ${m}`]),
    check(o, report, state) {
      // Own keys only: a method named like an Object.prototype member is no list_changed.
      if (
        o.msg.direction !== 'server-to-client' ||
        !o.json ||
        typeof o.json.method !== 'string' ||
        !Object.hasOwn(FILTER_OF, o.json.method)
      )
        return;
      const sub = metaOf(o.json.params)?.['io.modelcontextprotocol/subscriptionId'];
      const listen = sub === undefined ? streamListenOf(o, state) : state.pending['client-to-server'].get(idKey(sub));
      if (!listen || listen.method !== 'subscriptions/listen') return;
      const filter = isObject(listen.json.params) && isObject(listen.json.params.notifications) ? listen.json.params.notifications : {};
      if (filter[FILTER_OF[o.json.method]!] !== true)
        report('/method', `${o.json.method}, which the subscription's filter did not ask for`);
    },
  },
  {
    id: 'SUB-ACK-FIRST',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/subscriptions.mdx §Acknowledgment',
    title: 'notifications/subscriptions/acknowledged is the first message of a subscription',
    on: [...SUBSCRIPTION_LEARNS, 'server-notification'],
    check(o, report, state) {
      const t = recallSubscriptions(o, state);
      if (o.msg.direction !== 'server-to-client' || !o.json || typeof o.json.method !== 'string' || 'id' in o.json) return;
      if (o.json.method === 'notifications/subscriptions/acknowledged') return;
      const listen = listenOf(o, state);
      if (listen && !t.acked.has(idKey(listen.json.id)))
        report(
          '/method',
          `${o.json.method} on subscription ${JSON.stringify(listen.json.id)} before its notifications/subscriptions/acknowledged`,
        );
    },
  },
  {
    id: 'SUB-ACK-SUBSET',
    level: 'desc',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/subscriptions.mdx §Acknowledgment',
    title: 'The acknowledged filter is a subset of the requested one',
    on: [...SUBSCRIPTION_LEARNS, 'server-notification notifications/subscriptions/acknowledged'],
    check(o, report, state) {
      recallSubscriptions(o, state);
      const ack = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/subscriptions/acknowledged') : undefined;
      const listen = ack ? listenOf(o, state) : undefined;
      if (!listen || !isObject(ack!.notifications)) return;
      const asked = filterOf(listen);
      for (const [key, v] of Object.entries(ack!.notifications)) {
        if (v === true && asked[key] !== true)
          report(at('/params/notifications', key), `the acknowledgment grants ${key}, which the request did not ask for`);
        if (Array.isArray(v)) {
          const wanted = Array.isArray(asked[key]) ? (asked[key] as unknown[]) : [];
          v.forEach((x, i) => {
            if (!wanted.includes(x))
              report(
                `${at('/params/notifications', key)}/${i}`,
                `the acknowledgment grants ${JSON.stringify(x)} in ${key}, which the request did not list`,
              );
          });
        }
      }
    },
  },
  {
    id: 'SUB-GRACEFUL',
    level: 'SHOULD',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/subscriptions.mdx §Graceful Closure',
    title: 'A subscription ends with a result carrying its subscriptionId, and then its stream closes',
    on: [...SUBSCRIPTION_LEARNS, 'server-result subscriptions/listen', 'server-notification'],
    check(o, report, state) {
      const t = recallSubscriptions(o, state);
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      if (o.request?.method === LISTEN && isObject(o.json.result)) {
        const sub = metaOf(o.json.result)?.[SUB_ID];
        if (sub === undefined)
          return report('/result/_meta', `the result ending subscription ${JSON.stringify(o.request.json.id)} lacks _meta ${SUB_ID}`);
        if (idKey(sub) !== idKey(o.request.json.id))
          report(
            at('/result/_meta', SUB_ID),
            `subscriptionId ${JSON.stringify(sub)} is not the listen request's id ${JSON.stringify(o.request.json.id)} (same value and JSON type)`,
          );
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
      report(
        '',
        `the server closed the stream of subscription ${JSON.stringify(listen.json.id)} without first answering it with {resultType: "complete", _meta: {${SUB_ID}}}`,
      );
    },
  },
  {
    id: 'SUB-HTTP-SSE',
    level: 'desc',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'On HTTP a subscriptions/listen is answered with a long-lived text/event-stream',
    on: [...SUBSCRIPTION_LEARNS, 'server-json'],
    check(o, report, state) {
      recallSubscriptions(o, state);
      const x = o.msg.http ? state.exchanges.get(o.msg.http.exchange) : undefined;
      if (o.msg.direction !== 'server-to-client' || !x || !o.json || 'error' in o.json) return; // a refusal may be plain JSON
      if (state.exchangeRequest(x.id)?.method !== LISTEN || (x.contentType ?? '').toLowerCase().startsWith('text/event-stream')) return;
      if (state.onceIn(x.id, 'listen-sse'))
        report(
          '',
          `subscriptions/listen answered with ${JSON.stringify(x.contentType ?? '')}; a listen stream is a long-lived text/event-stream`,
        );
    },
  },
  {
    // "On stdio, if the connection is terminated and then re-established, the client MUST re-send
    // subscriptions/listen." The conservative reading of a reconnect: the process ended by itself
    // (not closed by the client, not stopped by a signal) with an acknowledged listen still open,
    // and the same client starts the same command again within a minute. That next process is
    // judged only if it lasted long enough to re-subscribe: it made another request.
    id: 'SUB-STDIO-RESUB',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    transport: 'stdio',
    source: 'basic/patterns/subscriptions.mdx §Graceful Closure',
    title: 'After a stdio reconnect the client re-sends subscriptions/listen',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const byStart = [...sessions].sort((a, b) => a.startT - b.startT);
      for (const a of byStart) {
        const open = a.requests.find((r) => r.method === LISTEN && r.era === 'modern' && r.acked && !r.closed);
        if (!open || !a.client || a.end?.reason !== 'exit' || a.end.initiatedBy !== undefined) continue;
        const b = byStart.find((s) => s !== a && s.startT >= a.endT && sameCommand(s, a) && s.client === a.client);
        if (!b || b.startT - a.endT > RECONNECT_WINDOW_MS || b.requests.some((r) => r.method === LISTEN)) continue;
        const other = b.requests.find((r) => r.era === 'modern' && r.method !== 'server/discover');
        if (!other) continue;
        report(
          other.at,
          '',
          `the server process of session ${a.id} ended while its subscriptions/listen (message #${open.at.seq}) was acknowledged and open; this reconnect of the same client to the same command makes requests but never re-sends subscriptions/listen, and the server holds no subscription state across processes`,
        );
      }
    },
  },
];
