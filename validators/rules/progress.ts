/** RULES.md §10: progress (PROG). */
import type { Rule } from '../rule.js';
import { progressTokenOf } from '../../lib/progress-token.js';
import { notification } from './support/messages.js';

export const progressRules: Rule[] = [
  {
    id: 'PROG-TOKEN-UNIQUE',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/patterns/progress.mdx §Progress Flow',
    title: 'A progress token is unique across the active requests',
    on: ['client-request'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json)) return;
      const token = progressTokenOf(o.json);
      const earlier = token === undefined ? undefined : state.progress.get(JSON.stringify(token));
      if (earlier && !earlier.answered)
        report('/params/_meta/progressToken', `progress token ${JSON.stringify(token)} is already in use by an active request`);
    },
  },
  {
    id: 'PROG-ACTIVE-ONLY',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/patterns/progress.mdx §Behavior Requirements',
    title: 'Progress names the token of a request in flight',
    on: ['server-notification notifications/progress'],
    check(o, report, state) {
      const p = notification(o, 'notifications/progress');
      if (!p || o.msg.direction !== 'server-to-client') return;
      if (!state.progress.has(JSON.stringify(p.progressToken)))
        report('/params/progressToken', `no request was sent with progress token ${JSON.stringify(p.progressToken)}`);
    },
  },
  {
    id: 'PROG-STOP',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/patterns/progress.mdx §Implementation Notes',
    title: 'No progress after the final response',
    on: ['notification notifications/progress'],
    check(o, report, state) {
      const p = notification(o, 'notifications/progress');
      const known = p ? state.progress.get(JSON.stringify(p.progressToken)) : undefined;
      if (known?.answered)
        report('/params/progressToken', `progress for ${JSON.stringify(p!.progressToken)} after its request was answered`);
    },
  },
  {
    id: 'PROG-MONOTONIC',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/patterns/progress.mdx §Progress Flow',
    title: '`progress` strictly increases per token',
    on: ['notification notifications/progress'],
    check(o, report, state) {
      const p = notification(o, 'notifications/progress');
      const known = p ? state.progress.get(JSON.stringify(p.progressToken)) : undefined;
      if (known && known.last !== undefined && typeof p!.progress === 'number' && p!.progress <= known.last)
        report('/params/progress', `progress ${p!.progress} after ${known.last}: it must increase`);
    },
  },
  {
    id: 'PROG-STREAM',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'Progress travels on the SSE stream of the request it reports on',
    on: ['server-notification notifications/progress'],
    check(o, report, state) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/progress') : undefined;
      const known = p ? state.progress.get(JSON.stringify(p.progressToken)) : undefined;
      const origin = known && !known.answered ? state.pending['client-to-server'].get(known.requestKey) : undefined;
      if (!origin?.msg.http || !o.msg.http || origin.msg.http.exchange === o.msg.http.exchange) return;
      const carrier = state.exchangeRequest(o.msg.http.exchange);
      report(
        '/params/progressToken',
        `progress for ${origin.method} ${JSON.stringify(origin.json.id)} on the stream of ${carrier ? `${carrier.method} ${JSON.stringify(carrier.json.id)}` : 'another exchange'}; progress goes only on the originating request's stream`,
      );
    },
  },
];
