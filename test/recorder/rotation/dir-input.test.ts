import test from 'ava';
import { runExampleScenario } from '../../../recorder/demo/example-client.js';
import { exampleServer } from '../../helpers/paths.js';
import { settleDirOrphans } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { cassetteFiles, cli, collect, journalsIn, node, readJson, spawnTracked, until } from './dir-helpers.js';

test('stdio: each run of `record --cassette-dir` adds a cassette (v2 SDK client, example server); show, validate, replay and serve take the directory or several files', async (t) => {
  const dir = tempDir(t);
  for (const mode of ['legacy', 'auto'] as const) {
    const result = await runExampleScenario(
      { command: node, args: [cli, 'record', '--cassette-dir', dir, '--', node, exampleServer, 'stdio'] },
      mode,
    );
    t.truthy(result.protocolVersion);
  }
  // The v2 client in auto mode starts a probe process first: that is a run (and a cassette) too.
  // A probe run SIGKILLed by the SDK (under load) leaves its journal for a reader to settle.
  await until(() => (settleDirOrphans(dir), cassetteFiles(dir).length >= 2 && journalsIn(dir).length === 0), 'the cassettes', 90_000);
  const files = cassetteFiles(dir);
  const sessions = files.flatMap((f) => readJson(f).sessions);
  t.is(sessions.length, files.length, 'one session per run and cassette');
  t.deepEqual(
    sessions.map((s) => s.startedAt),
    [...sessions.map((s) => s.startedAt)].sort(),
    'names sort by time',
  );

  const shown = await collect(spawnTracked(t, node, [cli, 'show', dir, '--json']));
  t.is(shown.code, 0, shown.stderr);
  const listed = JSON.parse(shown.stdout.toString()) as { cassettes: { cassette: string; sessions: unknown[] }[] };
  t.deepEqual(
    listed.cassettes.map((c) => c.cassette),
    files,
  );

  const validated = await collect(spawnTracked(t, node, [cli, 'validate', ...files, '--fail-on', 'error']));
  t.is(validated.code, 0, validated.stdout.toString());

  // replay plays every session of the directory against the live server.
  const replayed = await collect(spawnTracked(t, node, [cli, 'replay', dir, '--report', 'json=-', '--', node, exampleServer, 'stdio']));
  t.is(replayed.code, 0, replayed.stderr);
  const report = JSON.parse(replayed.stdout.toString()) as { sessions: { outcome: string }[] };
  t.is(report.sessions.length, sessions.length);
  // and several files, named one by one.
  const two = await collect(
    spawnTracked(t, node, [cli, 'replay', files[0]!, files.at(-1)!, '--report', 'json=-', '--', node, exampleServer, 'stdio']),
  );
  t.is(two.code, 0, two.stderr);
  t.is((JSON.parse(two.stdout.toString()) as { sessions: unknown[] }).sessions.length, 2);
  const update = await collect(spawnTracked(t, node, [cli, 'replay', dir, '--update', '--', node, exampleServer, 'stdio']));
  t.is(update.code, 2);
  t.regex(
    update.stderr,
    /replay --update writes into one cassette file, and \d+ were given \(a directory or several files\); name one of them/,
  );

  // serve answers a real client from every session of the directory.
  const served = await runExampleScenario({ command: node, args: [cli, 'serve', dir] }, 'legacy');
  t.is(served.protocolVersion, '2025-11-25');
});
