/**
 * `record --ui` on 2026-07-28 stateless traffic (issue 31): there is no initialize, so the live
 * view reads the revision and the client from each request's `_meta` and the server from the
 * results and server/discover, instead of "unknown" and "? → ?". Peers: the official v2 SDK server
 * (the example server's createMcpHandler; no third-party server speaks 2026-07-28 yet: the MCP Apps
 * server refuses the pinned client) over stateless Streamable HTTP, and the official v2 SDK client
 * pinned to 2026-07-28; the view's own JSON API (`/api/overview`) is read as the page reads it.
 */
import test from 'ava';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { exampleServer, node } from '../../helpers/paths.js';
import { recordHttpWithUi } from '../../helpers/view.js';
import { spawnTracked, waitForOutput } from '../../helpers/proc.js';
import { drain } from '../../helpers/real-server.js';
import { tempDir } from '../../helpers/tmp.js';

test('record --ui, 2026-07-28 stateless: the live view names the revision, the client and the server', async (t) => {
  const server = spawnTracked(t, node, [exampleServer, 'http', '0']);
  const upstream = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  drain(server);
  const dir = tempDir(t);
  const { recorder, view: viewUrl, proxy } = await recordHttpWithUi(t, upstream, join(dir, 'app.cassette.json'));
  const view = new URL(viewUrl);
  const client = new Client({ name: 'view-2026-client', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new StreamableHTTPClientTransport(new URL(proxy)));
  t.teardown(() => client.close().catch(() => undefined));
  await client.listTools();
  const overview = async () => {
    const api = new URL('/api/overview', view);
    api.searchParams.set('token', view.searchParams.get('token')!);
    return (await (await fetch(api)).json()) as { sessions: Array<{ revision?: string; client?: string; server?: string }> };
  };
  let sessions = (await overview()).sessions;
  for (let i = 0; i < 100 && !sessions.some((s) => s.server); i++) {
    await new Promise((r) => setTimeout(r, 50));
    sessions = (await overview()).sessions;
  }
  const named = sessions.filter((s) => s.revision === '2026-07-28');
  t.true(named.length > 0, JSON.stringify(sessions));
  t.true(
    named.every((s) => s.client === 'view-2026-client 1.0.0'),
    JSON.stringify(sessions),
  );
  t.true(
    named.some((s) => typeof s.server === 'string' && s.server.length > 0),
    JSON.stringify(sessions),
  );
  await client.close();
  recorder.kill('SIGINT');
});
