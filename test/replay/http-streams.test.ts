import test, { type ExecutionContext } from 'ava';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as V2Client, StreamableHTTPClientTransport as V2Transport } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Cassette, HttpExchange, RecordedSession } from '../../lib/cassette/cassette.js';
import { loadCassette, stringifyCassette } from '../../lib/cassette/store.js';
import { exitCodeFor, renderConsole, renderReport, replayCassette } from '../../replay/index.js';
import type { InteractionResult, ReplayResult } from '../../replay/index.js';
import { cli, everythingServer, node, root } from '../helpers/paths.js';
import { spawnTracked } from '../helpers/proc.js';
import { forceLoopback, loopbackPort } from '../helpers/real-server.js';
import { waitForSessions } from '../helpers/recording.js';
import { tempDir, removeDir } from '../helpers/tmp.js';
import { runV1HttpScenario } from '../peers/v1-http-client.js';
import { firstLine, recordSessionful, recordV1Sessionful, startSessionful } from './sessionful.js';

// The client's own GET (the listen stream of a 2025 sessionful server) and DELETE (the session
// end), recorded through the real proxy from real servers (a v1 SDK sessionful server, and
// server-everything's streamableHttp mode) with real clients, then replayed.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-http-streams-'));
/** v1 SDK client: add, announce (two notifications on the GET stream), confirm (an elicitation on
 * the GET stream), then DELETE. */
const v1Cassette = join(dir, 'v1.cassette.json');
/** v1 SDK client: add and announce only, then DELETE. */
const listenCassette = join(dir, 'listen.cassette.json');
/** v2 SDK client: announce and confirm, then it closes its GET stream without a DELETE. */
const v2Cassette = join(dir, 'v2.cassette.json');

async function v2Scenario(url: string): Promise<void> {
  const client = new V2Client(
    { name: 'replay-streams-v2', version: '1.0.0' },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: 'legacy' } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
  await client.connect(new V2Transport(new URL(url)));
  try {
    await client.callTool({ name: 'announce', arguments: { what: 'release' } });
    await client.callTool({ name: 'confirm', arguments: { action: 'deploy' } });
  } finally {
    await client.close();
  }
}

test.before(async () => {
  await recordV1Sessionful(v1Cassette);
  await recordSessionful(listenCassette, (url) =>
    runV1HttpScenario(url, async (client) => ({
      add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
      announce: await client.callTool({ name: 'announce', arguments: { what: 'release' } }),
    })),
  );
  await recordSessionful(v2Cassette, v2Scenario);
});
test.after.always(() => removeDir(dir));

const startTarget = startSessionful;

const replayAgainst = async (t: ExecutionContext, cassette: string, args: string[] = []) =>
  replayCassette(cassette, { url: await startTarget(t, args), config: false, timeoutMs: 5000 });

/** `<method>[ <name>]: <verdict> <kind>` for every difference. */
const found = (r: ReplayResult): string[] =>
  r.sessions.flatMap((s) =>
    s.interactions.flatMap((i) => i.differences.map((d) => `${i.method}${i.name ? ` ${i.name}` : ''}: ${d.verdict} ${d.kind}`)),
  );
const exchangeSteps = (r: ReplayResult): InteractionResult[] =>
  r.sessions.flatMap((s) => s.interactions.filter((i) => i.exchange !== undefined));
const exchangeOf = (s: RecordedSession, method: string): HttpExchange => s.exchanges!.find((x) => x.method === method)!;
const onExchange = (s: RecordedSession, x: HttpExchange) =>
  s.messages.filter((m) => m.http?.exchange === x.id && m.json !== undefined).map((m) => m.json as { method?: string; params?: unknown });

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validateReport = ajv.compile(JSON.parse(readFileSync(join(root, 'replay', 'replay-report.schema.json'), 'utf8')) as object);

test("the recordings hold the client's GET stream (with its notifications and the elicitation) and its DELETE", (t) => {
  const s = loadCassette(v1Cassette).sessions[0]!;
  t.truthy(s.mcpSessionId);
  const get = exchangeOf(s, 'GET');
  t.is(get.status, 200);
  t.deepEqual(
    onExchange(s, get).map((j) => j.method),
    ['notifications/message', 'notifications/resources/list_changed', 'elicitation/create'],
  );
  t.is(exchangeOf(s, 'DELETE').status, 200);
  const v2 = loadCassette(v2Cassette).sessions[0]!;
  t.is(exchangeOf(v2, 'GET').outcome, 'client-aborted', 'the v2 client closed its stream itself');
  t.is(v2.exchanges!.filter((x) => x.method === 'DELETE').length, 0);
});

