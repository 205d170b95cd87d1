/**
 * `import --from har` with real peers: a v1 SDK sessionful Streamable HTTP server recorded
 * through `record --upstream` with the v1 SDK client, exported to HAR and imported back; and a HAR
 * that real Chromium traffic makes, written by Playwright's recorder (chromium-har.ts), checked
 * against what the page itself sent and got. The imported cassettes are validated, replayed
 * against the real server, and served to the real client.
 */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cassette, RecordedSession } from '../../../lib/cassette/cassette.js';
import { loadCassette } from '../../../lib/cassette/store.js';
import { replayCassette } from '../../../replay/index.js';
import { found, importHar, runCli } from '../../helpers/har.js';
import { exampleServer, node, root } from '../../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../../helpers/proc.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { recordV1Sessionful, startSessionful, V1_STEPS } from '../../replay/sessionful.js';
import { serveArgs, startListening } from '../../replay/serve/helpers.js';
import { removeDir } from '../../helpers/tmp.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-har-import-'));
const recorded = join(dir, 'sessionful.cassette.json');
const exported = join(dir, 'sessionful.har');
const _TOKEN = 'tok-91d2c4e8a7b3f605';

const scenario = (url: string) => runV1HttpScenario(url, V1_STEPS);

test.before(async () => {
  await recordV1Sessionful(recorded);
  const r = await runCli(['export', recorded, '--format', 'har', '--output', exported]);
  if (r.code !== 0) throw new Error(r.stderr);
});
test.after.always(() => removeDir(dir));

/** What a message is, without where it sits in the file. */
const shapeOf = (s: RecordedSession) =>
  s.messages.map((m) => ({ kind: m.kind, direction: m.direction, json: m.json, raw: m.raw, part: m.http?.part, sse: m.http?.sse }));

const importTo = (har: string, name: string) => importHar(har, join(dir, name));

test('our own HAR imports back into the same session: every message, SSE field, time and exchange as recorded', async (t) => {
  const { cassette, stderr } = await importTo(exported, 'round-trip.cassette.json');
  const original = loadCassette(recorded);
  t.is(cassette.sessions.length, original.sessions.length);
  const [a, b] = [original.sessions[0]!, cassette.sessions[0]!];
  t.is(b.mcpSessionId, a.mcpSessionId);
  t.deepEqual(b.protocol, a.protocol);
  t.deepEqual(b.serverInfo, a.serverInfo);
  t.is(b.startedAt, a.startedAt);
  t.deepEqual(shapeOf(b), shapeOf(a));
  b.messages.forEach((m, i) => t.true(Math.abs(m.t - a.messages[i]!.t) < 0.01, `message ${m.seq} keeps its time`));
  t.deepEqual(
    b.exchanges!.map((x) => [x.method, x.status, x.outcome, x.contentType]),
    a.exchanges!.map((x) => [x.method, x.status, x.outcome, x.contentType]),
  );
  t.regex(stderr, new RegExp(`import: ${a.exchanges!.length} MCP exchanges in 1 session added to .*; 0 entries skipped`));
});

test('the imported cassette validates like the recording, replays clean against the real server, and serve answers the real client from it', async (t) => {
  const { path } = await importTo(exported, 'replayable.cassette.json');
  const validate = async (p: string) => {
    const r = await runCli(['validate', p, '--format', 'json']);
    t.is(r.code, 0, r.stderr);
    return (JSON.parse(r.stdout) as { violations: { rule: string }[] }).violations.map((v) => v.rule).sort();
  };
  t.deepEqual(await validate(path), await validate(recorded));

  const r = await replayCassette(path, { url: await startSessionful(t), config: false, timeoutMs: 10_000 });
  t.deepEqual(found(r), []);
  t.is(r.outcome, 'passed');
  t.is(r.summary.skipped, 0);
  t.true(
    r.sessions[0]!.interactions.some((i) => i.method === 'DELETE'),
    'the DELETE was replayed',
  );

  const live = await scenario(await startSessionful(t));
  const served = await startListening(t, serveArgs(path, ['--listen', '127.0.0.1:0']));
  const got = await scenario(served.url);
  t.deepEqual({ add: got.add, confirm: got.confirm }, { add: live.add, confirm: live.confirm });
  t.deepEqual(got.announce, live.announce);
  const finished = await served.stop();
  t.regex(finished.stderr, /ok: \d+ answered from the cassette, 0 unmatched, 0 client answer mismatches/);
});

test('import writes the cassette to stdout without --output, and adds to an existing cassette with it', async (t) => {
  const r = await runCli(['import', '--from', 'har', exported, '--label', 'from DevTools']);
  t.is(r.code, 0, r.stderr);
  const cassette = JSON.parse(r.stdout) as Cassette;
  t.is(cassette.format, 'mcp-cassette');
  t.is(cassette.sessions[0]!.label, 'from DevTools');
  t.regex(r.stderr, /^import: \d+ MCP exchanges in 1 session; 0 entries skipped \(not MCP\)\n$/);
  const path = join(dir, 'twice.cassette.json');
  await importTo(exported, 'twice.cassette.json');
  const second = await importTo(exported, 'twice.cassette.json');
  t.is(second.cassette.sessions.length, 2, 'a second import adds its session');
  t.is(loadCassette(path).sessions.length, 2);
});

test('the stateless HTTP example recording (v2 SDK, 2026-07-28 and 2025-11-25, SSE progress, MRTR) survives export and import, and replays clean against the example server', async (t) => {
  const example = join(root, 'cassettes', 'examples', 'example-server-http.cassette.json');
  const har = join(dir, 'example-http.har');
  const r = await runCli(['export', example, '--format', 'har', '--output', har]);
  t.is(r.code, 0, r.stderr);
  const { path, cassette } = await importTo(har, 'example-http.cassette.json');
  const original = loadCassette(example);
  t.is(cassette.sessions.length, original.sessions.length, 'each stateless exchange a session of its own');
  cassette.sessions.forEach((s, i) => {
    const o = original.sessions[i]!;
    t.deepEqual(shapeOf(s), shapeOf(o));
    t.deepEqual(s.protocol, o.protocol);
    t.is(s.startedAt, o.startedAt);
    t.deepEqual(
      s.messages.map((m) => m.t),
      o.messages.map((m) => m.t),
    );
  });
  const server = spawnTracked(t, node, [exampleServer, 'http', '0']);
  const url = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).trim();
  const replay = await replayCassette(path, { url, config: false, timeoutMs: 10_000 });
  t.deepEqual(found(replay), []);
  t.is(replay.outcome, 'passed');
  t.is(replay.summary.skipped, 0);
});
