import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runExampleScenario, type NegotiationMode } from '../../../recorder/demo/example-client.js';
import { everythingServer, exampleServer, node, cli } from '../../helpers/paths.js';
import { recordArgs, waitForSessions } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { runV1EverythingScenario } from '../../peers/v1-client.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { LEGACY_INIT, rawServe, serveArgs, startListening } from './helpers.js';

const MODES: NegotiationMode[] = ['auto', 'legacy'];

test.serial(
  'v2 SDK client, both eras: serve of a stdio recording answers over stdio and HTTP exactly as the live server did',
  async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'example.cassette.json');
    const live: Record<string, unknown> = {};
    let sessions = 0;
    for (const mode of MODES) {
      live[mode] = await runExampleScenario({ command: node, args: recordArgs(cassette, [node, exampleServer, 'stdio']) }, mode);
      sessions = (await waitForSessions(cassette, sessions + (mode === 'auto' ? 2 : 1))).sessions.length;
    }
    t.like(live.auto, { era: 'modern', protocolVersion: '2026-07-28' });
    t.like(live.legacy, { era: 'legacy', protocolVersion: '2025-11-25' });

    for (const mode of MODES) {
      t.deepEqual(await runExampleScenario({ command: node, args: serveArgs(cassette) }, mode), live[mode], `stdio, ${mode}`);
    }
    const http = await startListening(t, serveArgs(cassette, ['--listen', '127.0.0.1:0']));
    t.regex(http.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    for (const mode of MODES) {
      t.deepEqual(
        await runExampleScenario({ url: http.url }, mode),
        live[mode],
        `HTTP, ${mode} (2025 elicitation rides the POST's SSE stream)`,
      );
    }
    const done = await http.stop();
    t.is(done.code, 0, done.stderr);
    t.regex(done.stderr, /serve: ok: .* 0 unmatched/);
  },
);

test.serial('v1 SDK client (2025-11-25) ↔ server-everything: serve answers over stdio and HTTP as the live server did', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'everything.cassette.json');
  const live = await runV1EverythingScenario(node, recordArgs(cassette, [node, everythingServer, 'stdio']));
  await waitForSessions(cassette, 1);
  const served = await runV1EverythingScenario(node, serveArgs(cassette));
  t.deepEqual(served, live);
  t.like(live.server, { name: 'mcp-servers/everything' });

  const http = await startListening(t, serveArgs(cassette, ['--listen', '0']));
  const { protocolVersion: _, ...liveRest } = live;
  const overHttp = await runV1HttpScenario(http.url, async (client) => ({
    tools: (await client.listTools()).tools.map((x) => x.name).sort(),
    sum: await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }),
    prompts: (await client.listPrompts()).prompts.map((p) => p.name).sort(),
    resource: await client.readResource({ uri: 'demo://resource/static/document/architecture.md' }),
  }));
  t.deepEqual(overHttp, liveRest, 'a stdio recording served over Streamable HTTP (session id, GET stream, DELETE)');
  const done = await http.stop();
  t.is(done.code, 0, done.stderr);
});

test.serial('a Streamable HTTP recording is served over stdio with the live answers, both eras', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'http.cassette.json');
  const upstream = await startListening(t, [exampleServer, 'http', '0']);
  const proxy = await startListening(t, [cli, 'record', '--upstream', upstream.url, '--cassette', cassette, '--log-level', 'warn']);
  const live: Record<string, unknown> = {};
  for (const mode of MODES) live[mode] = await runExampleScenario({ url: proxy.url }, mode);
  t.is((await proxy.stop()).code, 0);
  await upstream.stop();
  for (const mode of MODES) {
    t.deepEqual(await runExampleScenario({ command: node, args: serveArgs(cassette) }, mode), live[mode], `stdio, ${mode}`);
  }
  const http = await startListening(t, serveArgs(cassette, ['--listen', '0']));
  for (const mode of MODES) t.deepEqual(await runExampleScenario({ url: http.url }, mode), live[mode], `HTTP, ${mode}`);
  t.is((await http.stop()).code, 0);
});

test.serial(
  'a sessionful HTTP recording (v1 server, elicitation on its GET stream) is served in recorded order: the question inside the call that waited for it, over HTTP and stdio',
  async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'sessionful.cassette.json');
    const server = createServer(v1SessionfulHandler());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      server.closeAllConnections();
      server.close();
    });
    const upstream = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    const steps = async (client: { callTool(c: unknown): Promise<unknown> }) => ({
      add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
      confirm: await client.callTool({ name: 'confirm', arguments: { action: 'deploy' } }),
    });
    const proxy = await startListening(t, [cli, 'record', '--upstream', upstream, '--cassette', cassette, '--log-level', 'error']);
    const live = await runV1HttpScenario(proxy.url, steps);
    t.is((await proxy.stop()).code, 0);

    const http = await startListening(t, serveArgs(cassette, ['--listen', '0']));
    t.deepEqual(await runV1HttpScenario(http.url, steps), live);
    const done = await http.stop();
    t.is(done.code, 0, done.stderr);

    const s = rawServe(t, cassette);
    t.like(await s.request(LEGACY_INIT), { result: { serverInfo: { name: 'v1-http-test-server' } } });
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    s.send({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'confirm', arguments: { action: 'deploy' } } });
    const question = await s.next((m) => m.method === 'elicitation/create' || m.id === 5);
    t.is(question.method, 'elicitation/create', 'the question comes first, as recorded');
    t.false(
      s.received.some((m) => m.id === 5),
      'the call is not answered before the client answers the question',
    );
    s.send({ jsonrpc: '2.0', id: question.id, result: { action: 'accept', content: { ok: true } } });
    t.like(await s.next((m) => m.id === 5), { result: { content: [{ text: 'answer=accept ok=true' }] } });
    t.is((await s.end()).code, 0);
  },
);
