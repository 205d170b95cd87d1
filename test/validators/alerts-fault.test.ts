import test from 'ava';
import { join } from 'node:path';
import { request } from 'undici';
import { ALERT_ATTEMPTS, ALERT_BACKOFF_MS, ALERT_QUEUE_LIMIT, type AlertCounts } from '../../validators/alerts.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { rawServer, node } from '../helpers/paths.js';
import { collect, waitForOutput } from '../helpers/proc.js';
import { line, readCassette, startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { deadUrl, logRecords, startWebhook } from '../helpers/webhook.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request whose `_meta` holds `n` invalid keys: n distinct ENV-META-KEYFORMAT violations. */
function badMeta(id: number, n: number): string {
  const meta = Object.fromEntries(Array.from({ length: n }, (_, i) => [`bad key ${id}.${i}`, i]));
  return line({ jsonrpc: '2.0', id, method: 'size', params: { _meta: meta } }); // answered without echoing it
}

/** Resolves once the proxy's stdout holds `n` answers (lines with an id). */
function answers(stdout: NodeJS.ReadableStream, n: number): Promise<string> {
  return waitForOutput(stdout, (s) => (s.match(/"id":\d+/g) ?? []).length >= n);
}

/** Resolves once the proxy has logged `n` alerts (judged in its worker, later than forwarding). */
function alerted(stderr: NodeJS.ReadableStream, n: number): Promise<string> {
  return waitForOutput(stderr, (s) => (s.match(/"violation":\{/g) ?? []).length >= n);
}

function countsOf(stderr: string): AlertCounts | undefined {
  return logRecords(stderr).find((r) => r.alerts)?.alerts as AlertCounts | undefined;
}

function alertsLogged(stderr: string): number {
  return logRecords(stderr).filter((r) => r.violation).length;
}

test('a slow webhook: the client gets every answer while the webhook has answered nothing; all alerts delivered once it answers', async (t) => {
  const dir = tempDir(t);
  let release = false;
  const hook = await startWebhook(t, (r, h) => {
    if (release) h.answer(r, 204);
  });
  const cassette = join(dir, 'slow.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo'], { extra: ['--log-level', 'info', '--alert-webhook', hook.url] });
  const done = collect(proxy);
  const got = answers(proxy.stdout!, 4);
  const judged = alerted(proxy.stderr!, 6);
  proxy.stdin!.write(badMeta(1, 3));
  await hook.until(() => hook.requests.length === 1); // the first alert is at the webhook, unanswered
  for (const id of [2, 3, 4]) proxy.stdin!.write(badMeta(id, 1));
  await got;
  t.is(hook.answered, 0, 'every answer reached the client while the webhook had not answered once');
  t.is(hook.requests.length, 1, 'alerts are sent one at a time: the rest wait in the queue');
  release = true;
  hook.answer(hook.requests[0]!, 204);
  await judged;
  await hook.until(() => hook.answered === 6);
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 0);
  const n = alertsLogged(r.stderr);
  t.is(n, 6, 'six bad keys, six alerts');
  t.deepEqual(countsOf(r.stderr), { delivered: n, failed: 0, dropped: 0, undelivered: 0 });
  t.is(new Set(hook.requests.map((q) => JSON.stringify(q.alert.violation))).size, n, 'each alert reached the webhook once');
  t.is(readCassette(cassette).sessions[0]!.violations!.length, n, 'the session is saved with its violations');
});

test('a failing webhook (5xx, then 204): the same alert is retried with doubling waits, then delivered; forwarding never waited', async (t) => {
  const dir = tempDir(t);
  let held: ((status: number) => void) | undefined;
  const hook = await startWebhook(t, (r, h) => {
    const attempt = h.requests.filter((q) => JSON.stringify(q.alert.violation) === JSON.stringify(r.alert.violation)).length;
    // The first attempt of the first alert waits for the test; then two failures, then success.
    if (h.requests.length === 1) held = (status) => h.answer(r, status);
    else h.answer(r, attempt < ALERT_ATTEMPTS ? 503 : 204);
  });
  const cassette = join(dir, 'fails.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo'], { extra: ['--log-level', 'info', '--alert-webhook', hook.url] });
  const done = collect(proxy);
  const got = answers(proxy.stdout!, 2);
  proxy.stdin!.write(badMeta(1, 1));
  await hook.until(() => held !== undefined);
  proxy.stdin!.write(badMeta(2, 1));
  await got;
  t.is(hook.answered, 0, 'the client had both answers before the webhook answered');
  held!(503);
  await hook.until(() => hook.answered === 2 * ALERT_ATTEMPTS); // both alerts: 503, 503, 204
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 0);
  const first = JSON.stringify(hook.requests[0]!.alert.violation);
  t.deepEqual(
    hook.requests.slice(0, ALERT_ATTEMPTS).map((q) => JSON.stringify(q.alert.violation)),
    Array(ALERT_ATTEMPTS).fill(first),
    'the same alert, attempted again',
  );
  const waits = logRecords(r.stderr)
    .filter((x) => x.sink === 'webhook' && x.waitMs !== undefined)
    .map((x) => x.waitMs);
  t.deepEqual(
    waits,
    [ALERT_BACKOFF_MS, 2 * ALERT_BACKOFF_MS, ALERT_BACKOFF_MS, 2 * ALERT_BACKOFF_MS],
    'each alert: two failures, waits doubling',
  );
  t.regex(r.stderr, /alert webhook attempt 1 of 3 failed \(webhook answered 503\); retrying in 250 ms/);
  t.deepEqual(countsOf(r.stderr), { delivered: 2, failed: 0, dropped: 0, undelivered: 0 });
});

