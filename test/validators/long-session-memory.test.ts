/**
 * A session that runs for weeks: what the rules remember of it must not grow with every call.
 * ENV-RESULTTYPE-LEGACY remembers the calls answered without resultType (a 2025 answer is
 * complete; retrying it is the client's fault) by a digest of each call, and forgets the oldest
 * past UNTYPED_KEPT: a retry right after its answer is still judged, one of a call answered
 * twenty thousand calls ago is not. (A soak of a 2025 session grew by every call's arguments.)
 */
import test from 'ava';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { UNTYPED_KEPT } from '../../validators/rules/support/negotiated.js';
import { PER_REQUEST_KEPT } from '../../validators/session-bounds.js';
import { fixtureSession } from '../helpers/fixtures.js';

const big = 'x'.repeat(4096);
const call = (id: number, n: number, retry = false) => [
  'c',
  {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'confirm', arguments: { n, big }, ...(retry ? { inputResponses: {}, requestState: 'hm4c7Qz9Lx2Vb8Nw5Rt1Yp6K' } : {}) },
  },
];
const answer = (id: number) => ['s', { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } }];

/** A 2025-11-25 stdio handshake: initialize, its answer, initialized. */
const handshake = (): unknown[][] => [
  [
    'c',
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
    },
  ],
  [
    's',
    {
      jsonrpc: '2.0',
      id: 0,
      result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
    },
  ],
  ['c', { jsonrpc: '2.0', method: 'notifications/initialized' }],
];

function session(calls: number, retries: number[]): ReturnType<typeof fixtureSession> {
  const messages: unknown[][] = handshake();
  let id = 1;
  for (let n = 0; n < calls; n++, id++) messages.push(call(id, n), answer(id));
  for (const n of retries) messages.push(call(id, n, true), answer(id++));
  return fixtureSession({
    rule: 'memory',
    name: 'long',
    description: '',
    transport: 'stdio',
    expect: [],
    messages: messages as [string, unknown][],
  });
}

const retriesFlagged = (s: ReturnType<typeof fixtureSession>): number[] =>
  validateSession(s, { rules: RULES })
    .filter((v) => v.rule === 'ENV-RESULTTYPE-LEGACY')
    .map((v) => v.seq);

test('a retry of a call answered without resultType is judged, however large its arguments (the call is remembered by a digest)', (t) => {
  const s = session(3, [0, 2]);
  const flagged = retriesFlagged(s);
  t.is(flagged.length, 2);
  t.deepEqual(
    flagged,
    s.messages.filter((m) => JSON.stringify(m.json).includes('requestState')).map((m) => m.seq),
  );
});

test(`past ${UNTYPED_KEPT} calls the oldest are forgotten: a retry of the latest is judged, one of the first is not`, (t) => {
  const s = session(UNTYPED_KEPT + 10, [UNTYPED_KEPT + 9, 0]);
  const retries = s.messages.filter((m) => JSON.stringify(m.json).includes('requestState')).map((m) => m.seq);
  t.deepEqual(retriesFlagged(s), [retries[0]!]);
});

test(`progress tokens: past ${PER_REQUEST_KEPT} requests the oldest are forgotten; late progress for a recent one is still PROG-STOP`, (t) => {
  const messages = handshake() as [string, unknown][];
  const calls = PER_REQUEST_KEPT + 10;
  for (let id = 1; id <= calls; id++) {
    messages.push([
      'c',
      { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: {}, _meta: { progressToken: `p${id}` } } },
    ]);
    messages.push(answer(id) as [string, unknown]);
  }
  const late = (id: number): [string, unknown] => [
    's',
    { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: `p${id}`, progress: 1 } },
  ];
  messages.push(late(calls), late(1));
  const s = fixtureSession({ rule: 'memory', name: 'progress', description: '', transport: 'stdio', expect: [], messages });
  const stops = validateSession(s, { rules: RULES }).filter((v) => v.rule === 'PROG-STOP');
  t.deepEqual(
    stops.map((v) => v.seq),
    [s.messages.at(-2)!.seq],
  );
});
