/**
 * `export --format har` on real recordings: a v1 SDK sessionful Streamable HTTP server recorded
 * through `record --upstream` with the v1 SDK client (POST streams, the GET listen stream with
 * its notifications and an elicitation, DELETE), and the v2 SDK stdio example recording. Every
 * HAR is checked against the published HAR 1.2 schemas (har-schema).
 */
import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cassette } from '../../../lib/cassette/cassette.js';
import { loadCassette } from '../../../lib/cassette/store.js';
import type { HarEntry, HarLog } from '../../../lib/export/har/har-types.js';
import { harValidator, runCli } from '../../helpers/har.js';
import { root } from '../../helpers/paths.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { recordSessionful } from '../../replay/sessionful.js';
import { removeDir } from '../../helpers/tmp.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-har-export-'));
const recorded = join(dir, 'sessionful.cassette.json');
const TOKEN = 'tok-4f1c9a7e2b6d8053';
const KEY = 'sk-har0export0secret0key0123';

/** The v1 client, with a bearer token on every request and a credential in one argument. */
const scenario = (url: string) =>
  runV1HttpScenario(
    url,
    async (client) => ({
      add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
      announce: await client.callTool({ name: 'announce', arguments: { what: `release ${KEY}` } }),
      confirm: await client.callTool({ name: 'confirm', arguments: { action: 'deploy' } }),
    }),
    (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set('authorization', `Bearer ${TOKEN}`);
      return fetch(input, { ...init, headers });
    },
  );

test.before(async () => {
  await recordSessionful(recorded, scenario);
});
test.after.always(() => removeDir(dir));

async function exportHar(cassette: string): Promise<{ har: HarLog; text: string; stderr: string }> {
  const out = join(dir, `${Math.random().toString(36).slice(2)}.har`);
  const r = await runCli(['export', cassette, '--format', 'har', '--output', out]);
  if (r.code !== 0) throw new Error(`export exited ${r.code}: ${r.stderr}`);
  const text = readFileSync(out, 'utf8');
  return { har: JSON.parse(text) as HarLog, text, stderr: r.stderr };
}

function assertTimings(t: import('ava').ExecutionContext, entries: HarEntry[]): void {
  for (const e of entries) {
    const { send, wait, receive } = e.timings;
    t.true(send >= 0 && wait >= 0 && receive >= 0, `${e.request.url}: send, wait and receive are not negative`);
    t.is(Math.round((send + wait + receive) * 1000), Math.round(e.time * 1000), 'time is the sum of the timings');
  }
}

test('a recorded Streamable HTTP session exports as HAR 1.2 valid by the published schema: one entry per exchange, bodies and statuses as recorded', async (t) => {
  const cassette: Cassette = loadCassette(recorded);
  const session = cassette.sessions[0]!;
  const { har } = await exportHar(recorded);
  const validate = harValidator();
  t.true(validate(har), JSON.stringify(validate.errors));
  // The validator does judge: an entry without its response status is refused.
  const broken = structuredClone(har) as unknown as { log: { entries: { response: Record<string, unknown> }[] } };
  delete broken.log.entries[0]!.response.status;
  t.false(validate(broken));
  t.is(har.log.version, '1.2');
  t.is(har.log.creator.name, 'mcp-cassette');
  t.deepEqual(
    har.log.pages.map((p) => p.id),
    cassette.sessions.map((s) => s.id),
  );
  const exchanges = cassette.sessions.flatMap((s) => s.exchanges ?? []);
  t.is(har.log.entries.length, exchanges.length);
  t.deepEqual(
    har.log.entries.map((e) => `${e.request.method} ${e.response.status}`),
    [...exchanges].sort((a, b) => a.t - b.t).map((x) => `${x.method} ${x.status}`),
  );
  t.deepEqual([...new Set(har.log.entries.map((e) => e.request.method))].sort(), ['DELETE', 'GET', 'POST']);
  assertTimings(t, har.log.entries);
  // Each POST carries the JSON-RPC body as recorded, with its media type.
  const upstream = new URL((session.target as { url: string }).url);
  for (const e of har.log.entries) {
    t.is(new URL(e.request.url).origin, upstream.origin);
    if (e.request.method !== 'POST') continue;
    t.is(e.request.postData!.mimeType, 'application/json');
    const body = JSON.parse(e.request.postData!.text) as { jsonrpc: string };
    t.is(body.jsonrpc, '2.0');
    t.is(e.request.bodySize, Buffer.byteLength(e.request.postData!.text));
  }
  const init = har.log.entries.find((e) => e.request.postData?.text.includes('"initialize"'))!;
  t.regex(init.response.content.mimeType, /^(application\/json|text\/event-stream)/);
  t.true(init.response.content.text!.includes('"protocolVersion"'));
  t.is(init.response.content.size, Buffer.byteLength(init.response.content.text!));
  const sid = init.response.headers.find((h) => h.name === 'mcp-session-id')?.value;
  t.is(sid, session.mcpSessionId);
});

