import test from 'ava';
import { join } from 'node:path';
import { node, root, cli } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { readCassette } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

test('the built-in example (npm start) records real sessions and says where and what', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'demo.cassette.json');
  const r = await collect(spawnTracked(t, node, [join(root, 'dist', 'recorder', 'demo', 'run-demo.js'), cassette]));
  t.is(r.code, 0, r.stderr);
  const out = r.stdout.toString();
  t.regex(out, /client \(auto negotiation\) ran 6 steps on protocol 2026-07-28 \(modern era\)/);
  t.regex(out, /client \(legacy negotiation\) ran 6 steps on protocol 2025-11-25 \(legacy era\)/);
  t.true(out.includes(`${cassette}: 3 sessions`));
  const c = readCassette(cassette);
  t.deepEqual(
    c.sessions.map((s) => s.protocol.revision),
    ['2026-07-28', '2026-07-28', '2025-11-25'],
  );
});

test('show --json summarises sessions for scripts', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'demo.cassette.json');
  await collect(spawnTracked(t, node, [join(root, 'dist', 'recorder', 'demo', 'run-demo.js'), cassette]));
  const r = await collect(spawnTracked(t, node, [cli, 'show', cassette, '--json']));
  t.is(r.code, 0);
  const summary = JSON.parse(r.stdout.toString()) as {
    cassette: string;
    sessions: { revision: string; methods: Record<string, number>; server: string }[];
  };
  t.is(summary.cassette, cassette);
  t.is(summary.sessions.length, 3);
  // No notifications/message: on 2026-07-28 the example logs only for requests that ask (LOG-OPT-IN).
  t.deepEqual(summary.sessions[1]!.methods, {
    'tools/list': 1,
    'tools/call': 4,
    'resources/read': 1,
    'prompts/get': 1,
    'notifications/progress': 3,
  });
  t.is(summary.sessions[2]!.server, 'mcp-cassette-example 1.0.0');
});

test('unknown commands and options get a usage error, exit 2', async (t) => {
  const r = await collect(spawnTracked(t, node, [cli, 'recrod']));
  t.is(r.code, 2);
  t.regex(r.stderr, /Did you mean record/);
  const bad = await collect(spawnTracked(t, node, [cli, 'record', '--no-such-flag', '--', 'x']));
  t.is(bad.code, 2);
  t.regex(bad.stderr, /Unknown argument/);
});
