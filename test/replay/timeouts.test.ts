/**
 * Timeouts from the recording: a request's default timeout is the larger of 10 s and 5 times its
 * recorded latency, so a tool that was slow when recorded and is slower now is still compared (a
 * real break exits 1, not 2); an explicit --timeout is used exactly as given.
 */
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette, stringifyCassette } from '../../lib/cassette/store.js';
import { exitCodeFor, replayCassette } from '../../replay/index.js';
import { timeoutFor } from '../../replay/play-waits.js';
import type { Interaction, PlayOptions } from '../../replay/play-model.js';
import { node } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp.js';
import { recordTargetCassette, replayTarget } from './target-client.js';

test('timeoutFor: 5x the recorded latency when that is longer than the default; a given timeout exactly', (t) => {
  const it = (ms: number) => ({ recorded: { t: 100 }, recordedResponse: { t: 100 + ms } }) as unknown as Interaction;
  const options = { timeoutMs: 10_000 } as PlayOptions;
  t.deepEqual(timeoutFor(it(40), options), { ms: 10_000, why: '' });
  t.deepEqual(timeoutFor(it(2_500), options), { ms: 12_500, why: ' (5x its recorded 2500 ms)' });
  t.deepEqual(timeoutFor(it(2_500), { ...options, timeoutMs: 3_000, timeoutGiven: true }), { ms: 3_000, why: '' });
});

test('a slow tool, slower now than the default timeout, is compared: its real change exits 1, not 2', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'slow.cassette.json');
  await recordTargetCassette(cassette, { serverArgs: ['--search-delay', '2500'] });
  // One session is enough (the first, 2025 era): each replayed search waits the full delay.
  const loaded = loadCassette(cassette);
  writeFileSync(cassette, stringifyCassette({ ...loaded, sessions: loaded.sessions.slice(0, 1) }));
  const search = loaded.sessions[0]!.messages.find(
    (m) => JSON.stringify(m.json ?? '').includes('"search"') && m.direction === 'client-to-server',
  );
  t.truthy(search, readFileSync(cassette, 'utf8').slice(0, 200));
  const r = await replayCassette(cassette, {
    command: [node, replayTarget, '--search-delay', '10500', '--regression', 'content-changed'],
    config: false,
  });
  t.is(r.error, undefined, JSON.stringify(r.error));
  t.is(r.outcome, 'changed');
  t.is(exitCodeFor(r), 1);
  const found = r.sessions[0]!.interactions.find((i) => i.name === 'search' && i.differences.length);
  t.true(found!.differences.some((d) => d.kind === 'output-changed' && d.live === '4 hits for cats'));
  t.true(found!.durationMs! > 10_000, `the live answer took ${found!.durationMs} ms`);
  // With --timeout given, it is the limit: the same replay stops with exit 2 and says so.
  const bounded = await replayCassette(cassette, {
    command: [node, replayTarget, '--search-delay', '10500', '--regression', 'content-changed'],
    config: false,
    timeoutMs: 3_000,
  });
  t.is(bounded.outcome, 'error');
  t.is(exitCodeFor(bounded), 2);
  t.regex(bounded.error!.message, /did not answer tools\/call \(search\) within 3000 ms; raise --timeout/);
});
