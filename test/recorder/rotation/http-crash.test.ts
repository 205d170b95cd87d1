import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { tempDir } from '../../helpers/tmp.js';
import { startTappedUpstream } from '../../helpers/http-taps.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { cassetteFiles, cli, collect, journalsIn, node, readJson, spawnTracked, startDirRecorder, validateJson } from './dir-helpers.js';

test('SIGKILL mid-rotation (a closed journal not yet folded, the next one open): recover on the directory restores every answer the client saw', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const proxy = await startDirRecorder(t, upstream.url, dir, ['--rotate-size', '2KB']);
  const answers: string[] = [];
  let killedAt: string[] | undefined;
  // The v1 SDK client, by hand rather than runV1HttpScenario: that one ends the session whatever
  // happens to it, and here the session's end must meet the dead proxy and nothing else.
  const client = new Client({ name: 'mcp-cassette-http-crash-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(proxy.url));
  await client.connect(transport);
  try {
    for (let n = 0; n < 200 && !killedAt; n++) {
      const r = (await client.callTool({ name: 'add', arguments: { a: n, b: 5000 } })) as { content: { text: string }[] };
      answers.push(r.content[0]!.text);
      // Two journals: one closed and waiting for its fold, the next one being written.
      const journals = journalsIn(dir);
      if (answers.length >= 5 && journals.length >= 2) {
        proxy.child.kill('SIGKILL');
        killedAt = journals;
      }
    }
    t.truthy(killedAt, 'the proxy was killed between closing a journal and folding it');
    if (!killedAt) return; // failed just above; without the kill nothing below has a meaning
    const killed = await proxy.finished;
    t.is(killed.signal, 'SIGKILL', `the proxy died of the SIGKILL and of nothing before it; stderr: ${killed.stderr}`);
    // The session's DELETE meets the killed proxy: the one error expected is fetch's connection
    // refused (nothing listens on the port any more). Anything else fails the test.
    const refused = await transport.terminateSession().then(
      () => undefined,
      (err: unknown) => err,
    );
    t.is((refused as { cause?: { code?: unknown } } | undefined)?.cause?.code, 'ECONNREFUSED', `the session's end: ${String(refused)}`);
  } finally {
    await client.close();
  }
  t.true(journalsIn(dir).length >= 2, 'the journals are still there');

  const recovered = await collect(spawnTracked(t, node, [cli, 'recover', dir]));
  t.is(recovered.code, 0, recovered.stderr);
  t.regex(recovered.stdout.toString(), /recovered session/);
  t.deepEqual(journalsIn(dir), [], 'every journal folded');
  const texts = new Set(
    cassetteFiles(dir).flatMap((f) =>
      readJson(f).sessions.flatMap((s) =>
        s.messages.map((m) => (m.json as { result?: { content?: { text?: string }[] } }).result?.content?.[0]?.text),
      ),
    ),
  );
  const missing = answers.filter((a) => !texts.has(a));
  t.deepEqual(missing, [], 'every answer the client got is in a cassette');
  t.true(answers.length >= 5);
  const report = await validateJson([dir]);
  t.is(report.summary.cassettes, cassetteFiles(dir).length);
  // Recovering again finds nothing more and changes nothing.
  const again = await collect(spawnTracked(t, node, [cli, 'recover', dir]));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout.toString(), /nothing to recover/);
});
