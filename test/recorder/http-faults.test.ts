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

/**
 * The most the TCP sockets of one connection on this machine can hold in the kernel: what the
 * sender's send buffer and the receiver's receive buffer may grow to (autotuning stops at
 * `tcp_wmem`/`tcp_rmem`'s maximum, `SO_SNDBUF`/`SO_RCVBUF` at twice `wmem_max`/`rmem_max`).
 * Linux has them in /proc; elsewhere a generous 32 MB each.
 */
function socketBufferBytesPerHop(): number {
  const read = (path: string, field: number): number | undefined => {
    try {
      const value = Number(readFileSync(path, 'utf8').trim().split(/\s+/)[field]);
      return Number.isFinite(value) ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const fallback = 32 * 1024 * 1024;
  const send = Math.max(read('/proc/sys/net/ipv4/tcp_wmem', 2) ?? fallback, 2 * (read('/proc/sys/net/core/wmem_max', 0) ?? 0));
  const receive = Math.max(read('/proc/sys/net/ipv4/tcp_rmem', 2) ?? fallback, 2 * (read('/proc/sys/net/core/rmem_max', 0) ?? 0));
  return send + receive;
}

/** Resolves after the event loop has gone round twice: the I/O callbacks of the poll that ran
 * before have run (a write's completion is delivered one iteration after the socket took it). */
const twoLoopTurns = (): Promise<void> => new Promise((r) => setImmediate(() => setImmediate(r)));

test('a slow client does not make the proxy buffer the stream: the upstream is held back while the client reads nothing, every byte arrives', async (t) => {
  const dir = tempDir(t);
  const chunk = Buffer.from(
    `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'y'.repeat(64 * 1024) } })}\n\n`,
  );
  // What may sit between the upstream and the client without anyone buffering: the kernel's
  // socket buffers of both connections (upstream to proxy, proxy to client) at their largest, and
  // 8 MB for the user-space buffers on the way (a 64 KB chunk in the upstream's response, undici's
  // parser and the chunks of one socket read in the proxy and in the client).
  const inFlightBound = 2 * socketBufferBytesPerHop() + 8 * 1024 * 1024;
  // About 100 MB, and always more than that bound, so a proxy that streams cannot take it all in.
  const count = Math.max(1600, Math.ceil((inFlightBound + 8 * 1024 * 1024) / chunk.length));
  const total = count * chunk.length;
  const hash = createHash('sha256');
  for (let i = 0; i < count; i++) hash.update(chunk);
  // The upstream writes until its socket is full (blocked), and again after each drain. `written`
  // and `received` (by the client, below) are counted in this one process, so their difference is
  // exactly what is between the two: checked after every write.
  const state = { blocked: false, ended: false, written: 0, received: 0, maxInFlight: 0 };
  const changed = new EventEmitter();
  const upstream = await startTappedUpstream(t, (req, res) => {
    const body: Buffer[] = [];
    req.on('data', (c: Buffer) => body.push(c));
    req.on('end', () => {
      const { id, method } = JSON.parse(Buffer.concat(body).toString()) as { id: number; method: string };
      if (method === 'ping') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const pump = (): void => {
        state.blocked = false;
        while (i < count) {
          i += 1;
          const more = res.write(chunk);
          state.written += chunk.length;
          state.maxInFlight = Math.max(state.maxInFlight, state.written - state.received);
          if (!more) {
            state.blocked = true;
            changed.emit('change');
            res.once('drain', pump);
            return;
          }
        }
        res.end();
        state.ended = true;
        changed.emit('change');
      };
      pump();
    });
  });
  /** Resolves once the upstream is blocked by backpressure (or has written everything). */
  const upstreamBlockedOrEnded = (): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (!state.blocked && !state.ended) return;
        changed.off('change', check);
        resolve();
      };
      changed.on('change', check);
      check();
    });
  // Forwarding and recording only: the live validator's worker keeps its own bound (64 MB of
  // unjudged traffic, then it stops for the session) and has nothing to do with forwarding.
  const proxy = await startHttpRecorder(t, upstream.url, join(dir, 'slow.cassette.json'), ['--no-validate']);
  const post = (id: number, method: string) =>
    request(proxy.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: rpc(id, method) });
  const res = await post(1, 'tools/call');
  t.is(res.statusCode, 200);
  // The client reads none of the stream yet. Once the upstream is blocked, a ping through the
  // proxy (another exchange) makes the proxy's event loop go round: a proxy that still reads the
  // upstream's connection, as one that buffers does, reads the bytes waiting there on the way, and
  // the upstream's socket drains and it writes more. Held means blocked at the same byte over
  // five pings in a row (the acknowledgement that frees the upstream's socket can come in on
  // another core a little after the ping's answer). A proxy that streams gets there once every
  // buffer on the way is full, and stays; one that buffers never does and lets the upstream
  // write everything.
  let pings = 0;
  let still = 0;
  while (still < 5) {
    await upstreamBlockedOrEnded();
    if (state.ended) break;
    const before = state.written;
    pings += 1;
    await (await post(100 + pings, 'ping')).body.text();
    await twoLoopTurns();
    still = state.blocked && state.written === before ? still + 1 : 0;
  }
  const mb = (n: number): string => (n / 1024 / 1024).toFixed(1);
  t.log(`${mb(state.written)} of ${mb(total)} MB written, none read, after ${pings} pings (bound ${mb(inFlightBound)} MB)`);
  t.false(state.ended, `the upstream wrote all ${mb(total)} MB while the client read none of it: the proxy buffered the stream`);
  // Now the client reads it all; what is in flight stays within what the sockets hold.
  const got = createHash('sha256');
  for await (const c of res.body) {
    got.update(c as Buffer);
    state.received += (c as Buffer).length;
  }
  t.is(state.received, total);
  t.is(got.digest('hex'), hash.digest('hex'));
  t.true(
    state.maxInFlight <= inFlightBound,
    `${mb(state.maxInFlight)} MB were written by the upstream and not yet read by the client at one point: more than the sockets between them hold (${mb(inFlightBound)} MB)`,
  );
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
