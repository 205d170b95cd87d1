import test, { type ExecutionContext } from 'ava';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Cassette, RecordedSession } from '../../lib/cassette/cassette.js';
import { loadCassette, stringifyCassette } from '../../lib/cassette/store.js';
import { replayCassette } from '../../replay/index.js';
import type { Difference, ReplayResult } from '../../replay/index.js';
import { writeUpdate } from '../../replay/update.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir, removeDir } from '../helpers/tmp.js';
import { recordHttpTargetCassette, recordTargetCassette, replayTarget, startHttpTarget } from './target-client.js';

// A stdio cassette of the plain replay target (2025 and 2026-07-28 sessions, the v2 client's
// discover probes and a short tools/list-only session), recorded with a secret in the server's
// argv, then masked by hand where a user would mask secrets in traffic: the readme's text whole,
// and the greeting's name inside its sentence.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-update-'));
const recorded = join(dir, 'target.cassette.json');
const httpRecorded = join(dir, 'http.cassette.json');
const SECRET = 'sk-live-abcdefghijkl';

function maskByHand(c: Cassette): void {
  for (const s of c.sessions) {
    const reads = new Map<string, string>();
    for (const m of s.messages) {
      const j = m.json as Record<string, any> | undefined;
      if (!j) continue;
      if (m.direction === 'client-to-server' && typeof j.method === 'string')
        reads.set(JSON.stringify(j.id), j.method === 'resources/read' ? String(j.params?.uri) : j.method);
      if (m.direction !== 'server-to-client' || j.result === undefined) continue;
      const asked = reads.get(JSON.stringify(j.id));
      if (asked === 'example://readme') j.result.contents[0].text = '[REDACTED]';
      if (asked === 'prompts/get') j.result.messages[0].content.text = 'Say hi to [REDACTED]';
      delete m.raw;
      m.bytes = Buffer.byteLength(JSON.stringify(j));
    }
  }
}

test.before(async () => {
  await recordTargetCassette(recorded, { extraSession: true, serverArgs: [`--api-key=${SECRET}`] });
  const c = loadCassette(recorded);
  maskByHand(c);
  writeFileSync(recorded, stringifyCassette(c));
  await recordHttpTargetCassette(httpRecorded, ['--redact-header', 'x-upstream-token']);
});
test.after.always(() => removeDir(dir));

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validateReport = ajv.compile(JSON.parse(readFileSync(join(root, 'replay', 'replay-report.schema.json'), 'utf8')) as object);

const all = (r: ReplayResult): Difference[] => r.sessions.flatMap((s) => s.interactions.flatMap((i) => i.differences));
const copy = (t: ExecutionContext, from: string) => {
  const to = join(tempDir(t), 'c.cassette.json');
  copyFileSync(from, to);
  return to;
};

async function cli_(t: ExecutionContext, args: string[]) {
  const done = await collect(spawnTracked(t, node, [cli, 'replay', ...args]));
  return { ...done, stdout: done.stdout.toString('utf8') };
}

/** The cassette with the given sessions swapped back to the old ones, as text. */
function withSessionsOf(after: Cassette, before: Cassette, ids: Set<string>): string {
  return stringifyCassette({
    ...after,
    sessions: after.sessions.map((s) => (ids.has(s.id) ? before.sessions.find((b) => b.id === s.id)! : s)),
  });
}

function clientMessages(s: RecordedSession) {
  return s.messages.filter((m) => m.direction === 'client-to-server' && m.channel !== 'stderr').map((m) => m.json as Record<string, any>);
}

test('masked values are not differences: a replay of the hand-masked cassette against its server passes', async (t) => {
  const r = await replayCassette(recorded, { command: [node, replayTarget], config: false, timeoutMs: 5000 });
  t.deepEqual(all(r), []);
  t.is(r.outcome, 'passed');
});