test('v1 SDK sessionful server: the GET stream and the DELETE replay clean against the server that recorded them (elicitation on the GET stream answered from the cassette)', async (t) => {
  const r = await replayAgainst(t, v1Cassette);
  t.deepEqual(found(r), []);
  t.is(r.outcome, 'passed');
  t.is(r.summary.skipped, 0);
  const s = r.sessions[0]!;
  const recorded = loadCassette(v1Cassette).sessions[0]!;
  t.like(exchangeSteps(r), [
    { seq: 0, method: 'GET', name: 'listen stream', exchange: exchangeOf(recorded, 'GET').id, outcome: 'same' },
    { seq: 0, method: 'DELETE', name: 'session end', exchange: exchangeOf(recorded, 'DELETE').id, outcome: 'same' },
  ]);
  // In recorded order: initialize, then the GET, the calls, the DELETE last.
  t.deepEqual(
    s.interactions.map((i) => `${i.method}${i.name ? ` ${i.name}` : ''}`),
    ['initialize', 'GET listen stream', 'tools/call add', 'tools/call announce', 'tools/call confirm', 'DELETE session end'],
  );
  t.like(
    s.interactions.find((i) => i.name === 'confirm'),
    { outcome: 'same' },
  );
});

test('a notification missing on the GET stream is a warning on the GET interaction; JSON report valid', async (t) => {
  const r = await replayAgainst(t, v1Cassette, ['--regression', 'get-notification-missing']);
  t.deepEqual(found(r), ['GET listen stream: warning notifications-changed']);
  t.is(r.outcome, 'passed');
  const d = exchangeSteps(r)[0]!.differences[0]!;
  t.is(d.message, 'notifications/resources/list_changed on the GET stream: 1 recorded, 0 live');
  // The announcement log (with a fresh timestamp) is still there and is no difference.
  t.false(found(r).some((f) => f.includes('notifications/message')));
  const report = JSON.parse(renderReport('json', r)) as unknown;
  t.true(validateReport(report), ajv.errorsText(validateReport.errors));
});

test('a DELETE now answered 405 is a warning (the spec lets servers refuse client-ended sessions): exit 0, 1 with --strict', async (t) => {
  const r = await replayAgainst(t, v1Cassette, ['--regression', 'delete-405']);
  t.deepEqual(found(r), ['DELETE session end: warning session-termination-refused']);
  const d = exchangeSteps(r)[1]!.differences[0]!;
  t.like(d, { recorded: 200, live: 405 });
  t.is(r.outcome, 'passed');
  t.is(exitCodeFor(r), 0);
  t.is(exitCodeFor(r, true), 1);
  const text = renderConsole(r, false);
  t.regex(text, /WARNING {2}exchange \d+ DELETE session end\n\s+WARNING {2}session-termination-refused: .*405/);
  t.regex(renderReport('junit', r), /<testcase [^>]*name="exchange \d+ DELETE session end"/);
});

test('a DELETE now answered 404 is breaking', async (t) => {
  const r = await replayAgainst(t, v1Cassette, ['--regression', 'delete-404']);
  t.deepEqual(found(r), ['DELETE session end: breaking http-status-changed']);
  t.like(exchangeSteps(r)[1]!.differences[0], {
    recorded: 200,
    live: 404,
    message: 'HTTP status 200 became 404 for the DELETE that ends the session',
  });
  t.is(r.outcome, 'breaking');
  t.is(exitCodeFor(r), 1);
});

test('a GET now answered 405 (no listen stream) is a warning, and what the stream carried is reported missing', async (t) => {
  const r = await replayAgainst(t, listenCassette, ['--regression', 'get-405']);
  t.is(r.error, undefined);
  t.deepEqual(found(r).sort(), [
    'GET listen stream: warning listen-stream-refused',
    'GET listen stream: warning notifications-changed',
    'GET listen stream: warning notifications-changed',
  ]);
  t.deepEqual(
    exchangeSteps(r)[0]!
      .differences.map((d) => d.message)
      .slice(1)
      .sort(),
    [
      'notifications/message on the GET stream: 1 recorded, 0 live',
      'notifications/resources/list_changed on the GET stream: 1 recorded, 0 live',
    ],
  );
  t.is(r.outcome, 'passed');
});

test('a client that closes its GET stream itself (v2 SDK client, no DELETE): closed at its recorded point, clean; a missing notification is still caught', async (t) => {
  const clean = await replayAgainst(t, v2Cassette);
  t.deepEqual(found(clean), []);
  t.is(clean.summary.skipped, 0);
  t.deepEqual(
    exchangeSteps(clean).map((i) => `${i.method} ${i.outcome}`),
    ['GET same'],
  );
  const seeded = await replayAgainst(t, v2Cassette, ['--regression', 'get-notification-missing']);
  t.deepEqual(found(seeded), ['GET listen stream: warning notifications-changed']);
});

