/** RULES.md §19, Streamable HTTP: the POST and GET exchanges, their bodies and SSE streams. */
import { type ExchangeRule, NO_BATCHES, type Rule } from '../../rule.js';
import { exchangeSlot, sessionSlot } from '../../session-state.js';
import { exchangeOf } from '../support/http.js';

/** Per session: what the HTTP rules remember between messages and exchanges. */
interface HttpState {
  /** A POST to the endpoint was answered 2xx in this session. */
  postAccepted: boolean;
}

const httpState = sessionSlot<HttpState>(() => ({ postAccepted: false }));
/** Exchanges whose response carried a body: `reply` when it was a JSON-RPC response. */
const bodiesOf = exchangeSlot<'reply' | 'other'>();
/** SSE exchanges: when the last response to the request they carried arrived. */
const finalAtOf = exchangeSlot<number>();

/** Notifications whose place on a 2026-07-28 stream other rules judge (LOG-*, CANCEL-HTTP, SUB-*). */
const MODERN_STREAM_RULED = new Set([
  'notifications/message',
  'notifications/cancelled',
  'notifications/subscriptions/acknowledged',
  'notifications/tools/list_changed',
  'notifications/prompts/list_changed',
  'notifications/resources/list_changed',
  'notifications/resources/updated',
]);

/** How long a request stream may stay open after its final response before that counts. */
const SSE_LINGER_MS = 2000;

export const streamsRules: (Rule | ExchangeRule)[] = [
  {
    id: 'HTTP-SSE-ONE-RESP',
    level: 'derived',
    obs: 'N',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Message Flow',
    title: "A request's stream carries exactly one response, with the request's id",
    on: ['server-response'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || o.msg.http?.part !== 'sse' || !o.json || !('result' in o.json || 'error' in o.json))
        return;
      if ((state.responsesInExchange.get(o.msg.http.exchange) ?? 0) >= 1) report('', 'a second response on the same request stream');
    },
  },
  {
    id: 'HTTP-ENDPOINT',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx',
    title: 'The MCP endpoint accepts POST',
    on: [],
    check() {},
    // A 405 alone may come from a server of the old HTTP+SSE transport (which clients probe for),
    // so it counts only once the same session has seen the endpoint accept a POST.
    checkExchange(x, _first, report, state) {
      const s = httpState(state);
      if (x.method !== 'POST' || !x.mcp || x.status === undefined) return;
      if (x.status === 405 && s.postAccepted)
        report(
          '',
          `POST ${x.path.split('?')[0]} was answered 405 Method Not Allowed, although the endpoint accepted POST earlier in this session; the MCP endpoint must accept POST`,
        );
      if (x.status >= 200 && x.status < 300) s.postAccepted = true;
    },
  },
  {
    id: 'HTTP-POST',
    level: 'MUST',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'Every client message is sent with HTTP POST',
    on: ['client'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      if (o.msg.direction === 'client-to-server' && x && x.method !== 'POST' && state.onceIn(x.id, 'post'))
        report('', `a JSON-RPC message sent with HTTP ${x.method}; every client message is a new POST to the MCP endpoint`);
    },
  },
  {
    // Batches (ENV-NO-BATCH), client responses (ENV-NO-CLIENT-RESP), a missing `jsonrpc`
    // (ENV-JSONRPC20) and invalid UTF-8 (ENV-UTF8) have rules of their own.
    id: 'HTTP-BODY-ONE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Sending Messages',
    revisions: NO_BATCHES,
    title: 'A POST body is exactly one JSON-RPC request or notification',
    on: ['client-other', 'client-nonjson'],
    check(o, report) {
      if (o.msg.direction !== 'client-to-server' || o.msg.http?.part !== 'request' || o.msg.rawBase64 !== undefined) return;
      if (o.msg.kind === 'text')
        report(
          '',
          `the POST body is not one JSON value (${JSON.stringify((o.msg.raw ?? '').slice(0, 60))}); send exactly one JSON-RPC request or notification`,
        );
      else if (o.msg.kind === 'non-jsonrpc' && (!o.json || o.json.jsonrpc === '2.0'))
        report('', 'the POST body is JSON but neither a JSON-RPC request nor a notification');
    },
  },
  {
    id: 'HTTP-NOTIF-202',
    level: 'MUST',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'An accepted notification gets 202 Accepted with no body',
    on: ['server'],
    check(o, _report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.msg.http) return;
      const bodies = bodiesOf(state);
      if (o.msg.kind === 'response' || o.msg.kind === 'error') bodies.set(o.msg.http.exchange, 'reply');
      else if (!bodies.has(o.msg.http.exchange)) bodies.set(o.msg.http.exchange, 'other');
    },
    // A JSON-RPC result or error in the body is ENV-NOTIF-NO-REPLY's (an error body with an
    // error status is allowed); this rule judges the status and any other body.
    checkExchange(x, first, report, state) {
      if (first.direction !== 'client-to-server' || first.kind !== 'notification' || x.status === undefined) return;
      const body = bodiesOf(state).get(x.id);
      if (x.outcome === 'refused' || x.outcome === 'upstream-error' || body === 'reply') return;
      const method = String((first.json as { method?: unknown }).method);
      if (x.status >= 200 && x.status < 300 && x.status !== 202)
        report(
          '',
          `the ${method} notification was accepted with HTTP ${x.status}; an accepted notification gets 202 Accepted with no body`,
        );
      else if (x.status === 202 && body) report('', `the 202 answer to the ${method} notification has a body; it must have none`);
    },
  },
  {
    id: 'HTTP-SSE-NO-REQ',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'No JSON-RPC requests on a 2026-07-28 SSE stream',
    on: ['server-request'],
    check(o, report) {
      if (o.msg.direction === 'server-to-client' && o.msg.http?.part === 'sse' && o.msg.kind === 'request') {
        report(
          '',
          `server→client request ${String(o.json?.method)} on an SSE stream; on 2026-07-28 it belongs in an InputRequiredResult's inputRequests`,
        );
      }
    },
  },
  {
    // After the final response: a second response is HTTP-SSE-ONE-RESP's, progress is
    // PROG-STOP's, a listen stream's close is SUB-GRACEFUL's, and on 2026-07-28 requests, log
    // messages, cancellations and subscription notifications have stream rules of their own.
    id: 'HTTP-SSE-END',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: "The final response ends the request's SSE stream",
    on: ['server-json'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || o.msg.http?.part !== 'sse' || !o.json) return;
      const x = o.msg.http.exchange;
      const finalAt = finalAtOf(state);
      if ('result' in o.json || 'error' in o.json) {
        if (o.request?.msg.http?.exchange === x && o.request.method !== 'subscriptions/listen') finalAt.set(x, o.msg.t);
        return;
      }
      const method = o.json.method;
      if (
        !finalAt.has(x) ||
        method === 'notifications/progress' ||
        (o.era === 'modern' && ('id' in o.json || MODERN_STREAM_RULED.has(method as string)))
      )
        return;
      if (state.onceIn(x, 'sse-end'))
        report('', `${String(method)} after the final response on the same stream; the response should end the stream`);
    },
    checkExchange(x, _first, report, state) {
      const at = finalAtOf(state).get(x.id);
      if (at === undefined || x.endT === undefined || x.endT - at <= SSE_LINGER_MS) return;
      if (state.onceIn(x.id, 'sse-end'))
        report(
          '',
          `the SSE stream stayed open ${Math.round(x.endT - at)} ms after the final response${x.outcome === 'client-aborted' ? ', until the client closed it' : ''}; the response should end the stream`,
        );
    },
  },
];
