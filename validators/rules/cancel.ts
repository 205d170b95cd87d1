/** RULES.md §11: cancellation (CANCEL). */
import { type BareExchangeRule, type ExchangeRule, isObject, type Rule, type SessionEndRule } from '../rule.js';
import { idKey, sessionSlot } from '../session-state.js';
import { perSession } from './support/http.js';
import { recallSubscriptions, SUBSCRIPTION_LEARNS } from './support/memories.js';
import { LISTEN, notification } from './support/messages.js';

/** §6-12 of RULES.md: resources, prompts, completion, logging, progress, cancellation, pagination, caching. */
const unusableAnswers = sessionSlot(() => new Set<string>());

/** Non-standard spellings a client might use to cancel (LSP's `$/cancelRequest` and friends). */
const OTHER_CANCEL = /^(\$\/cancelRequest|cancel|cancell?ed|notifications\/cancel|notifications\/canceled|notifications\/cancelRequest)$/;

// --- CANCEL-SERVER-TEARDOWN -----------------------------------------------------------------------

/** Listen ids the server itself cancelled (notifications/cancelled on stdio). */
const serverCancelled = perSession(() => new Set<string>());

export const cancelRules: (Rule | ExchangeRule | BareExchangeRule | SessionEndRule)[] = [
  {
    id: 'CANCEL-REF-VALID',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/patterns/cancellation.mdx §Behavior Requirements',
    title: 'notifications/cancelled names a request the client has in flight',
    on: ['server-result', 'client-notification notifications/cancelled'],
    check(o, report, state) {
      // A response a client cannot accept (a result that is not an object) leaves the request in
      // flight for the client: cancelling it then is the server's fault (ENV-RES-RESULT), not this.
      if (o.request && o.msg.direction === 'server-to-client' && o.json && !isObject(o.json.result) && !('error' in o.json))
        unusableAnswers(state).add(idKey(o.json.id));
      const p = o.msg.direction === 'client-to-server' ? notification(o, 'notifications/cancelled') : undefined;
      // A stateless HTTP exchange is a session of its own: the request it cancels is in another.
      if (o.transport === 'streamable-http' && !state.manyExchanges) return;
      if (p && unusableAnswers(state).has(idKey(p.requestId))) return;
      // Without a requestId nothing is named: the shape is CANCEL-STDIO's (and the schema's).
      if (p && p.requestId !== undefined && !state.pending['client-to-server'].has(idKey(p.requestId)))
        report('/params/requestId', `request ${JSON.stringify(p.requestId)} is not in flight`);
    },
  },
  {
    id: 'CANCEL-SILENCE',
    level: 'MUST NOT',
    obs: 'N',
    era: 'all',
    source: 'basic/transports/stdio.mdx §Cancellation',
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
    id: 'CANCEL-STDIO',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    transport: 'stdio',
    source: 'basic/patterns/cancellation.mdx §Transport-Specific Cancellation',
    title: 'On stdio the client cancels with notifications/cancelled naming the request id',
    on: ['client-request', 'client-notification'],
    check(o, report) {
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string') return;
      if (OTHER_CANCEL.test(o.json.method))
        return report(
          '/method',
          `a cancellation sent as ${o.json.method}; on stdio a client cancels with notifications/cancelled and the request's id in params.requestId`,
        );
      const p = notification(o, 'notifications/cancelled');
      if (p && !('requestId' in p))
        report(
          '/params/requestId',
          `notifications/cancelled without params.requestId${'id' in p ? ' (the id is in params.id)' : ''}; it must name the request to cancel`,
        );
    },
  },
  {
    id: 'CANCEL-HTTP',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/patterns/cancellation.mdx §Transport-Specific Cancellation',
    title: 'On HTTP a stream is ended by closing it, not by a server notifications/cancelled',
    on: ['server-notification notifications/cancelled'],
    check(o, report, state) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/cancelled') : undefined;
      if (!p) return;
      const ref = state.pending['client-to-server'].get(idKey(p.requestId));
      report(
        '/method',
        `the server sent notifications/cancelled${ref ? ` for ${ref.method} ${JSON.stringify(ref.json.id)}` : ''} over HTTP; on Streamable HTTP closing the SSE stream is the cancellation, and the notification is stdio-only`,
      );
    },
  },
  {
    id: 'CANCEL-SERVER-SUBS-ONLY',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/cancellation.mdx §Behavior Requirements',
    title: 'A server sends notifications/cancelled only to end a subscriptions/listen',
    on: [...SUBSCRIPTION_LEARNS, 'server-notification notifications/cancelled'],
    check(o, report, state) {
      const t = recallSubscriptions(o, state);
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/cancelled') : undefined;
      if (!p || t.listens.has(idKey(p.requestId))) return;
      const ref = state.pending['client-to-server'].get(idKey(p.requestId));
      report(
        '/params/requestId',
        `the server cancelled ${ref ? `${ref.method} ${JSON.stringify(ref.json.id)}` : `request ${JSON.stringify(p.requestId)}`}; servers use notifications/cancelled only to end a subscriptions/listen`,
      );
    },
  },
  {
    // C1: cancellation.mdx says MUST send notifications/cancelled, subscriptions.mdx says SHOULD
    // answer the listen: either will do, and neither before the close is a warning. Judged only
    // when the server shut down deliberately: it exited cleanly (code 0), on its own or asked to
    // by a signal. A crash or a kill is an abrupt close that carries nothing (schema.ts:
    // SubscriptionsListenResult), and a close the client started (its stdin EOF) or a client
    // that went away is not the server's teardown.
    id: 'CANCEL-SERVER-TEARDOWN',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    transport: 'stdio',
    source: 'basic/patterns/cancellation.mdx',
    severity: 'warning',
    title: 'A server that ends a stdio session ends its open subscriptions first (result or notifications/cancelled)',
    on: ['server-notification notifications/cancelled'],
    check(o, _report, state) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/cancelled') : undefined;
      if (p) serverCancelled(state).add(idKey(p.requestId));
    },
    checkSessionEnd(end, report, state) {
      if (end?.reason !== 'exit' || end.exitCode !== 0 || end.initiatedBy === 'host-eof' || end.initiatedBy === 'host-gone') return;
      const cancelled = serverCancelled(state);
      for (const r of state.pending['client-to-server'].values()) {
        const key = idKey(r.json.id);
        if (r.method !== LISTEN || r.era !== 'modern' || state.cancelled.has(key) || cancelled.has(key)) continue;
        report(
          r.msg.seq,
          '',
          `the session closed while subscription ${key} was open, and the server sent neither its subscriptions/listen result nor notifications/cancelled for it; end each subscription with one of them before closing`,
        );
      }
    },
  },
];
