import test from 'ava';
import { createHash } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { startTappedUpstream } from '../helpers/http-taps.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { journalHolds } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

const rpc = (id: number, method: string) => JSON.stringify({ jsonrpc: '2.0', id, method, params: {} });

test('every header and status passes both ways; secrets are forwarded but masked in the cassette', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, (req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(401, [
        'WWW-Authenticate',
        'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
        'Mcp-Session-Id',
        'sess-1',
        'X-Custom',
        'a',
        'X-Custom',
        'b',
        'Set-Cookie',
        'sid=topsecret-cookie',
        'Content-Type',
        'application/json',
      ]);
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32001, message: 'unauthorized' } }));
    });
  });
  const cassettePath = join(dir, 'headers.cassette.json');
  const proxy = await startHttpRecorder(t, upstream.url, cassettePath, ['--redact-header', 'X-Secret']);
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': 'add',
    'mcp-param-region': 'eu-west',
    'mcp-param-unknown-future': 'x',
    'last-event-id': 'evt-42',
    authorization: 'Bearer sk-live-topsecret',
    cookie: 'session=cookie-topsecret',
    'x-secret': 'custom-topsecret',
  };
  const res = await request(proxy.url, { method: 'POST', headers, body: rpc(1, 'tools/call') });
  t.is(res.statusCode, 401);
  t.is(res.headers['www-authenticate'], 'Bearer resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"');
  t.is(res.headers['mcp-session-id'], 'sess-1');
  t.deepEqual(res.headers['x-custom'], ['a', 'b']);
  t.is(res.headers['set-cookie'], 'sid=topsecret-cookie');
  await res.body.text();
  const seen = upstream.exchanges[0]!.headers;
  for (const [name, value] of Object.entries(headers)) t.is(seen[name], value, `${name} reached the upstream`);
  const { cassette } = await proxy.stop();
  const x = cassette.sessions[0]!.exchanges![0]!;
  t.is(x.requestHeaders.authorization, 'Bearer [REDACTED]');
  t.is(x.requestHeaders.cookie, '[REDACTED]');
  t.is(x.requestHeaders['x-secret'], '[REDACTED]');
  t.is(x.requestHeaders['mcp-param-region'], 'eu-west');
  t.is(x.responseHeaders!['set-cookie'], '[REDACTED]');
  t.is(x.status, 401);
  const text = readFileSync(cassettePath, 'utf8');
  t.false(/topsecret/.test(text), 'no secret reaches disk');
});

test('paths outside the MCP endpoint (OAuth discovery) pass through untouched and are noted', async (t) => {
  const dir = tempDir(t);
  const body = JSON.stringify({ resource: 'http://127.0.0.1/mcp', authorization_servers: ['http://127.0.0.1:9/'] });
  const upstream = await startTappedUpstream(t, (req, res) => {
    res.writeHead(req.url === '/.well-known/oauth-protected-resource' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(req.url === '/.well-known/oauth-protected-resource' ? body : '{}');
  });
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'wk.cassette.json'));
  const res = await request(new URL('/.well-known/oauth-protected-resource', proxy.url));
  t.is(res.statusCode, 200);
  t.is(await res.body.text(), body);
  const { cassette } = await proxy.stop();
  const x = cassette.sessions[0]!.exchanges![0]!;
  t.like(x, { method: 'GET', path: '/.well-known/oauth-protected-resource', status: 200, mcp: false, outcome: 'complete' });
  t.is(cassette.sessions[0]!.messages.length, 0);
});

test('an upstream that is down: 502 with a JSON-RPC error naming it, and a log line', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, () => {});
  const url = upstream.url;
  await new Promise<void>((r) => upstream.server.close(() => r()));
  const proxy = await startHttpRecorder(t, url, join(dir, 'down.cassette.json'));
  const res = await request(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(7, 'tools/list') });
  t.is(res.statusCode, 502);
  const body = (await res.body.json()) as { id: number; error: { code: number; message: string } };
  t.is(body.id, 7);
  t.regex(body.error.message, /upstream server http:\/\/127\.0\.0\.1:\d+\/mcp cannot be reached \(ECONNREFUSED\)/);
  const { cassette, result } = await proxy.stop();
  t.regex(result.stderr, /upstream unreachable/);
  t.like(cassette.sessions[0]!.exchanges![0], { status: 502, outcome: 'upstream-error' });
});

