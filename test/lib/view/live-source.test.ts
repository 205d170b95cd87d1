/** The live view's memory bound (record --ui): the last N messages and at most M frame bytes, the
 * oldest dropped first across sessions, and counted. */
import test from 'ava';
import { frameToMessage } from '../../../lib/message.js';
import { LiveSource, type LiveSessionInfo } from '../../../lib/view/live-source.js';

const info = (key: string): LiveSessionInfo => ({ key, transport: 'stdio', target: 'test', startedAt: new Date(0).toISOString() });

function message(seq: number, text: string) {
  return frameToMessage(Buffer.from(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { text } })), {
    seq,
    t: seq,
    direction: 'server-to-client',
    channel: 'stdout',
    terminated: true,
  });
}

test('the ring keeps the last `capacity` messages across sessions and counts what it dropped', (t) => {
  const live = new LiveSource('test', 3, 1_000_000);
  for (let i = 1; i <= 5; i++) live.add(info(i % 2 ? 'a' : 'b'), message(i, `m${i}`));
  const o = live.overview();
  t.is(o.kind, 'live');
  if (o.kind !== 'live') return;
  t.is(o.dropped, 2);
  t.deepEqual(
    o.sessions.map((s) => s.messages),
    [3, 2],
    'counts are of everything seen',
  );
  t.deepEqual(
    live.session(0)!.rows.map((r) => r.seq),
    [3, 5],
  );
  t.deepEqual(
    live.session(1)!.rows.map((r) => r.seq),
    [4],
  );
  t.is(live.message(0, 1), undefined, 'a dropped message is gone');
});

test('the ring keeps at most `maxBytes` of frames; a frame over the bound alone is kept as its size', (t) => {
  const big = message(1, 'x'.repeat(500));
  const live = new LiveSource('test', 100, 400);
  live.add(info('a'), message(1, 'x'.repeat(100)));
  live.add(info('a'), message(2, 'x'.repeat(100)));
  t.is(live.session(0)!.rows.length, 2);
  live.add(info('a'), message(3, 'x'.repeat(100)));
  t.deepEqual(
    live.session(0)!.rows.map((r) => r.seq),
    [2, 3],
  );
  live.add(info('a'), { ...big, seq: 4 });
  const kept = live.message(0, 4)!;
  t.is(kept.json, undefined);
  t.regex(kept.raw!, /over the live view's memory bound/);
});

test('a 2026-07-28 stateless session: revision and client from the request _meta, server from the result _meta or server/discover', (t) => {
  const live = new LiveSource('test', 100, 1_000_000);
  const frame = (seq: number, direction: 'client-to-server' | 'server-to-client', json: unknown) =>
    frameToMessage(Buffer.from(JSON.stringify(json)), { seq, t: seq, direction, channel: 'stdout', terminated: true });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'sdk-client', version: '2.4.0' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  live.add(info('a'), frame(1, 'client-to-server', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } }));
  live.add(
    info('a'),
    frame(2, 'server-to-client', {
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        tools: [],
        _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'sdk-server', version: '2.4.0' } },
      },
    }),
  );
  live.add(info('b'), frame(1, 'client-to-server', { jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: meta } }));
  live.add(
    info('b'),
    frame(2, 'server-to-client', {
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: {},
        serverInfo: { name: 'discovered', version: '1.0.0' },
      },
    }),
  );
  const o = live.overview();
  if (o.kind !== 'live') return t.fail('a live overview');
  t.deepEqual(
    o.sessions.map((s) => [s.revision, s.client, s.server]),
    [
      ['2026-07-28', 'sdk-client 2.4.0', 'sdk-server 2.4.0'],
      ['2026-07-28', 'sdk-client 2.4.0', 'discovered 1.0.0'],
    ],
  );
});
