import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { byteTap, everythingServer, exampleServer, node, node22, NODE22_HINT, node22Peer, node22Ready } from '../helpers/paths.js';
import { assertTransparent, recordArgs, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { runV1EverythingScenario } from '../peers/v1-client.js';
import { testWhen } from '../helpers/skip.js';

const node22Test = testWhen(node22Ready, '@ai-sdk/mcp peer tests', NODE22_HINT);

const run = promisify(execFile);
const aisdkClient = node22Peer('aisdk-client.mjs');

test('v1 SDK client ↔ server-everything through the proxy: same answers, byte-transparent', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'everything.cassette.json');
  const taps = join(dir, 'taps');
  const direct = await runV1EverythingScenario(node, [everythingServer, 'stdio']);
  const proxied = await runV1EverythingScenario(node, [
    byteTap,
    taps,
    'client',
    node,
    ...recordArgs(cassette, [node, byteTap, taps, 'server', node, everythingServer, 'stdio']),
  ]);
  t.deepEqual(proxied, direct);
  t.true((direct.tools as string[]).includes('get-sum'));
  const c = await waitForSessions(cassette, 1);
  assertTransparent(t, taps, c);
  t.like(c.sessions[0]!.protocol, { revision: '2025-11-25', era: 'legacy', negotiation: 'initialize' });
  t.like(c.sessions[0]!.serverInfo, { name: 'mcp-servers/everything' });
  t.like(c.sessions[0]!.clientInfo, { name: 'mcp-cassette-v1-test' });
});

for (const [serverMode, revision] of [
  ['stdio', '2026-07-28'],
  ['stdio-legacy', '2025-11-25'],
] as const) {
  node22Test(`@ai-sdk/mcp (Node 22) probes in place and negotiates ${revision} through the proxy exactly as directly`, async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'aisdk.cassette.json');
    const taps = join(dir, 'taps');
    const direct = await run(node22!, [aisdkClient, node, exampleServer, serverMode]);
    const proxied = await run(node22!, [
      aisdkClient,
      node,
      byteTap,
      taps,
      'client',
      node,
      ...recordArgs(cassette, [node, byteTap, taps, 'server', node, exampleServer, serverMode]),
    ]);
    t.is(proxied.stdout, direct.stdout);
    t.is((JSON.parse(direct.stdout) as { protocolVersion: string }).protocolVersion, revision);
    const c = await waitForSessions(cassette, 1);
    t.is(c.sessions.length, 1, 'in-place probing: one process, one session');
    assertTransparent(t, taps, c);
    const s = c.sessions[0]!;
    const methods = s.messages
      .filter((m) => m.direction === 'client-to-server' && m.kind === 'request')
      .map((m) => (m.json as { method: string }).method);
    t.is(methods[0], 'server/discover');
    if (revision === '2026-07-28') {
      t.false(methods.includes('initialize'));
      t.like(s.protocol, { revision, era: 'modern', negotiation: 'discover' });
    } else {
      t.is(methods[1], 'initialize');
      t.like(s.protocol, { revision, era: 'legacy', negotiation: 'initialize', discover: { errorCode: -32601 } });
    }
    t.like(s.clientInfo, { name: 'mcp-cassette-aisdk-test' });
  });
}