test('--update re-records the changed sessions: exit 0, replaying again passes, the other sessions stay byte for byte, redactions stay', async (t) => {
  const cassette = copy(t, recorded);
  const before = loadCassette(cassette);
  const beforeText = readFileSync(cassette, 'utf8');
  const other = 'sk-other-0123456789abcdef';
  const server = ['--', node, replayTarget, '--regression', 'content-changed', `--api-key=${other}`];

  const reportFile = join(tempDir(t), 'report.json');
  const r = await cli_(t, [cassette, '--update', '--report', `json=${reportFile}`, ...server]);
  t.is(r.code, 0, r.stdout + r.stderr);
  const report = JSON.parse(readFileSync(reportFile, 'utf8')) as ReplayResult;
  t.true(validateReport(report), ajv.errorsText(validateReport.errors));
  t.is(report.outcome, 'changed', 'the report still says what changed');
  t.deepEqual(report.update, { written: true, replaced: [1, 3], kept: [2, 4, 5], conflicts: [] });
  // What changed is printed, then what the update did.
  t.regex(r.stdout, /CHANGED  #\d+ tools\/call search/);
  t.regex(r.stdout, /- "3 hits for cats"\n\s+\+ "4 hits for cats"/);
  t.regex(r.stdout, /updated .*c\.cassette\.json: re-recorded sessions 1, 3 from the live server .*; kept 3 sessions as they were/);

  const after = loadCassette(cassette);
  const afterText = readFileSync(cassette, 'utf8');
  t.deepEqual(
    after.sessions.map((s) => s.id),
    before.sessions.map((s) => s.id),
    'same sessions, same order',
  );
  const changed = new Set([before.sessions[0]!.id, before.sessions[2]!.id]);
  // Everything but the two re-recorded sessions is byte-identical.
  t.is(withSessionsOf(after, before, changed), beforeText);
  t.not(afterText, beforeText);

  for (const id of changed) {
    const old = before.sessions.find((s) => s.id === id)!;
    const now = after.sessions.find((s) => s.id === id)!;
    const text = JSON.stringify(now);
    t.true(text.includes('4 hits for cats'));
    t.false(text.includes('3 hits for cats'));
    // Redactions: the server's secret argv (recorder's rules), and the values masked by hand.
    t.true(now.target && 'command' in now.target && now.target.command.includes('--api-key=[REDACTED]'));
    t.false(afterText.includes(other) || afterText.includes(SECRET), 'no secret reaches the file');
    t.true(text.includes('"text":"[REDACTED]"'), 'the readme stays masked');
    t.true(text.includes('"text":"Say hi to [REDACTED]"'), 'the masked part of the greeting stays masked');
    t.false(text.includes('replay target readme'));
    // The client side is the recorded one: same messages and ids, except the values replay
    // substitutes on the wire (the live MRTR requestState, the live pagination cursors).
    const was = clientMessages(old);
    const is = clientMessages(now);
    t.is(is.length, was.length);
    was.forEach((m, i) => {
      const strip = (x: Record<string, any>) => JSON.stringify(x, (k, v) => (k === 'requestState' || k === 'cursor' ? '<substituted>' : v));
      t.is(strip(is[i]!), strip(m), `client message ${i + 1} of session ${id}`);
    });
    t.is(now.startedAt, old.startedAt);
    t.is(now.violations, undefined, 'live findings about the old traffic are dropped');
  }
  // The 2026-07-28 session's MRTR retry echoes the requestState the new traffic holds.
  const modern = clientMessages(after.sessions[2]!);
  const retry = modern.find((m) => m.params?.requestState !== undefined)!;
  t.true(afterText.includes(JSON.stringify(retry.params.requestState)));

  const again = await cli_(t, [cassette, ...server]);
  t.is(again.code, 0, again.stdout);
  t.regex(again.stdout, /0 breaking, 0 changed, 0 warning, 0 compatible, 0 skipped/);
  // The updated cassette is sound traffic: no spec errors (MRTR echo, id correlation, cursors).
  const validated = await collect(spawnTracked(t, node, [cli, 'validate', cassette, '--fail-on', 'error']));
  t.is(validated.code, 0, validated.stdout.toString());
  // And the change is now the recorded behaviour: the old server is the one that differs.
  const old = await replayCassette(cassette, { command: [node, replayTarget], config: false, timeoutMs: 5000 });
  t.true(all(old).some((d) => d.kind === 'output-changed' && d.recorded === '4 hits for cats' && d.live === '3 hits for cats'));
});

test('--update when nothing changed, or when the replay cannot finish, leaves the file untouched', async (t) => {
  const cassette = copy(t, recorded);
  const beforeText = readFileSync(cassette, 'utf8');
  const same = await cli_(t, [cassette, '--update', '--', node, replayTarget]);
  t.is(same.code, 0, same.stdout);
  t.regex(same.stdout, /not updated: every session answered as recorded; nothing to update/);
  t.is(readFileSync(cassette, 'utf8'), beforeText);

  const crash = await cli_(t, [cassette, '--update', '--timeout', '3000', '--', node, replayTarget, '--regression', 'crash']);
  t.is(crash.code, 2, crash.stdout);
  t.regex(crash.stdout, /not updated: the replay could not run to the end, so the cassette was not changed/);
  t.is(readFileSync(cassette, 'utf8'), beforeText);
});

test('--update over Streamable HTTP: changed exchanges re-recorded, secret response headers masked, replaying again passes', async (t) => {
  const cassette = copy(t, httpRecorded);
  const before = loadCassette(cassette);
  const beforeText = readFileSync(cassette, 'utf8');
  const { url } = await startHttpTarget(t, ['--regression', 'content-changed']);
  const r = await replayCassette(cassette, { url, config: false, update: true, timeoutMs: 5000 });
  t.is(r.outcome, 'changed');
  t.truthy(r.update?.written);
  t.is(r.update!.replaced.length, 2, 'one search session per era');
  t.deepEqual(r.update!.conflicts, []);

  const after = loadCassette(cassette);
  const changed = new Set(r.update!.replaced.map((i) => before.sessions[i - 1]!.id));
  t.is(withSessionsOf(after, before, changed), beforeText);
  for (const id of changed) {
    const s = after.sessions.find((x) => x.id === id)!;
    t.true(JSON.stringify(s.messages).includes('4 hits for cats'));
    t.is(s.exchanges?.length, 1);
    const x = s.exchanges![0]!;
    t.is(x.status, 200);
    t.is(x.outcome, 'complete');
    // Set-Cookie by the recorder's default rule, X-Upstream-Token because the cassette held it masked.
    t.is(x.responseHeaders?.['set-cookie']?.toString(), '[REDACTED]');
    t.is(x.responseHeaders?.['x-upstream-token'], '[REDACTED]');
    t.deepEqual(
      s.messages.map((m) => m.http?.exchange),
      s.messages.map(() => x.id),
    );
    t.is((s.target as { url: string }).url, url);
  }
  t.false(readFileSync(cassette, 'utf8').includes('sid='), 'no live cookie reaches the file');

  const again = await replayCassette(cassette, { url, config: false, timeoutMs: 5000 });
  t.deepEqual(all(again), []);
  t.is(again.outcome, 'passed');
});

test('the write re-reads the file under the lock: sessions appended meanwhile are kept, a session changed meanwhile is not overwritten', async (t) => {
  const cassette = copy(t, recorded);
  const loaded = loadCassette(cassette);
  // Another process, while our replay ran: it changed session 1 and appended a session.
  const meanwhile = loadCassette(cassette);
  meanwhile.sessions[0]!.label = 'edited elsewhere';
  meanwhile.sessions.push({ ...meanwhile.sessions[1]!, id: 'appended-meanwhile' });
  writeFileSync(cassette, stringifyCassette(meanwhile));
  const replaced = (i: number): RecordedSession => ({ ...loaded.sessions[i]!, label: `re-recorded ${i + 1}` });
  const written = await writeUpdate(
    cassette,
    loaded,
    new Map([
      [loaded.sessions[0]!.id, replaced(0)],
      [loaded.sessions[2]!.id, replaced(2)],
    ]),
  );
  t.true(written.written);
  t.deepEqual(written.conflicts, [
    { id: loaded.sessions[0]!.id, reason: 'the session was changed by another process while the replay ran' },
  ]);
  const after = loadCassette(cassette);
  t.deepEqual(
    after.sessions.map((s) => s.label ?? s.id),
    ['edited elsewhere', loaded.sessions[1]!.id, 're-recorded 3', loaded.sessions[3]!.id, loaded.sessions[4]!.id, 'appended-meanwhile'],
  );
});
