import test from 'ava';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { assertHttpTransparent, startTappedUpstream, tappedFetch } from '../helpers/http-taps.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { tempDir } from '../helpers/tmp.js';
import { tmcpHandler } from '../servers/tmcp-server.js';

async function scenario(url: string, mode: 'auto' | 'legacy', fetchImpl?: typeof fetch) {
  const client = new Client({ name: 'mcp-cassette-tmcp-test', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), fetchImpl ? { fetch: fetchImpl } : {}));
  try {
    return {
      version: client.getNegotiatedProtocolVersion(),
      tools: (await client.listTools()).tools.map((x) => x.name),
      add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
    };
  } finally {
    await client.close();
  }
}

for (const mode of ['auto', 'legacy'] as const) {
  test(`tmcp (independent server, ${mode}): SSE-framed answers pass through unchanged and are recorded`, async (t) => {
    const dir = tempDir(t);
    const direct = await startTappedUpstream(t, tmcpHandler());
    const expected = await scenario(direct.url, mode);
    const upstream = await startTappedUpstream(t, tmcpHandler());
    const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'tmcp.cassette.json'));
    const tap = tappedFetch();
    const got = await scenario(proxy.url, mode, tap.fetch);
    t.deepEqual(got, expected);
    t.is(got.version, mode === 'auto' ? '2026-07-28' : '2025-06-18', 'tmcp counter-offers 2025-06-18 to a 2025-11-25 client');
    const { cassette } = await proxy.stop();
    await assertHttpTransparent(t, tap.exchanges, upstream.exchanges, cassette);
    const answers = cassette.sessions.flatMap((s) => s.messages).filter((m) => m.kind === 'response');
    t.true(answers.length >= 3);
    t.true(
      answers.every((m) => m.http?.part === 'sse'),
      'tmcp frames its answers as SSE events',
    );
    if (mode === 'legacy')
      t.true(
        cassette.sessions.some((s) => s.mcpSessionId),
        'tmcp keeps 2025 clients in a session',
      );
  });
}
