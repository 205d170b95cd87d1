import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCassette, stringifyCassette } from '../../lib/cassette/store.js';
import { replayCassette } from '../../replay/index.js';
import type { Difference, ReplayResult } from '../../replay/index.js';
import { cli, node } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { validateCassettes } from '../../validators/validate-run.js';
import { tempDir, removeDir } from '../helpers/tmp.js';
import { recordHttpTargetCassette, recordTargetCassette, replayTarget, startHttpTarget } from './target-client.js';

// Traffic around the answers, against real replay-target processes: progress and log streams,
// HTTP status codes, server→client requests and pagination cursors.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-traffic-'));
const stdio = join(dir, 'stdio.cassette.json');
const paged = join(dir, 'paged.cassette.json');
const http = join(dir, 'http.cassette.json');
test.before(async () => {
  await recordTargetCassette(stdio);
  // tools/list paged too (two tools a page), besides resources/list (one resource a page).
  await recordTargetCassette(paged, { serverArgs: ['--paginate-tools'] });
  await recordHttpTargetCassette(http);
});
test.after.always(() => removeDir(dir));

const replay = (regression?: string, cassette = stdio) =>
  replayCassette(cassette, {
    command: [node, replayTarget, ...(regression ? ['--regression', regression] : [])],
    config: false,
    timeoutMs: 5000,
  });

/** `<revision> <method>[ <name>]: <verdict> <kind>` for every difference. */
const found = (r: ReplayResult): string[] =>
  r.sessions.flatMap((s) =>
    s.interactions.flatMap((i) =>
      i.differences.map((d) => `${s.revision} ${i.method}${i.name ? ` ${i.name}` : ''}: ${d.verdict} ${d.kind}`),
    ),
  );
const all = (r: ReplayResult): Difference[] => r.sessions.flatMap((s) => s.interactions.flatMap((i) => i.differences));

test('a changed progress sequence is a warning on the request it belongs to, in both eras', async (t) => {
  const r = await replay('progress-changed');
  t.is(r.error, undefined);
  t.deepEqual(found(r).sort(), [
    '2025-11-25 tools/call count: warning progress-changed',
    '2026-07-28 tools/call count: warning progress-changed',
  ]);
  t.is(r.outcome, 'passed');
  const d = all(r)[0]!;
  t.regex(d.message, /progress notifications changed: 3 recorded, 2 live/);
  // Tokens are normalised, so only the real change shows.
  t.deepEqual(
    (d.live as Array<{ progressToken: string }>).map((p) => p.progressToken),
    ['<progress-token>', '<progress-token>'],
  );
});

test("changed log messages are a warning on the session's notification stream", async (t) => {
  const r = await replay('log-changed');
  t.deepEqual(found(r), ['2025-11-25 notifications: warning notifications-changed']);
  t.is(r.outcome, 'passed');
  const d = all(r)[0]!;
  t.is(d.message, 'notifications/message: content changed');
  t.deepEqual(
    d.recorded,
    [1, 2, 3].map((i) => ({ level: 'info', data: `step ${i} of 3` })),
  );
  t.deepEqual(
    d.live,
    [1, 2, 3].map((i) => ({ level: 'info', data: `counted ${i}/3` })),
  );
});

test('an unexpected server→client request is breaking, and replay answers it with an error instead of hanging', async (t) => {
  const r = await replay('server-request');
  t.is(r.error, undefined, 'the session ran to the end');
  const unexpected = r.sessions.flatMap((s) =>
    s.interactions.filter((i) => i.differences.some((d) => d.kind === 'unexpected-server-request')).map((i) => ({ s, i })),
  );
  t.is(unexpected.length, 1);
  const { s, i } = unexpected[0]!;
  t.is(s.revision, '2025-11-25');
  t.is(i.name, 'search');
  const d = i.differences.find((x) => x.kind === 'unexpected-server-request')!;
  t.is(d.verdict, 'breaking');
  t.regex(
    d.message,
    /the server now sends roots\/list to the client while it handles tools\/call search, which the recorded session never got there \(replay answered it with an error\)/,
  );
  t.is(r.outcome, 'breaking');
  // On 2026-07-28 the same change is an input_required result instead of a request.
  t.true(found(r).includes('2026-07-28 tools/call search: breaking result-type-changed'));
});

test('an HTTP status that became 5xx is breaking', async (t) => {
  const { url } = await startHttpTarget(t, ['--regression', 'http-status']);
  const r = await replayCassette(http, { url, config: false, timeoutMs: 5000 });
  const status = all(r).filter((d) => d.kind === 'http-status-changed');
  t.is(status.length, 2, found(r).join('\n'));
  for (const d of status) {
    t.is(d.verdict, 'breaking');
    t.is(d.recorded, 200);
    t.is(d.live, 503);
    t.is(d.message, 'HTTP status 200 became 503');
  }
  t.deepEqual(
    found(r)
      .filter((f) => f.endsWith('http-status-changed'))
      .sort(),
    ['2025-11-25 tools/call search: breaking http-status-changed', '2026-07-28 tools/call search: breaking http-status-changed'],
  );
  t.is(r.outcome, 'breaking');
});