test('an upstream that resets mid-stream: the client sees the cut, the cassette keeps what came and says so', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('id: 1\ndata: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}\n\n');
    setTimeout(() => res.socket?.destroy(), 100);
  });
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'reset.cassette.json'));
  const res = await request(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: rpc(1, 'tools/call'),
  });
  t.is(res.statusCode, 200);
  await t.throwsAsync(res.body.text());
  const { cassette } = await proxy.stop();
  const s = cassette.sessions[0]!;
  t.is(s.exchanges![0]!.outcome, 'upstream-error');
  t.regex(s.exchanges![0]!.error!, /cut off/);
  t.is(s.messages.filter((m) => m.http?.part === 'sse').length, 1);
});

test('a client that drops the connection mid-SSE aborts the upstream request, and the cassette says so', async (t) => {
  const dir = tempDir(t);
  let upstreamClosed!: () => void;
  const closed = new Promise<void>((r) => (upstreamClosed = r));
  const upstream = await startTappedUpstream(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"working"}}\n\n');
    res.on('close', () => upstreamClosed());
  });
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'abort.cassette.json'));
  const controller = new AbortController();
  const res = await request(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: rpc(1, 'tools/call'),
    signal: controller.signal,
  });
  await new Promise<void>((r) => res.body.once('data', () => r()));
  controller.abort();
  await closed; // the upstream saw its request end
  await journalHolds(dir, '"outcome":"client-aborted"'); // and the proxy wrote down why
  const { cassette } = await proxy.stop();
  const x = cassette.sessions[0]!.exchanges![0]!;
  t.is(x.outcome, 'client-aborted');
  t.is(cassette.sessions[0]!.messages.filter((m) => m.http?.part === 'sse').length, 1);
});

test('a body over the limit gets 413 and never reaches the upstream', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, (req, res) => {
    req.resume();
    res.end('{}');
  });
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'big.cassette.json'), ['--max-body-size', '1000']);
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { blob: 'x'.repeat(5000) } });
  const declared = await request(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
  t.is(declared.statusCode, 413);
  t.regex(((await declared.body.json()) as { error: { message: string } }).error.message, /over the limit of 1000.*--max-body-size/);
  // The same without a Content-Length (chunked): refused while streaming.
  const chunked = await request(proxy.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: Readable.from([big.slice(0, 800), big.slice(800)]),
  });
  t.is(chunked.statusCode, 413);
  await chunked.body.text();
  t.is(upstream.exchanges.length, 0);
  const { cassette } = await proxy.stop();
  t.true(cassette.sessions.every((s) => s.exchanges![0]!.outcome === 'refused' && s.exchanges![0]!.status === 413));
});

test('a foreign Origin or Host gets 403 (DNS rebinding protection); loopback ones pass', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(rpc(1, 'ok'));
  });
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'origin.cassette.json'));
  const port = new URL(proxy.url).port;
  const send = (headers: Record<string, string>) =>
    request(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: rpc(1, 'ping') });
  const evilOrigin = await send({ origin: 'http://evil.example.com' });
  t.is(evilOrigin.statusCode, 403);
  t.regex(
    ((await evilOrigin.body.json()) as { error: { message: string } }).error.message,
    /Origin "http:\/\/evil\.example\.com" is not allowed.*--allow-origin/,
  );
  const evilHost = await send({ host: `evil.example.com:${port}` });
  t.is(evilHost.statusCode, 403);
  await evilHost.body.text();
  t.is(upstream.exchanges.length, 0, 'refused requests never reach the upstream');
  const fine = await send({ origin: `http://localhost:${port}`, host: `localhost:${port}` });
  t.is(fine.statusCode, 200);
  await fine.body.text();
  t.is(upstream.exchanges.length, 1);
  await proxy.stop();
});

