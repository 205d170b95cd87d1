import test from 'ava';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { node, root } from '../helpers/paths.js';
import { recordHttpTargetCassette, recordTargetCassette, replayTarget, startHttpTarget } from '../replay/target-client.js';
import { build, readSarif, runCheck } from './support.js';
import { removeDir } from '../helpers/tmp.js';

// Base-vs-PR mode: fresh cassettes recorded from a base build (by the committed cassettes' client
// side, or by a client script), then replayed against the PR build; and the same over HTTP.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-basepr-'));
test.before(async () => {
  await recordTargetCassette(join(dir, 'target.cassette.json'));
  await recordHttpTargetCassette(join(dir, 'http.cassette.json'));
});
test.after.always(() => removeDir(dir));

const base = `${node} ${replayTarget}`;
const client = `${node} ${join(root, 'dist', 'test', 'peers', 'check-client.js')}`;

test("--baseline-build records the base build with the cassettes' client side, then replays that against the PR build", async (t) => {
  const same = await runCheck(t, ['--cassettes', 'target.cassette.json', '--baseline-build', base, '--', ...build()], { cwd: dir });
  t.is(same.code, 0, same.stdout.toString() + same.stderr);
  const r = await runCheck(
    t,
    [
      '--cassettes',
      'target.cassette.json',
      '--baseline-build',
      base,
      '--record-dir',
      'base',
      '--sarif',
      'pr.sarif',
      '--',
      ...build('enum-shrunk'),
    ],
    { cwd: dir },
  );
  t.is(r.code, 1, r.stdout.toString() + r.stderr);
  t.deepEqual(readdirSync(join(dir, 'base')), ['001-target.cassette.json'], 'the fresh cassette is kept in --record-dir');
  const shrunk = readSarif(t, join(dir, 'pr.sarif')).filter((x) => x.ruleId === 'replay/input-enum-shrunk');
  t.true(shrunk.length >= 1);
  t.true(shrunk.every((x) => x.locations[0]!.physicalLocation.artifactLocation.uri === 'base/001-target.cassette.json'));
});

test('--client: a client script records the base build (no committed cassette), the PR build is checked against it', async (t) => {
  const r = await runCheck(t, ['--client', client, '--baseline-build', base, '--summary', 'client.md', '--', ...build('tool-removed')], {
    cwd: dir,
  });
  t.is(r.code, 1, r.stdout.toString() + r.stderr);
  t.regex(r.stderr, /check-client: done/, "the script's output goes to stderr");
  t.regex(r.stdout.toString(), /FAIL +breaking +tool-removed/);
  const same = await runCheck(t, ['--client', client, '--baseline-build', base, '--quiet', '--', ...build()], { cwd: dir });
  t.is(same.code, 0, same.stderr);
  const failing = await runCheck(t, ['--client', `${node} -e "process.exit(4)"`, '--baseline-build', base, '--', ...build()], { cwd: dir });
  t.is(failing.code, 2);
  t.regex(failing.stdout.toString(), /client script .* exited with code 4/);
});

test('over Streamable HTTP: --url checks the build behind the recording proxy, --baseline-url records the base build', async (t) => {
  const plain = await startHttpTarget(t);
  // A new required argument: a contract break whatever the recorded calls sent (an enum that only
  // lost a value these calls never send would be a warning, schema evidence).
  const shrunk = await startHttpTarget(t, ['--regression', 'new-required-input']);
  const same = await runCheck(t, ['--cassettes', 'http.cassette.json', '--url', plain.url], { cwd: dir });
  t.is(same.code, 0, same.stdout.toString() + same.stderr);
  const r = await runCheck(t, ['--cassettes', 'http.cassette.json', '--url', shrunk.url, '--sarif', 'http.sarif'], { cwd: dir });
  t.is(r.code, 1, r.stdout.toString() + r.stderr);
  t.true(readSarif(t, join(dir, 'http.sarif')).some((x) => x.ruleId === 'replay/input-required-added'));
  const pr = await runCheck(t, ['--client', client, '--baseline-url', plain.url, '--url', shrunk.url, '--quiet'], { cwd: dir });
  t.is(pr.code, 1, pr.stderr);
  t.false(existsSync(join(dir, 'client.cassette.json')), 'fresh cassettes go to a temporary folder without --record-dir');
});
