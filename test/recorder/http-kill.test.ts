import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { cli, node } from '../helpers/paths.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { readCassette } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

test('SIGKILL of the HTTP proxy right after an answer: recover finds every exchange the client saw, complete', async (t) => {
  const dir = tempDir(t);
  const answer = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } });
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { id: number }).id;
      if (id % 2 === 0) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":${id}}}\n\n`);
        res.end(`data: ${answer(id)}\n\n`);
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(answer(id));
      }
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  // JSON answers and SSE answers, each killed right after the client read its answer.
  for (const id of [1, 2]) {
    const cassette = join(dir, `killed-${id}.cassette.json`);
    const proxy = await startHttpRecorder(t, url, cassette);
    const seen: string[] = [];
    for (const n of [id, id + 2]) {
      const res = await request(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: n, method: 'tools/list' }),
      });
      seen.push(await res.body.text());
    }
    proxy.child.kill('SIGKILL');
    await collect(proxy.child);
    const recovered = await collect(spawnTracked(t, node, [cli, 'recover', cassette]));
    t.is(recovered.code, 0, recovered.stderr);
    const c = readCassette(cassette);
    const exchanges = c.sessions.flatMap((s) => s.exchanges ?? []);
    t.deepEqual(
      exchanges.map((x) => x.outcome),
      ['complete', 'complete'],
      'each exchange ended as the client saw it end',
    );
    for (const [i, text] of seen.entries()) t.true(text.includes(answer(id + 2 * i)));
    const answers = c.sessions
      .flatMap((s) => s.messages)
      .filter((m) => m.kind === 'response')
      .map((m) => (m.json as { id: number }).id);
    t.deepEqual(answers, [id, id + 2]);
  }
});
