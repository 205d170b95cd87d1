import test from 'ava';
import { join } from 'node:path';
import type { RecordedMessage } from '../../lib/message.js';
import { runExampleScenario, type NegotiationMode } from '../../recorder/demo/example-client.js';
import { byteTap, exampleServer, node } from '../helpers/paths.js';
import { assertTransparent, recordArgs, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

/** The official v2 client drives the v2 example server through byte taps and the proxy. */
async function throughProxy(dir: string, mode: NegotiationMode, serverMode = 'stdio') {
  const cassette = join(dir, 'v2.cassette.json');
  const taps = join(dir, 'taps');
  const proxied = recordArgs(cassette, [node, byteTap, taps, 'server', node, exampleServer, serverMode]);
  const result = await runExampleScenario({ command: node, args: [byteTap, taps, 'client', node, ...proxied] }, mode);
  return { cassette, taps, result };
}

const requests = (messages: RecordedMessage[], direction: string) =>
  messages
    .filter((m) => m.kind === 'request' && m.direction === direction)
    .map((m) => m.json as { id: unknown; method: string; params?: Record<string, unknown> });

test('2025-11-25 (legacy negotiation): same results as direct, byte-transparent, colliding server→client ids recorded', async (t) => {
  const dir = tempDir(t);
  const direct = await runExampleScenario({ command: node, args: [exampleServer, 'stdio'] }, 'legacy');
  const { cassette, taps, result } = await throughProxy(dir, 'legacy');
  t.deepEqual(result, direct);
  t.is(result.protocolVersion, '2025-11-25');

  const c = await waitForSessions(cassette, 1);
  t.is(c.sessions.length, 1);
  assertTransparent(t, taps, c);
  const s = c.sessions[0]!;
  t.like(s.protocol, { revision: '2025-11-25', era: 'legacy', negotiation: 'initialize' });
  t.like(s.clientInfo, { name: 'mcp-cassette-example-client' });
  t.like(s.serverInfo, { name: 'mcp-cassette-example' });
  // The 2025 shim asks for confirmation with a real server→client request whose id the client
  // also used for one of its own requests.
  const fromServer = requests(s.messages, 'server-to-client');
  const elicit = fromServer.find((r) => r.method === 'elicitation/create');
  t.truthy(elicit);
  const clientIds = requests(s.messages, 'client-to-server').map((r) => JSON.stringify(r.id));
  t.true(clientIds.includes(JSON.stringify(elicit!.id)), 'the server→client id collides with a client id');
  const answer = s.messages.find(
    (m) =>
      m.direction === 'client-to-server' &&
      m.kind === 'response' &&
      JSON.stringify((m.json as { id: unknown }).id) === JSON.stringify(elicit!.id),
  );
  t.deepEqual((answer!.json as { result?: unknown }).result, { action: 'accept', content: { ok: true } });
});

for (const mode of ['auto', 'pin'] as const) {
  test(`2026-07-28 (${mode}): probe process and real process both recorded, MRTR round trip, byte-transparent`, async (t) => {
    const dir = tempDir(t);
    const direct = await runExampleScenario({ command: node, args: [exampleServer, 'stdio'] }, mode);
    const { cassette, taps, result } = await throughProxy(dir, mode);
    t.deepEqual(result, direct);
    t.is(result.protocolVersion, '2026-07-28');

    const c = await waitForSessions(cassette, 2);
    t.is(c.sessions.length, 2, 'the SDK spawns a probe process and then the real one');
    assertTransparent(t, taps, c);
    const [probe, real] = c.sessions;
    t.deepEqual(
      requests(probe!.messages, 'client-to-server').map((r) => r.method),
      ['server/discover'],
    );
    t.like(probe!.protocol, { revision: '2026-07-28', negotiation: 'discover', discover: { supportedVersions: ['2026-07-28'] } });

    const first = real!.messages[0]!;
    t.is(first.direction, 'client-to-server');
    t.is((first.json as { method: string }).method, 'tools/list', 'the real process starts with an enveloped request, no handshake');
    t.like(real!.protocol, { revision: '2026-07-28', era: 'modern', negotiation: 'envelope' });
    const calls = requests(real!.messages, 'client-to-server').filter(
      (r) => r.method === 'tools/call' && r.params?.name === 'confirm_action',
    );
    t.is(calls.length, 2, 'input_required, then the retry');
    t.not(JSON.stringify(calls[0]!.id), JSON.stringify(calls[1]!.id), 'the retry has a new id');
    t.is(calls[1]!.params?.requestState, 'round-1');
    t.deepEqual(calls[1]!.params?.inputResponses, { confirm: { action: 'accept', content: { ok: true } } });
    const inputRequired = real!.messages.find(
      (m) => (m.json as { result?: { resultType?: string } }).result?.resultType === 'input_required',
    );
    t.truthy(inputRequired);
  });
}

test('server/discover → -32601 → initialize fallback is recorded as one 2025 session', async (t) => {
  const dir = tempDir(t);
  const { cassette, taps, result } = await throughProxy(dir, 'auto', 'stdio-legacy');
  t.is(result.protocolVersion, '2025-11-25');
  const c = await waitForSessions(cassette, 2);
  assertTransparent(t, taps, c);
  const probe = c.sessions.find((s) => s.protocol.discover);
  t.like(probe?.protocol, { discover: { errorCode: -32601 } });
  const real = c.sessions.find((s) => s !== probe);
  t.like(real?.protocol, { revision: '2025-11-25', negotiation: 'initialize' });
});