test('a webhook that is down (connection refused): each alert fails after its attempts and is counted; the session is recorded as usual', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'down.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo'], {
    extra: ['--log-level', 'info', '--alert-webhook', await deadUrl()],
  });
  const done = collect(proxy);
  const gaveUp = waitForOutput(proxy.stderr!, (s) => (s.match(/alert webhook failed 3 times/g) ?? []).length >= 2);
  const got = answers(proxy.stdout!, 2);
  proxy.stdin!.write(badMeta(1, 2));
  proxy.stdin!.write(badMeta(2, 0));
  await got;
  await gaveUp;
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 0, "the server's status");
  t.regex(r.stderr, /alert webhook attempt 1 of 3 failed \([^)]*ECONNREFUSED[^)]*\); retrying in 250 ms/);
  t.deepEqual(countsOf(r.stderr), { delivered: 0, failed: 2, dropped: 0, undelivered: 0 });
  t.is(readCassette(cassette).sessions[0]!.violations!.length, 2);
});

test('a webhook that never answers while many alerts come: the bounded queue fills and the drops are counted; neither the client nor --fail-on waits for it', async (t) => {
  const dir = tempDir(t);
  const hook = await startWebhook(t, () => {}); // takes the request, never answers
  const cassette = join(dir, 'full.cassette.json');
  const total = ALERT_QUEUE_LIMIT + 50;
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo'], {
    extra: ['--log-level', 'info', '--fail-on', 'error', '--alert-webhook', hook.url],
  });
  const done = collect(proxy);
  const got = answers(proxy.stdout!, 2);
  const judged = alerted(proxy.stderr!, total);
  proxy.stdin!.write(badMeta(1, total));
  proxy.stdin!.write(badMeta(2, 0));
  await got;
  await judged; // then the session ends: the alerts are all queued or dropped by then
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 1, '--fail-on error: the verdict did not wait for the webhook');
  t.regex(r.stderr, /spec violations seen in this session:\\n\s+250\s+error\s+ENV-META-KEYFORMAT/);
  t.is(hook.answered, 0);
  t.is(alertsLogged(r.stderr), total, 'every alert is logged');
  // One in flight, the queue full, the rest dropped; the in-flight and queued ones are still there at the end.
  t.deepEqual(countsOf(r.stderr), { delivered: 0, failed: 0, dropped: total - ALERT_QUEUE_LIMIT - 1, undelivered: ALERT_QUEUE_LIMIT + 1 });
  t.regex(
    r.stderr,
    new RegExp(
      `alerts: 0 delivered, 0 failed after 3 attempts, ${total - ALERT_QUEUE_LIMIT - 1} dropped \\(queue of ${ALERT_QUEUE_LIMIT} full\\), ${ALERT_QUEUE_LIMIT + 1} undelivered`,
    ),
  );
  t.is(readCassette(cassette).sessions[0]!.violations!.length, total, 'the cassette keeps every violation');
});

test('HTTP mode: a webhook that has not answered does not hold up the exchanges; alerts are delivered once it does', async (t) => {
  const dir = tempDir(t);
  let release = false;
  const hook = await startWebhook(t, (r, h) => {
    if (release) h.answer(r, 204);
  });
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { id: number }).id;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result: {} }));
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const proxy = await startHttpRecorder(
    t,
    `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`,
    join(dir, 'http.cassette.json'),
    ['--log-level', 'info', '--alert-webhook', hook.url],
  );
  const post = async (id: number): Promise<string> => {
    const res = await request(proxy.url, {
      method: 'POST',
      // A 2025-11-25 request (by its header): the `_meta` key format it breaks came with 2025-06-18,
      // and a request without the header would be read as 2025-03-26.
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { _meta: { [`bad key ${id}`]: 1 } } }),
    });
    return res.body.text();
  };
  t.is(await post(1), '{"jsonrpc":"2.0","id":1,"result":{}}');
  await hook.until(() => hook.requests.length === 1);
  for (const id of [2, 3, 4]) t.is(await post(id), `{"jsonrpc":"2.0","id":${id},"result":{}}`);
  t.is(hook.answered, 0, 'the exchanges completed while the webhook had not answered');
  release = true;
  hook.answer(hook.requests[0]!, 204);
  const { cassette, result } = await proxy.stop();
  t.is(result.code, 0);
  const n = alertsLogged(result.stderr);
  t.true(n >= 4);
  t.deepEqual(countsOf(result.stderr), { delivered: n, failed: 0, dropped: 0, undelivered: 0 });
  t.is(cassette.sessions.flatMap((s) => s.violations ?? []).length, n);
});
