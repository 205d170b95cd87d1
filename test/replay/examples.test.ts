import test from 'ava';
import { join } from 'node:path';
import { replayCassette } from '../../replay/index.js';
import type { ReplayResult } from '../../replay/index.js';
import { everythingServer, exampleServer, node, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';

const examples = join(root, 'cassettes', 'examples');

function assertClean(t: import('ava').ExecutionContext, r: ReplayResult): void {
  const diffs = r.sessions.flatMap((s) =>
    s.interactions.flatMap((i) => i.differences.map((d) => `session ${s.index} #${i.seq} ${i.method}: ${d.kind} ${d.message}`)),
  );
  t.deepEqual(diffs, []);
  t.is(r.outcome, 'passed');
  t.is(r.summary.skipped, 0);
}

test('the example cassette (stdio, both eras, MRTR and 2025 elicitation) replays cleanly against the example server', async (t) => {
  const r = await replayCassette(join(examples, 'example-server.cassette.json'), {
    command: [node, exampleServer, 'stdio'],
    config: false,
    cwd: root,
  });
  assertClean(t, r);
  t.true(r.summary.interactions >= 10);
  t.deepEqual([...new Set(r.sessions.map((s) => s.revision))].sort(), ['2025-11-25', '2026-07-28']);
});

test('the server-everything cassette replays cleanly against server-everything', async (t) => {
  const r = await replayCassette(join(examples, 'server-everything.cassette.json'), {
    command: [node, everythingServer, 'stdio'],
    config: false,
    cwd: root,
  });
  assertClean(t, r);
});

test('the HTTP example cassette replays cleanly against the example server in http mode (SSE, MRTR across stateless requests)', async (t) => {
  const server = spawnTracked(t, node, [exampleServer, 'http', '0']);
  const url = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).trim();
  t.true(url.startsWith('http://127.0.0.1:'));
  const r = await replayCassette(join(examples, 'example-server-http.cassette.json'), { url, config: false });
  t.is(r.target.url, url);
  const diffs = r.sessions.flatMap((s) =>
    s.interactions.flatMap((i) => i.differences.map((d) => `session ${s.index} ${i.method}: ${d.kind}`)),
  );
  t.deepEqual(diffs, []);
  t.is(r.outcome, 'passed');
  t.true(
    r.sessions.some((s) => s.interactions.some((i) => i.name === 'confirm_action' && i.outcome === 'same' && s.revision === '2026-07-28')),
  );
  // The client's GET (its listen stream, refused with 405 by the stateless server) is replayed
  // too: 405 again, so the same.
  const gets = r.sessions.flatMap((s) => s.interactions.filter((i) => i.method === 'GET'));
  t.is(gets.length, 1);
  t.like(gets[0], { seq: 0, name: 'listen stream', outcome: 'same', differences: [] });
  t.is(typeof gets[0]!.exchange, 'number');
  t.is(r.summary.skipped, 0, 'no session is left out');
});

test('the HTTP example cassette against a server that was stopped: exit-2 error that names the URL', async (t) => {
  const r = await replayCassette(join(examples, 'example-server-http.cassette.json'), {
    url: 'http://127.0.0.1:9/mcp',
    config: false,
    timeoutMs: 3000,
  });
  t.is(r.outcome, 'error');
  t.is(r.error?.code, 'MCPC_REPLAY_HTTP_FAILED');
  t.regex(r.error!.message, /127\.0\.0\.1:9\/mcp/);
});