test('SSE responses carry their events as _eventSourceMessages (type, time, eventId, data) and as event-stream text', async (t) => {
  const session = loadCassette(recorded).sessions[0]!;
  const { har } = await exportHar(recorded);
  const get = har.log.entries.find((e) => e.request.method === 'GET')!;
  const events = get._eventSourceMessages!;
  const onGet = session.messages.filter((m) => m.http?.exchange === session.exchanges!.find((x) => x.method === 'GET')!.id);
  t.is(events.length, onGet.length);
  t.deepEqual(
    events.filter((e) => e.data !== '').map((e) => (JSON.parse(e.data) as { method?: string }).method),
    ['notifications/message', 'notifications/resources/list_changed', 'elicitation/create'],
  );
  const start = Date.parse(session.startedAt);
  events.forEach((e, i) => {
    t.is(e.type, onGet[i]!.http!.sse?.event ?? 'message');
    t.is(e.eventName, e.type);
    t.is(e.eventId, onGet[i]!.http!.sse?.id ?? '');
    t.is(Math.round(e.time * 1000 * 1000), Math.round((start + onGet[i]!.t) * 1000), 'the time the event was complete, in seconds');
  });
  for (let i = 1; i < events.length; i++) t.true(events[i]!.time >= events[i - 1]!.time);
  const started = Date.parse(get.startedDateTime) / 1000;
  t.true(
    events.every((e) => e.time >= started && e.time <= started + get.time / 1000 + 0.001),
    'within the entry',
  );
  // The content is the event stream: each event's data on its data lines, blank line after each.
  const text = get.response.content.text!;
  t.is(get.response.content.mimeType.split(';')[0], 'text/event-stream');
  for (const e of events) if (e.data) t.true(text.includes(`data: ${e.data}\n`));
  t.is(text.split('\n\n').length - 1, events.length);
});

test('what the recorder masked stays masked: the bearer token and the credential in an argument are nowhere in the HAR', async (t) => {
  const { har, text } = await exportHar(recorded);
  t.false(text.includes(TOKEN));
  t.false(text.includes(KEY));
  const auth = har.log.entries.map((e) => e.request.headers.find((h) => h.name === 'authorization')?.value);
  t.true(auth.length > 0 && auth.every((v) => v === 'Bearer [REDACTED]'), 'every request had it, masked with its scheme kept');
  const announce = har.log.entries.find((e) => e.request.postData?.text.includes('"announce"'))!;
  t.true(announce.request.postData!.text.includes('release [REDACTED]'));
});

test('stdio cassettes map to synthetic entries: each request with its answer at stdio://server/<method> (stdio://client/ for server requests), notifications 202', async (t) => {
  const cassettePath = join(root, 'cassettes', 'examples', 'example-server.cassette.json');
  const cassette = loadCassette(cassettePath);
  const { har, stderr } = await exportHar(cassettePath);
  const validate = harValidator();
  t.true(validate(har), JSON.stringify(validate.errors));
  assertTimings(t, har.log.entries);
  const messages = cassette.sessions.flatMap((s) => s.messages);
  const requests = messages.filter((m) => m.kind === 'request' || m.kind === 'notification');
  t.is(har.log.entries.length, requests.length, 'one entry per request or notification');
  for (const e of har.log.entries) {
    const body = JSON.parse(e.request.postData!.text) as { method: string; id?: unknown };
    const url = new URL(e.request.url);
    t.is(url.protocol, 'stdio:');
    t.is(url.pathname, `/${body.method}`);
    if (body.id === undefined) {
      t.is(e.response.status, 202);
      t.is(e.response.content.text, undefined);
      continue;
    }
    t.is(e.response.status, 200, `${body.method} was answered`);
    t.deepEqual((JSON.parse(e.response.content.text!) as { id: unknown }).id, body.id, 'the answer to this request');
    const seq = e._mcpCassette!.seq!;
    const session = cassette.sessions.find((s) => s.id === e._mcpCassette!.session)!;
    const [req, ans] = seq.map((n) => session.messages.find((m) => m.seq === n)!);
    t.is(e.time, Math.round((ans!.t - req!.t) * 1000) / 1000);
    t.is(url.host, req!.direction === 'client-to-server' ? 'server' : 'client');
  }
  t.true(
    har.log.entries.some((e) => e.request.url.startsWith('stdio://client/elicitation/create')),
    'a request the server sent is answered by the client',
  );
  const left = messages.length - har.log.entries.reduce((n, e) => n + e._mcpCassette!.seq!.length, 0);
  if (left > 0) t.regex(stderr, new RegExp(`export: ${left} stdio frames? left out`));
  else t.is(stderr, '');
});

test('export reads a directory of cassettes and several files as one; an unknown --format is a usage error (exit 2)', async (t) => {
  const examples = join(root, 'cassettes', 'examples');
  const all = await runCli(['export', examples, '--format', 'har']);
  t.is(all.code, 0, all.stderr);
  const har = JSON.parse(all.stdout) as HarLog;
  t.true(harValidator()(har));
  const sessions = ['example-server', 'example-server-http', 'server-everything'].reduce(
    (n, name) => n + loadCassette(join(examples, `${name}.cassette.json`)).sessions.length,
    0,
  );
  t.is(har.log.pages.length, sessions);
  const bad = await runCli(['export', recorded, '--format', 'pcap']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--format "pcap" is not an export format; use one of har, otlp-json/);
  t.false(bad.stderr.includes('    at '), 'no stack trace');
  const none = await runCli(['export', recorded]);
  t.is(none.code, 2);
  t.regex(none.stderr, /export needs --format/);
});
