import test from 'ava';
import { join } from 'node:path';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createExampleServer } from '../../recorder/demo/example-tools.js';
import { runExampleScenario } from '../../recorder/demo/example-client.js';
import { assertHttpTransparent, startTappedUpstream, tappedFetch } from '../helpers/http-taps.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { tempDir } from '../helpers/tmp.js';

const v2Handler = () => toNodeHandler(createMcpHandler(() => createExampleServer(), { legacy: 'stateless' }));

for (const mode of ['auto', 'legacy'] as const) {
  test(`v2 SDK client (${mode}) ↔ v2 createMcpHandler through the HTTP proxy: same results, byte-transparent, SSE recorded`, async (t) => {
    const dir = tempDir(t);
    const handler = v2Handler();
    const direct = await startTappedUpstream(t, (req, res) => void handler(req, res));
    const expected = await runExampleScenario({ url: direct.url }, mode);

    const upstream = await startTappedUpstream(t, (req, res) => void handler(req, res));
    const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'http.cassette.json'));
    t.regex(proxy.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const tap = tappedFetch();
    const got = await runExampleScenario({ url: proxy.url, fetch: tap.fetch }, mode);
    t.deepEqual(got, expected);
    const { cassette, result } = await proxy.stop();
    t.is(result.code, 0, result.stderr);
    await assertHttpTransparent(t, tap.exchanges, upstream.exchanges, cassette);

    const revision = mode === 'auto' ? '2026-07-28' : '2025-11-25';
    t.is(got.protocolVersion, revision);
    t.true(cassette.sessions.every((s) => s.transport === 'streamable-http'));
    t.true(
      cassette.sessions.every((s) => s.exchanges!.length === 1),
      'stateless: one session per exchange',
    );
    t.true(cassette.sessions.filter((s) => s.messages.length > 0).every((s) => s.protocol.revision === revision));
    // count_slowly answers over SSE: progress and (2025 only: a 2026-07-28 request that does not
    // ask for logs gets none, LOG-OPT-IN) log notifications, then the result.
    const counting = cassette.sessions.find((s) =>
      s.messages.some((m) => (m.json as { params?: { name?: string } }).params?.name === 'count_slowly'),
    )!;
    t.regex(counting.exchanges![0]!.contentType!, /^text\/event-stream/);
    const fromServer = counting.messages.filter((m) => m.direction === 'server-to-client');
    const kinds = fromServer
      .filter((m) => m.kind !== 'text')
      .map((m) => (m.kind === 'response' ? 'result' : (m.json as { method: string }).method));
    const logs = mode === 'legacy';
    t.deepEqual(
      kinds,
      [
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'result',
      ].filter((k) => logs || k !== 'notifications/message'),
    );
    t.true(fromServer.every((m) => m.http?.part === 'sse'));
    const post = counting.exchanges![0]!;
    t.like(post, { method: 'POST', path: '/mcp', status: 200, outcome: 'complete', mcp: true });
    if (mode === 'auto') {
      t.is(post.requestHeaders['mcp-protocol-version'], '2026-07-28');
      t.is(post.requestHeaders['mcp-method'], 'tools/call');
      t.is(post.requestHeaders['mcp-name'], 'count_slowly');
    }
  });
}
