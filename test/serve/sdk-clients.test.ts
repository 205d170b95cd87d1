import test from 'ava';
import { join } from 'node:path';
import { runExampleScenario, type NegotiationMode } from '../../recorder/demo/example-client.js';
import { everythingServer, exampleServer, node, cli } from '../helpers/paths.js';
import { recordArgs, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { runV1EverythingScenario } from '../peers/v1-client.js';
import { runV1HttpScenario } from '../peers/v1-http-client.js';
import { serveArgs, startListening } from './helpers.js';

const MODES: NegotiationMode[] = ['auto', 'legacy'];

test.serial('v2 SDK client, both eras: serve of a stdio recording answers over stdio and HTTP exactly as the live server did', async (t) => {
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
    t.deepEqual(await runExampleScenario({ url: http.url }, mode), live[mode], `HTTP, ${mode} (2025 elicitation rides the POST's SSE stream)`);
  }
  const done = await http.stop();
  t.is(done.code, 0, done.stderr);
  t.regex(done.stderr, /serve: ok: .* 0 unmatched/);
});

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
