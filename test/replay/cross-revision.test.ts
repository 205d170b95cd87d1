import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runExampleScenario } from '../../recorder/demo/example-client.js';
import { replayCassette } from '../../replay/index.js';
import type { InteractionResult, ReplayResult, SessionResult } from '../../replay/index.js';
import { cli, exampleServer, node, root } from '../helpers/paths.js';
import { spawnTracked, waitForOutput } from '../helpers/proc.js';
import { waitForSessions } from '../helpers/recording.js';
import { recordTargetCassette, replayTarget } from './target-client.js';
import { removeDir } from '../helpers/tmp.js';

// Cross-revision replay (issue 5, item 8): a cassette keeps its recorded era against a server that
// also speaks the other one, and a server that dropped the recorded era is a breaking change.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-cross-'));
const legacyOnly = join(dir, 'legacy-only.cassette.json');
const target = join(dir, 'target.cassette.json');
/** Recorded from a server that counter-offered 2025-06-18 to the client's 2025-11-25. */
const counterOffered = join(dir, 'counter-offered.cassette.json');
const OLDER = ['--protocol-versions', '2025-06-18,2026-07-28'];
const examples = join(root, 'cassettes', 'examples');

test.before(async () => {
  // The official v2 client in `auto` mode against the example server's 2025-only mode: a probe
  // process whose server/discover gets -32601, then the 2025 initialize session.
  await runExampleScenario(
    { command: node, args: [cli, 'record', '--log-level', 'warn', '--cassette', legacyOnly, '--', node, exampleServer, 'stdio-legacy'] },
    'auto',
  );
  await waitForSessions(legacyOnly, 2);
  await recordTargetCassette(target);
  await recordTargetCassette(counterOffered, { serverArgs: OLDER });
});
test.after.always(() => removeDir(dir));

const diffs = (s: SessionResult) => s.interactions.flatMap((i) => i.differences.map((d) => `${i.method}:${d.verdict}:${d.kind}`));
const byRevision = (r: ReplayResult, revision: string) => r.sessions.filter((s) => s.revision === revision);
const refusedNote = /^not replayed: the server refused the recorded protocol revision at #\d+ /;

test('a 2025-11-25 cassette against a server that also speaks 2026-07-28 (v2 SDK example server) keeps working in its era', async (t) => {
  const r = await replayCassette(legacyOnly, { command: [node, exampleServer, 'stdio'], config: false, timeoutMs: 5000 });
  t.is(r.outcome, 'passed');
  const [probe, session] = r.sessions;
  // The probe that failed now succeeds: compatible, the server gained a revision.
  t.deepEqual(diffs(probe!), ['server/discover:compatible:protocol-version-added']);
  // The session itself runs in 2025-11-25 as recorded: initialize negotiates it again, and every
  // answer (2025 elicitation, progress, logs included) is unchanged.
  t.is(session!.revision, '2025-11-25');
  t.deepEqual(diffs(session!), []);
  t.true(session!.interactions.some((i) => i.method === 'initialize' && i.outcome === 'same'));
  t.true(session!.interactions.some((i) => i.name === 'confirm_action' && i.outcome === 'same'));
  t.is(r.summary.skipped, 0);
});

test('the 2025 session of a both-era cassette against the replay target stays in 2025-11-25', async (t) => {
  const r = await replayCassette(target, { command: [node, replayTarget], config: false, timeoutMs: 5000 });
  t.is(r.outcome, 'passed');
  const legacy = byRevision(r, '2025-11-25');
  t.is(legacy.length, 1);
  t.deepEqual(diffs(legacy[0]!), []);
  t.true(
    legacy[0]!.interactions.some((i) => i.method === 'initialize' && i.outcome === 'same'),
    'initialize negotiated the recorded revision again',
  );
});

for (const [mode, code] of [
  ['reject', -32022],
  ['missing', -32601],
] as const) {
  test(`a server that no longer speaks the recorded 2025 era (initialize answered ${code}) is a breaking change; the rest of that session is not replayed`, async (t) => {
    const r = await replayCassette(target, { command: [node, replayTarget, '--legacy', mode], config: false, timeoutMs: 5000 });
    t.is(r.outcome, 'breaking');
    const [legacy] = byRevision(r, '2025-11-25');
    const init = legacy!.interactions.find((i) => i.method === 'initialize')!;
    t.is(init.outcome, 'breaking');
    t.is(init.differences.length, 1);
    const d = init.differences[0]!;
    t.is(d.kind, 'protocol-version-dropped');
    t.is(d.verdict, 'breaking');
    t.regex(d.message, new RegExp(`no longer supports the recorded protocol revision 2025-11-25: initialize now fails with ${code}`));
    t.is((d.live as { code: number }).code, code);
    const rest = legacy!.interactions.filter((i) => i !== init);
    t.true(rest.length > 5);
    t.true(
      rest.every((i: InteractionResult) => i.outcome === 'skipped' && refusedNote.test(i.note ?? '')),
      JSON.stringify(rest.map((i) => i.note)),
    );
    // The 2026-07-28 sessions of the same cassette still pass against this server.
    for (const s of byRevision(r, '2026-07-28')) t.deepEqual(diffs(s), []);
    t.is(r.summary.breaking, 1);
  });
}

