/**
 * A Streamable HTTP session that never ends (a proxy in front of a busy server for weeks): what
 * the validator keeps of each exchange goes once the exchange is over and judged, so the session
 * holds its exchanges in flight, not every one it ever had. Fed the way the live worker feeds it
 * (envelope, messages, end), with SSE answers, which the most per-exchange rules look at.
 */
import test from 'ava';
import type { HttpExchange } from '../../lib/cassette/cassette.js';
import { frameToMessage, type RecordedMessage } from '../../lib/message.js';
import { SessionValidator } from '../../validators/engine.js';
import { LiveRefs } from '../../validators/live-refs.js';
import { createLiveValidator } from '../../validators/live.js';
import { pino } from 'pino';
import { RULES } from '../../validators/rules/index.js';
import { ENDED_KEPT } from '../../validators/session-bounds.js';

const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-session-id': 'sess-1',
  ...extra,
});

let seq = 0;
function message(x: number, t: number, direction: RecordedMessage['direction'], json: unknown): RecordedMessage {
  return frameToMessage(Buffer.from(JSON.stringify(json)), {
    seq: ++seq,
    t,
    direction,
    channel: 'http',
    terminated: true,
    http: { exchange: x, part: direction === 'client-to-server' ? 'request' : 'sse' },
  });
}

/** What exchange() needs of a validator: the session's own, or the live validator's for one session. */
interface Judge {
  exchange(x: HttpExchange): void;
  check(msg: RecordedMessage): unknown[];
  exchangeEnd(x: HttpExchange, first: RecordedMessage): unknown[];
}

/** One POST exchange: its request, an SSE answer, its end. Returns the violations it got. */
function exchange(v: Judge, x: number, json: Record<string, unknown>, result: unknown): number {
  const t = x * 10;
  const envelope: HttpExchange = { id: x, t, method: 'POST', path: '/mcp', requestHeaders: headers(), outcome: 'complete', mcp: true };
  v.exchange(envelope);
  const first = message(x, t, 'client-to-server', json);
  let found = v.check(first).length;
  found += v.check(message(x, t + 2, 'server-to-client', { jsonrpc: '2.0', id: json.id, result })).length;
  const ended: HttpExchange = {
    ...envelope,
    status: 200,
    contentType: 'text/event-stream',
    responseHeaders: { 'content-type': 'text/event-stream', 'mcp-session-id': 'sess-1' },
    endT: t + 3,
  };
  found += v.exchangeEnd(ended, first).length;
  return found;
}

const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
};
const initialized = { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } };

test('a sessionful HTTP session keeps no ended exchange: after thousands of calls it holds what one call holds', (t) => {
  const v = new SessionValidator({ id: 'live-1', transport: 'streamable-http' }, { rules: RULES, forgetEndedExchanges: true });
  exchange(v, 1, initialize, initialized);
  const afterOne = v.retained;
  for (let x = 2; x < 5002; x++)
    exchange(
      v,
      x,
      { jsonrpc: '2.0', id: x, method: 'tools/call', params: { name: 'echo', arguments: { n: x } } },
      { content: [{ type: 'text', text: String(x) }] },
    );
  t.deepEqual(v.retained, afterOne);
  t.deepEqual(v.retained, { exchanges: 0, exchangeMemories: 0 });
});

test('the live validator, as the proxy runs it, lets ended exchanges go too', (t) => {
  const live = createLiveValidator({ logger: pino({ level: 'silent' }) });
  const session = { id: 'sess-1', transport: 'streamable-http' as const };
  const judge: Judge = {
    exchange: () => {},
    check: (msg) =>
      live.message(session, msg, {
        id: msg.http!.exchange,
        t: msg.t,
        method: 'POST',
        path: '/mcp',
        requestHeaders: headers(),
        outcome: 'complete',
        mcp: true,
      }),
    exchangeEnd: (x, first) => live.exchangeEnd(session, x, first),
  };
  exchange(judge, 1, initialize, initialized);
  for (let x = 2; x < 1002; x++)
    exchange(
      judge,
      x,
      { jsonrpc: '2.0', id: x, method: 'tools/call', params: { name: 'echo', arguments: { n: x } } },
      { content: [{ type: 'text', text: String(x) }] },
    );
  t.deepEqual(live.retained('sess-1'), { exchanges: 0, exchangeMemories: 0 });
});

test('the per-exchange rules still judge each exchange before it is let go: a JSON answer in a 202 is found in every one', (t) => {
  const v = new SessionValidator({ id: 'live-2', transport: 'streamable-http' }, { rules: RULES, forgetEndedExchanges: true });
  let found = 0;
  for (let x = 1; x <= 50; x++) {
    const envelope: HttpExchange = {
      id: x,
      t: x * 10,
      method: 'POST',
      path: '/mcp',
      requestHeaders: headers(),
      outcome: 'complete',
      mcp: true,
    };
    v.exchange(envelope);
    const first = message(x, x * 10, 'client-to-server', { jsonrpc: '2.0', method: 'notifications/initialized' });
    v.check(first);
    const ended: HttpExchange = { ...envelope, status: 200, contentType: 'application/json', endT: x * 10 + 1, responseHeaders: {} };
    found += v.exchangeEnd(ended, first).filter((f) => f.rule === 'HTTP-NOTIF-202').length;
  }
  t.is(found, 50);
  t.is(v.retained.exchanges, 0);
});

test(`ended exchanges without an MCP message (OAuth discovery) stay for the rules that look back, the latest ${ENDED_KEPT}`, (t) => {
  const v = new SessionValidator({ id: 'live-3', transport: 'streamable-http' }, { rules: RULES, forgetEndedExchanges: true });
  for (let x = 1; x <= ENDED_KEPT + 5; x++)
    v.bareExchangeEnd({
      id: x,
      t: x,
      endT: x + 1,
      method: 'GET',
      path: '/.well-known/oauth-protected-resource',
      requestHeaders: {},
      status: 404,
      outcome: 'complete',
      mcp: false,
    });
  t.is(v.retained.exchanges, ENDED_KEPT);
});

test('LiveRefs: the place of each message by seq, the latest `kept` of them once the ring wraps', (t) => {
  const refs = new LiveRefs(8);
  for (let s = 1; s <= 5; s++) refs.set(s, { x: s * 10, k: s % 2 });
  t.deepEqual(refs.get(3), { x: 30, k: 1 });
  t.is(refs.get(6), undefined, 'never set');
  t.is(refs.get(0), undefined);
  for (let s = 6; s <= 20; s++) refs.set(s, { x: s * 10, k: -1 });
  t.deepEqual(refs.get(20), { x: 200, k: -1 });
  t.deepEqual(refs.get(13), { x: 130, k: -1 }, 'the oldest kept');
  t.is(refs.get(12), undefined, 'older than the latest 8');
});
