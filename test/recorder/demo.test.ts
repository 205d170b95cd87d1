import test from 'ava';
import { join } from 'node:path';
import { node, root, cli, rawServer } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { readCassette } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

const demo = join(root, 'dist', 'recorder', 'demo', 'run-demo.js');

test('npm start tells the story: a live alert, the same verdict offline, a breaking replay explained, a served answer', async (t) => {
  const dir = join(tempDir(t), 'story');
  const r = await collect(spawnTracked(t, node, [demo, dir], { env: { ...process.env, NO_COLOR: '1' } }));
  t.is(r.code, 0, r.stderr);
  const out = r.stdout.toString();
  const steps = out.split(/\n(?=\d\/4 {2})/);
  t.is(steps.length, 5, 'an introduction and four steps');
  const [, record, validate, replay, serve] = steps as [string, string, string, string, string];
  const answer = '{"city":"Paris","tempC":18,"conditions":"light rain"}';
  t.true(record.includes(`the client got: ${answer}`), 'the client got its answer through the proxy');
  t.regex(
    record,
    /ERROR: STDIO-STDOUT-CLEAN \(message #\d+ S>C\): non-MCP output on stdout: "debug: looking up Paris"/,
    'the live alert, as a readable line',
  );
  t.regex(record, /spec violations seen in this session:\n\s+1\s+error\s+STDIO-STDOUT-CLEAN/, 'the summary as a table');
  t.regex(validate, /error +STDIO-STDOUT-CLEAN .*#\d+ S>C: non-MCP output on stdout/);
  t.regex(validate, /\(exit 0\)/);
  t.regex(replay, /BREAKING input-required-added: tool "get_forecast" input property "units" is now required/);
  t.regex(replay, /BREAKING output-property-removed: tool "get_forecast" output property "tempC" was removed/);
  t.regex(replay, /\(exit 1\)/, 'breaking is exit 1');
  t.true(serve.includes(`the client got: ${answer}  (serve exit 0)`), 'served from the cassette, the same answer');
  t.is(out.match(/\n {2}try next: /g)?.length, 4, 'one command to try next per step');
  const c = readCassette(join(dir, 'weather.cassette.json'));
  t.is(c.sessions.length, 1);
  t.deepEqual(
    c.sessions[0]!.violations?.map((v) => v.rule),
    ['STDIO-STDOUT-CLEAN'],
    'the cassette keeps the violation, and only the seeded one',
  );
});

test('show lists the violations stored in a cassette; --json carries them', async (t) => {
  const dir = join(tempDir(t), 'story');
  t.is((await collect(spawnTracked(t, node, [demo, dir]))).code, 0);
  const cassette = join(dir, 'weather.cassette.json');
  const text = (await collect(spawnTracked(t, node, [cli, 'show', cassette]))).stdout.toString();
  t.regex(text, /\n {5}violations: 1 error\n {7}error {3}STDIO-STDOUT-CLEAN #\d+ S>C: non-MCP output on stdout: "debug: looking up Paris"/);
  const r = await collect(spawnTracked(t, node, [cli, 'show', cassette, '--json']));
  t.is(r.code, 0);
  const summary = JSON.parse(r.stdout.toString()) as {
    cassette: string;
    sessions: { revision: string; methods: Record<string, number>; server: string; violations: { rule: string; seq: number }[] }[];
  };
  t.is(summary.cassette, cassette);
  t.is(summary.sessions[0]!.server, 'demo-weather 1.0.0');
  t.deepEqual(summary.sessions[0]!.methods, { initialize: 1, 'notifications/initialized': 1, 'tools/list': 1, 'tools/call': 1 });
  t.deepEqual(
    summary.sessions[0]!.violations.map((v) => v.rule),
    ['STDIO-STDOUT-CLEAN'],
  );
});

test('show says when a session was recorded without live validation', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'quiet.cassette.json');
  const rec = spawnTracked(t, node, [cli, 'record', '--no-validate', '--log-level', 'warn', '-c', cassette, '--', node, rawServer]);
  rec.stdin!.end();
  t.is((await collect(rec)).code, 0);
  const text = (await collect(spawnTracked(t, node, [cli, 'show', cassette]))).stdout.toString();
  t.true(text.includes('violations: not judged live (recorded with --no-validate'), text);
});

test('unknown commands and options get a usage error, exit 2', async (t) => {
  const r = await collect(spawnTracked(t, node, [cli, 'recrod']));
  t.is(r.code, 2);
  t.regex(r.stderr, /Did you mean record/);
  const bad = await collect(spawnTracked(t, node, [cli, 'record', '--no-such-flag', '--', 'x']));
  t.is(bad.code, 2);
  t.regex(bad.stderr, /^mcp-cassette record: unknown option --no-such-flag\. Usage: mcp-cassette record /);
});
