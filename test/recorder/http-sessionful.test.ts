import test from 'ava';
import { join } from 'node:path';
import { everythingServer, node } from '../helpers/paths.js';
import { assertHttpTransparent, startTappedUpstream, tappedFetch } from '../helpers/http-taps.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { spawnTracked } from '../helpers/proc.js';
import { forceLoopback, loopbackPort } from '../helpers/real-server.js';
import { tempDir } from '../helpers/tmp.js';
import { runV1HttpScenario } from '../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../servers/v1-http-server.js';

test('v1 SDK sessionful server: Mcp-Session-Id, GET stream push during an open POST, DELETE; one session, byte-transparent', async (t) => {
  const dir = tempDir(t);
  const steps = async (client: import('@modelcontextprotocol/sdk/client/index.js').Client) => ({
    add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
    confirm: await client.callTool({ name: 'confirm', arguments: { action: 'deploy' } }),
  });
  const direct = await startTappedUpstream(t, v1SessionfulHandler());
  const expected = await runV1HttpScenario(direct.url, steps);

  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'v1.cassette.json'));
  const tap = tappedFetch();
  const got = await runV1HttpScenario(proxy.url, steps, tap.fetch);
  t.deepEqual(got, expected);
  t.deepEqual((got.confirm as { content: unknown }).content, [{ type: 'text', text: 'answer=accept ok=true' }]);
  const { cassette } = await proxy.stop();
  await assertHttpTransparent(t, tap.exchanges, upstream.exchanges, cassette);

  t.is(cassette.sessions.length, 1, 'every exchange of the MCP session is in one cassette session');
  const s = cassette.sessions[0]!;
  t.truthy(s.mcpSessionId);
  t.like(s.protocol, { revision: '2025-11-25', negotiation: 'initialize' });
  const methods = s.exchanges!.map((x) => x.method);
  t.true(methods.includes('GET'), 'the standalone GET stream');
  t.is(methods.at(-1), 'DELETE', 'the session end');
  const get = s.exchanges!.find((x) => x.method === 'GET')!;
  t.regex(get.contentType!, /^text\/event-stream/);
  const push = s.messages.find((m) => (m.json as { method?: string }).method === 'elicitation/create')!;
  t.is(push.http?.exchange, get.id, 'the elicitation came on the GET stream');
  t.is(push.http?.part, 'sse');
  const call = s.exchanges!.find((x) =>
    s.messages.some((m) => m.http?.exchange === x.id && (m.json as { params?: { name?: string } }).params?.name === 'confirm'),
  )!;
  t.true(call.t < push.t && push.t < call.endT!, 'while the tools/call POST stream was open');
  const answer = s.messages.find((m) => m.direction === 'client-to-server' && m.kind === 'response')!;
  const answerExchange = s.exchanges!.find((x) => x.id === answer.http?.exchange)!;
  t.is(answerExchange.status, 202, 'the client POSTs its answer back and gets 202');
  for (const x of s.exchanges!) t.is(x.requestHeaders['mcp-session-id'] ?? x.responseHeaders?.['mcp-session-id'], s.mcpSessionId);
});

test('server-everything (streamableHttp, forced onto 127.0.0.1): priming events with empty data are recorded', async (t) => {
  const dir = tempDir(t);
  // PORT=0: the kernel picks a free port; the preload says which.
  const everything = spawnTracked(t, node, ['--require', forceLoopback, everythingServer, 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
  });
  const port = await loopbackPort(everything);
  const upstreamUrl = `http://127.0.0.1:${port}/mcp`;
  const steps = async (client: import('@modelcontextprotocol/sdk/client/index.js').Client) => ({
    tools: (await client.listTools()).tools.map((x) => x.name).sort(),
    sum: await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }),
  });
  const expected = await runV1HttpScenario(upstreamUrl, steps);
  const proxy = await startHttpRecorder(t, upstreamUrl, join(dir, 'everything.cassette.json'));
  const got = await runV1HttpScenario(proxy.url, steps);
  t.deepEqual(got, expected);
  const { cassette } = await proxy.stop();
  const s = cassette.sessions.find((x) => x.mcpSessionId)!;
  t.like(s.serverInfo, { name: 'mcp-servers/everything' });
  const priming = s.messages.filter((m) => m.http?.part === 'sse' && m.bytes === 0);
  t.true(priming.length > 0, 'empty priming events are kept');
  t.true(priming.every((m) => m.kind === 'text' && m.raw === '' && typeof m.http?.sse?.id === 'string'));
  const result = s.messages.find((m) => m.kind === 'response' && m.http?.part === 'sse')!;
  t.truthy(result.http?.sse?.id, 'event ids are recorded');
  t.is(result.http?.sse?.event, 'message');
});