test('a slow client does not make the proxy buffer the stream: RSS stays bounded, every byte arrives', async (t) => {
  const dir = tempDir(t);
  const chunk = Buffer.from(
    `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(64 * 1024) } })}\n\n`,
  );
  const count = 1600; // about 100 MB
  const hash = createHash('sha256');
  for (let i = 0; i < count; i++) hash.update(chunk);
  // The upstream writes until its socket is full (blocked: a stall), and again after each drain.
  const upstreamState = { stalls: 0, blocked: false, ended: false };
  const stalledOrEnded = new EventEmitter();
  const upstream = await startTappedUpstream(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let i = 0;
    const pump = (): void => {
      upstreamState.blocked = false;
      while (i < count) {
        i += 1;
        if (!res.write(chunk)) {
          upstreamState.stalls += 1;
          upstreamState.blocked = true;
          stalledOrEnded.emit('change');
          res.once('drain', pump);
          return;
        }
      }
      res.end();
      upstreamState.ended = true;
      stalledOrEnded.emit('change');
    };
    pump();
  });
  /** Resolves once the upstream is blocked by backpressure (or has written everything). */
  const upstreamHeld = (): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!upstreamState.blocked && !upstreamState.ended) return;
        stalledOrEnded.off('change', check);
        resolve();
      };
      stalledOrEnded.on('change', check);
      check();
    });
  // Forwarding and recording only: the live validator's worker keeps its own bound (64 MB of
  // unjudged traffic, then it stops for the session) and would blur what this test measures.
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'slow.cassette.json'), ['--no-validate']);
  const rssMb = (): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${proxy.child.pid}/status`, 'utf8'))![1]) / 1024;
  // The proxy's own footprint before the stream (its heap and code vary by machine and load):
  // what the stream adds on top is what a buffering proxy would show, all of its 100 MB. One that
  // streams still grows by 40-65 MB here (64 KB chunks in flight, socket buffers, and garbage the
  // collector has not taken back yet), so the bound sits between the two.
  const before = rssMb();
  const res = await request(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(1, 'tools/call') });
  // The client reads a megabyte at a time, each time only once the upstream is blocked by
  // backpressure, and the proxy's RSS is sampled then, when everything between upstream and
  // client is full. A proxy that buffered would let the upstream run to the end and hold it all.
  let maxRss = 0;
  let sinceSample = 0;
  const got = createHash('sha256');
  for await (const c of res.body) {
    got.update(c as Buffer);
    sinceSample += (c as Buffer).length;
    if (sinceSample < 1024 * 1024) continue;
    sinceSample = 0;
    await upstreamHeld();
    maxRss = Math.max(maxRss, rssMb());
  }
  t.true(upstreamState.stalls > 10, 'the upstream was held back by the slow client again and again');
  t.log(`proxy RSS ${before.toFixed(0)} MB before the stream, at most ${maxRss.toFixed(0)} MB during it`);
  t.true(
    maxRss - before < 85,
    `proxy RSS grew by ${(maxRss - before).toFixed(0)} MB (from ${before.toFixed(0)} to ${maxRss.toFixed(0)} MB) while a 100 MB stream waited on a slow client`,
  );
  t.is(got.digest('hex'), hash.digest('hex'));
  await proxy.stop();
});

test('SSE framing survives byte for byte: event ids, retry, comments, CRLF, multi-line data, empty priming events', async (t) => {
  const dir = tempDir(t);
  const stream = [
    ': keep-alive comment\r\n\r\n',
    'id: prime-1\r\nretry: 3000\r\ndata:\r\n\r\n',
    'event: message\nid: 2\ndata: {"jsonrpc":"2.0","method":"notifications/progress",\ndata: "params":{"progressToken":"t","progress":1}}\n\n',
    'id: 3\ndata: {"jsonrpc":"2.0","id":1,"result":{"ok":true}}\n\n',
  ];
  const upstream = await startTappedUpstream(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let i = 0;
    const next = (): void => {
      if (i === stream.length) {
        res.end();
        return;
      }
      res.write(stream[i++]);
      setTimeout(next, 20);
    };
    next();
  });
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'sse.cassette.json'));
  const res = await request(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(1, 'tools/call') });
  t.is(await res.body.text(), stream.join(''));
  const { cassette } = await proxy.stop();
  const events = cassette.sessions[0]!.messages.filter((m) => m.http?.part === 'sse');
  t.deepEqual(
    events.map((m) => m.http!.sse),
    [{ id: 'prime-1', retry: 3000 }, { id: '2', event: 'message' }, { id: '3' }],
  );
  t.like(events[0], { kind: 'text', raw: '', bytes: 0 });
  t.like(events[1], {
    kind: 'notification',
    raw: '{"jsonrpc":"2.0","method":"notifications/progress",\n"params":{"progressToken":"t","progress":1}}',
  });
  t.is(events[2]!.kind, 'response');
});