test('--update re-records the GET and DELETE exchanges with the session; replaying again passes, and an unchanged session stays byte for byte', async (t) => {
  const cassette = join(tempDir(t), 'c.cassette.json');
  copyFileSync(v1Cassette, cassette);
  const before = readFileSync(cassette, 'utf8');
  const plain = await replayCassette(cassette, { url: await startTarget(t), config: false, timeoutMs: 5000, update: true });
  t.like(plain.update, { written: false, replaced: [], kept: [1] });
  t.is(readFileSync(cassette, 'utf8'), before, 'nothing changed, nothing written');

  const url = await startTarget(t, ['--regression', 'get-notification-missing']);
  const r = await replayCassette(cassette, { url, config: false, timeoutMs: 5000, update: true });
  t.like(r.update, { written: true, replaced: [1], conflicts: [] });
  const s = loadCassette(cassette).sessions[0]!;
  const old = loadCassette(v1Cassette).sessions[0]!;
  t.not(s.mcpSessionId, old.mcpSessionId, 'the live session id');
  t.deepEqual(
    s.exchanges!.map((x) => x.method),
    old.exchanges!.map((x) => x.method),
    'the same exchanges: POSTs, the GET, the DELETE',
  );
  const get = exchangeOf(s, 'GET');
  t.like(get, { id: exchangeOf(old, 'GET').id, status: 200, outcome: 'complete' });
  t.is(get.requestHeaders['mcp-session-id'], s.mcpSessionId);
  t.regex(String(get.contentType), /^text\/event-stream/);
  t.deepEqual(
    onExchange(s, get).map((j) => j.method),
    ['notifications/message', 'elicitation/create'],
    'what the live stream carried',
  );
  t.like(exchangeOf(s, 'DELETE'), { status: 200, outcome: 'complete' });
  t.is(exchangeOf(s, 'DELETE').requestHeaders['mcp-session-id'], s.mcpSessionId);

  const again = await replayCassette(cassette, { url, config: false, timeoutMs: 5000 });
  t.deepEqual(found(again), []);
  const back = await replayAgainst(t, cassette);
  t.deepEqual(found(back), ['GET listen stream: warning notifications-changed'], 'the old server now differs');

  // A refused DELETE is re-recorded as refused: replaying against that server then passes.
  copyFileSync(v1Cassette, cassette);
  const refusing = await startTarget(t, ['--regression', 'delete-405']);
  const u = await replayCassette(cassette, { url: refusing, config: false, timeoutMs: 5000, update: true });
  t.like(u.update, { written: true, replaced: [1] });
  t.like(exchangeOf(loadCassette(cassette).sessions[0]!, 'DELETE'), { status: 405 });
  t.deepEqual(found(await replayCassette(cassette, { url: refusing, config: false, timeoutMs: 5000 })), []);
});

/** server-everything in streamableHttp mode, forced onto 127.0.0.1 (REAL-PEERS §1.3). */
async function startEverything(t: ExecutionContext): Promise<string> {
  // PORT=0: the kernel picks a free port; the preload says which.
  const child = spawnTracked(t, node, ['--require', forceLoopback, everythingServer, 'streamableHttp'], {
    env: { ...process.env, PORT: '0' },
  });
  return `http://127.0.0.1:${await loopbackPort(child)}/mcp`;
}

test('server-everything (streamableHttp): its subscribe/unsubscribe logs on the GET stream and the DELETE replay clean; seeded differences are judged', async (t) => {
  const cassette = join(tempDir(t), 'everything.cassette.json');
  const upstream = await startEverything(t);
  const proxy = spawnTracked(t, node, [cli, 'record', '--log-level', 'error', '--upstream', upstream, '--cassette', cassette]);
  const uri = 'demo://resource/static/document/architecture.md';
  await runV1HttpScenario(await firstLine(proxy), async (client) => ({
    sub: await client.subscribeResource({ uri }),
    sum: await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }),
    unsub: await client.unsubscribeResource({ uri }),
  }));
  const closed = new Promise((r) => proxy.on('close', r));
  proxy.kill('SIGINT');
  await closed;
  const recorded = (await waitForSessions(cassette, 1)).sessions.find((s) => s.mcpSessionId)!;
  const get = exchangeOf(recorded, 'GET');
  const logs = onExchange(recorded, get).filter((j) => j.method === 'notifications/message');
  t.is(logs.length, 2, 'subscribe and unsubscribe are acknowledged on the GET stream');

  // A fresh server-everything: new session ids inside the log texts, new SSE event ids.
  const r = await replayCassette(cassette, { url: await startEverything(t), config: false, timeoutMs: 5000 });
  t.deepEqual(found(r), []);
  t.is(r.summary.skipped, 0);
  t.deepEqual(
    exchangeSteps(r).map((i) => `${i.method} ${i.outcome}`),
    ['GET same', 'DELETE same'],
  );

  // Seeded in the cassette: the recording never got the unsubscribe log on its GET stream, and
  // its DELETE was refused with 405.
  const c: Cassette = loadCassette(cassette);
  const s = c.sessions.find((x) => x.mcpSessionId)!;
  const unsubscribed = s.messages.findIndex((m) => m.http?.exchange === get.id && JSON.stringify(m.json).includes('Unsubscribe'));
  s.messages.splice(unsubscribed, 1);
  exchangeOf(s, 'DELETE').status = 405;
  const seeded = join(tempDir(t), 'seeded.cassette.json');
  writeFileSync(seeded, stringifyCassette(c));
  const d = await replayCassette(seeded, { url: await startEverything(t), config: false, timeoutMs: 5000 });
  t.deepEqual(found(d), ['GET listen stream: warning notifications-changed', 'DELETE session end: compatible session-termination-offered']);
  t.is(exchangeSteps(d)[0]!.differences[0]!.message, 'notifications/message on the GET stream: 1 recorded, 2 live');
  t.is(d.outcome, 'passed');
});
