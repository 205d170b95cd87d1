import test from 'ava';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { tempDir } from '../helpers/tmp.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};
/** Above the live validator's limit (8 MB): such messages are recorded, not validated live. */
const BIG = 9 * 1024 * 1024;
const sha = (b: string | Buffer) => createHash('sha256').update(b).digest('hex');

test('live validation skips an HTTP body or SSE event too large to validate, with a warning; later messages keep their cassette seq', async (t) => {
  const dir = tempDir(t);
  // One session (every exchange carries the same Mcp-Session-Id). Every result lacks resultType
  // (ENV-RESULTTYPE-PRESENT), the large ones included: only the cassette's validation sees those.
  const bigResult = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'x'.repeat(BIG) }] } });
  const small = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, result: { content: [] } });
  const bigProgress = JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/progress',
    params: { progressToken: 't', progress: 1, message: 'é'.repeat(BIG / 2) },
  });
  const upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const { id, params } = JSON.parse(Buffer.concat(chunks).toString()) as { id?: number; params: { name?: string } };
      if (id === undefined) return void res.writeHead(202).end();
      if (params.name === 'big-json') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
        return void res.end(bigResult(id));
      }
      if (params.name === 'big-sse') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'x-accel-buffering': 'no', 'mcp-session-id': 's1' });
        // The large event comes as two data lines (joined with LF, whitespace in the JSON), the
        // second in many chunks.
        const cut = bigProgress.indexOf(',') + 1;
        res.write('data: ' + bigProgress.slice(0, cut) + '\ndata: ');
        for (let i = cut; i < bigProgress.length; i += 64 * 1024) res.write(bigProgress.slice(i, i + 64 * 1024));
        return void res.end(`\n\ndata: ${small(id)}\n\n`);
      }
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's1' });
      res.end(small(id));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const proxy = await startHttpRecorder(
    t,
    `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`,
    join(dir, 'oversize.cassette.json'),
    ['--log-level', 'info'],
  );
  const post = async (body: string, method: string, name?: string) => {
    const res = await request(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        'mcp-session-id': 's1',
        ...(name ? { 'mcp-name': name } : {}),
      },
      body,
    });
    return res.body.text();
  };
  const call = (id: number, name: string, progress?: string) =>
    post(
      JSON.stringify({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: { name, arguments: {}, _meta: { ...META, ...(progress ? { progressToken: progress } : {}) } },
      }),
      'tools/call',
      name,
    );
  // Seqs in session s1: #1 request, #2 its 9 MB answer; #3 request, #4 a 9 MB progress event,
  // #5 its answer; #6 a 9 MB notification; #7 request, #8 its answer. (A skipped request would
  // leave its answer unmatched live, as on stdio: the test sends a notification instead.)
  t.is(sha(await call(1, 'big-json')), sha(bigResult(1)), 'the large answer reaches the client unchanged');
  t.true((await call(2, 'big-sse', 't')).includes(small(2)));
  const bigRequest = JSON.stringify({
    jsonrpc: '2.0',
    method: 'notifications/roots/list_changed',
    params: { _meta: { pad: 'y'.repeat(BIG) } },
  });
  t.is(await post(bigRequest, 'notifications/roots/list_changed'), '');
  t.is(await call(4, 'echo'), small(4));
  const { cassette, result } = await proxy.stop();
  t.is(cassette.sessions.length, 1);
  const session = cassette.sessions[0]!;
  t.deepEqual(
    session.messages.map((m) => m.bytes),
    [
      session.messages[0]!.bytes,
      Buffer.byteLength(bigResult(1)),
      session.messages[2]!.bytes,
      Buffer.byteLength(bigProgress) + 1,
      Buffer.byteLength(small(2)),
      Buffer.byteLength(bigRequest),
      session.messages[6]!.bytes,
      Buffer.byteLength(small(4)),
    ],
    'the cassette numbers the messages as the test expects',
  );
  for (const [seq, bytes] of [
    [2, Buffer.byteLength(bigResult(1))],
    [4, Buffer.byteLength(bigProgress) + 1],
    [6, Buffer.byteLength(bigRequest)],
  ] as const) {
    t.true(
      result.stderr.includes(`message #${seq} (${bytes} bytes) is too large to validate live; it is recorded as is`),
      `warned about #${seq}`,
    );
  }
  // Live verdicts are the cassette's, but for the skipped messages (and the exchange whose first
  // message, the request, was skipped): every live verdict is an offline one, at the same seq.
  const key = (v: { rule: string; session: string; seq: number; path: string }) => `${v.session}#${v.seq}${v.path} ${v.rule}`;
  const live = (session.violations ?? []).map(key).sort();
  const offline = validateSession(session, { rules: RULES }).map(key).sort();
  t.deepEqual(
    live.filter((k) => !offline.includes(k)),
    [],
  );
  t.deepEqual(
    offline
      .filter((k) => !live.includes(k))
      .map((k) => Number(/#(\d+)/.exec(k)![1]))
      .filter((seq) => ![2, 4, 6].includes(seq)),
    [],
  );
  const resultType = (session.violations ?? []).filter((v) => v.rule === 'ENV-RESULTTYPE-PRESENT').map((v) => v.seq);
  t.deepEqual(resultType, [5, 8], 'the answers after skipped messages are judged, at their cassette seq');
});