test('a 2026-07-28 cassette against a 2025-only server (example server, stdio-legacy) is a breaking change', async (t) => {
  const r = await replayCassette(join(examples, 'example-server.cassette.json'), {
    command: [node, exampleServer, 'stdio-legacy'],
    config: false,
    cwd: root,
    timeoutMs: 5000,
  });
  t.is(r.outcome, 'breaking');
  const [probe, modern, legacy] = r.sessions;
  t.deepEqual(diffs(probe!), ['server/discover:breaking:protocol-version-dropped']);
  // The enveloped requests are answered the 2025 way (no resultType): the first says it, the
  // rest of the session is not replayed.
  t.deepEqual(diffs(modern!), ['tools/list:breaking:protocol-version-dropped']);
  t.regex(modern!.interactions[0]!.differences[0]!.message, /tools\/list was answered without resultType/);
  t.true(modern!.interactions.slice(1).every((i) => i.outcome === 'skipped' && refusedNote.test(i.note ?? '')));
  t.deepEqual(diffs(legacy!), [], 'the 2025 session of the same cassette still passes');
});

test('over Streamable HTTP: 2025 sessions against the example server with the 2025 era switched off are breaking, 2026-07-28 ones pass', async (t) => {
  const server = spawnTracked(t, node, [exampleServer, 'http', '0', 'reject']);
  const url = (await waitForOutput(server.stdout!, (s) => s.includes('\n'))).trim();
  const r = await replayCassette(join(examples, 'example-server-http.cassette.json'), { url, config: false, timeoutMs: 5000 });
  t.is(r.outcome, 'breaking');
  // Sessions with JSON-RPC traffic; the GET-only one (the v2 client's listen stream, refused
  // with 405 by the stateless server) is answered 405 again: nothing changed there.
  const legacy = byRevision(r, '2025-11-25').filter((s) => s.interactions.some((i) => i.exchange === undefined));
  t.true(legacy.length >= 5);
  const listen = byRevision(r, '2025-11-25').filter((s) => s.interactions.length && s.interactions.every((i) => i.exchange !== undefined));
  t.is(listen.length, 1);
  t.like(listen[0]!.interactions, [{ method: 'GET', outcome: 'same' }]);
  for (const s of legacy) {
    t.true(
      s.interactions.every((i) => i.differences.some((d) => d.kind === 'protocol-version-dropped' && d.verdict === 'breaking')),
      `session ${s.index}: ${diffs(s).join(', ')}`,
    );
  }
  for (const s of byRevision(r, '2026-07-28')) t.deepEqual(diffs(s), [], `session ${s.index}`);
});

test('negotiation is judged by what the client asked for: granting it where the recording had a counter-offer is compatible, a new counter-offer breaks', async (t) => {
  const initialize = (r: ReplayResult) =>
    r.sessions.flatMap((s) =>
      s.interactions
        .filter((i) => i.method === 'initialize')
        .flatMap((i) => i.differences.map((d) => `${d.verdict}:${d.kind}:${String(d.recorded)}->${String(d.live)}`)),
    );
  // The recorded server answered 2025-06-18 to a client asking for 2025-11-25; the new build grants it.
  const upgraded = await replayCassette(counterOffered, { command: [node, replayTarget], config: false, timeoutMs: 5000 });
  t.deepEqual(initialize(upgraded), ['compatible:protocol-version-negotiated:2025-06-18->2025-11-25']);
  t.not(upgraded.outcome, 'breaking');
  // The reverse: the recorded server granted 2025-11-25, the new build counter-offers 2025-06-18.
  const downgraded = await replayCassette(target, { command: [node, replayTarget, ...OLDER], config: false, timeoutMs: 5000 });
  t.deepEqual(initialize(downgraded), ['breaking:protocol-version-changed:2025-11-25->2025-06-18']);
  t.is(downgraded.outcome, 'breaking');
});