test("replay's own requests over stateless HTTP never reuse an id: the MRTR retry, a session of its own, gets a new one", async (t) => {
  // Replay through a recording proxy, then judge what replay sent with validate's rules: the
  // retry of confirm_action is another exchange, and ids numbered per exchange repeated the
  // first call's id (TOOLS-RETRY-NEW-ID on replay's own traffic).
  const { url } = await startHttpTarget(t);
  const own = join(dir, 'replayed.cassette.json');
  const proxy = spawnTracked(t, node, [cli, 'record', '--no-validate', '--log-level', 'silent', '--upstream', url, '--cassette', own]);
  const proxyUrl = (await waitForOutput(proxy.stdout!, (s) => s.includes('\n'))).trim();
  const r = await replayCassette(http, { url: proxyUrl, config: false, timeoutMs: 5000 });
  t.is(r.outcome, 'passed', found(r).join('\n'));
  const closed = new Promise((resolve) => proxy.once('close', resolve));
  proxy.kill('SIGTERM');
  await closed;
  const run = validateCassettes([own]);
  const mine = run.violations.filter((v) => v.direction === 'client-to-server');
  t.deepEqual(
    mine.map((v) => `${v.rule} ${v.message}`),
    [],
  );
  const stateless = loadCassette(own).sessions.filter((s) => s.protocol.revision === '2026-07-28');
  const ids = stateless.flatMap((s) =>
    s.messages
      .filter((m) => m.direction === 'client-to-server' && m.json && 'id' in (m.json as object))
      .map((m) => JSON.stringify((m.json as { id: unknown }).id)),
  );
  t.true(ids.length > 3, `requests replayed over stateless HTTP: ${ids.length}`);
  t.is(new Set(ids).size, ids.length, `ids: ${ids.join(' ')}`);
});

test('pagination: cursors that are random per server run are followed, so every page replays clean (stdio and HTTP)', async (t) => {
  const r = await replayCassette(paged, { command: [node, replayTarget, '--paginate-tools'], config: false, timeoutMs: 5000 });
  t.deepEqual(found(r), []);
  const full = r.sessions.filter((x) => x.interactions.length > 3);
  t.is(full.length, 2, 'one full session per era');
  for (const s of full) {
    const tools = s.interactions.filter((i) => i.method === 'tools/list');
    t.is(tools.length, 2, `session ${s.index} listed two pages of tools`);
    const resources = s.interactions.filter((i) => i.method === 'resources/list');
    t.is(resources.length, 3, `session ${s.index} listed three pages of resources`);
    t.true([...tools, ...resources].every((p) => p.outcome === 'same'));
  }
  // Over stateless HTTP each page is a session of its own: the cursor crosses sessions.
  const { url } = await startHttpTarget(t);
  const h = await replayCassette(http, { url, config: false, timeoutMs: 5000 });
  t.deepEqual(found(h), []);
  t.is(h.sessions.filter((s) => s.interactions.some((i) => i.method === 'resources/list' && i.outcome === 'same')).length, 6);
});

test('pagination: the clean replay depends on following the live cursor (a cursor the server never issued is refused)', async (t) => {
  const c = loadCassette(paged);
  let tampered = 0;
  for (const s of c.sessions) {
    for (const m of s.messages) {
      const j = m.json as { method?: string; params?: { cursor?: string } } | undefined;
      if (m.direction === 'client-to-server' && j?.params?.cursor !== undefined) {
        j.params.cursor = 'not-a-live-cursor';
        delete m.raw;
        tampered += 1;
      }
    }
  }
  t.is(tampered, 6, 'per full session: one follow-up page of tools, two of resources');
  const path = join(tempDir(t), 'tampered.cassette.json');
  writeFileSync(path, stringifyCassette(c));
  const r = await replayCassette(path, { command: [node, replayTarget, '--paginate-tools'], config: false, timeoutMs: 5000 });
  const refused = r.sessions.flatMap((s) =>
    s.interactions.filter((i) =>
      i.differences.some((d) => d.kind === 'success-became-error' && /unknown cursor not-a-live-cursor/.test(d.message)),
    ),
  );
  t.deepEqual(refused.map((i) => i.method).sort(), [
    'resources/list',
    'resources/list',
    'resources/list',
    'resources/list',
    'tools/list',
    'tools/list',
  ]);
});
