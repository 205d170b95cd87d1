import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordTargetCassette } from '../replay/target-client.js';
import { assertRegions, build, cleanEnv, readJunit, readSarif, runCheck } from './support.js';
import { removeDir } from '../helpers/tmp.js';

// One cassette recorded from the plain replay target (a 2025 and a 2026-07-28 session, real SDK
// client through the real proxy), checked against the same build and against seeded-break builds.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-check-'));
test.before(async () => {
  await recordTargetCassette(join(dir, 'target.cassette.json'));
});
test.after.always(() => removeDir(dir));

test('the same build passes: exit 0, the job summary appended to $GITHUB_STEP_SUMMARY, a JUnit case per interaction', async (t) => {
  const summary = join(dir, 'same-summary.md');
  writeFileSync(summary, '# earlier step\n');
  const r = await runCheck(t, ['--cassettes', '*.cassette.json', '--junit', 'same.xml', '--', ...build()], {
    cwd: dir,
    env: cleanEnv({ GITHUB_STEP_SUMMARY: summary }),
  });
  t.is(r.code, 0, r.stdout.toString() + r.stderr);
  const md = readFileSync(summary, 'utf8');
  t.true(md.startsWith('# earlier step\n## mcp-cassette check: ✅ passed'), 'appended after what the job wrote before');
  const counts = md.split('\n').find((l) => /^\| 1 \| \d+ \| \d+ \| 0 \|/.test(l));
  t.truthy(counts, 'one cassette, no breaking change in the counts row');
  t.notRegex(md, /Breaking changes|New violations/);
  const junit = readJunit(t, join(dir, 'same.xml'));
  t.is(junit.failures, 0);
  const interactions = junit.cases.filter((c) => c.classname.startsWith('session '));
  t.true(interactions.length >= 20, `a case per replayed interaction (${interactions.length})`);
  t.true(interactions.some((c) => c.name.includes('tools/call search')));
  t.false(r.stdout.toString().includes('::'), 'no annotations outside GitHub Actions');
});

test('a seeded breaking change fails: exit 1, located at the recorded message in SARIF, JUnit and annotations', async (t) => {
  const r = await runCheck(
    t,
    [
      '--cassettes',
      'target.cassette.json',
      '--junit',
      'removed.xml',
      '--sarif',
      'removed.sarif',
      '--summary',
      'removed.md',
      '--',
      ...build('tool-removed'),
    ],
    { cwd: dir, env: cleanEnv({ GITHUB_ACTIONS: 'true' }) },
  );
  t.is(r.code, 1, r.stderr);
  const results = readSarif(t, join(dir, 'removed.sarif'));
  const breaking = results.filter((x) => x.ruleId.startsWith('replay/'));
  t.deepEqual([...new Set(breaking.map((x) => x.ruleId))].sort(), ['replay/success-became-error', 'replay/tool-removed']);
  t.true(breaking.every((x) => x.level === 'error' && x.locations[0]!.physicalLocation.artifactLocation.uri === 'target.cassette.json'));
  assertRegions(t, results, dir);
  t.is(new Set(breaking.map((x) => x.partialFingerprints['mcpCassetteFinding/v1'])).size, breaking.length, 'one fingerprint per finding');
  const junit = readJunit(t, join(dir, 'removed.xml'));
  const failed = junit.cases.filter((c) => c.failure);
  t.true(failed.some((c) => c.name.includes('tools/list') && c.failure!.message.includes('tool-removed')));
  t.true(failed.some((c) => c.name.includes('tools/call stamp') && c.failure!.message.includes('success-became-error')));
  t.is(junit.failures, failed.length);
  const md = readFileSync(join(dir, 'removed.md'), 'utf8');
  t.regex(md, /❌ failed/);
  t.regex(
    md,
    /\| `target\.cassette\.json:\d+` \| session \d tools\/list stamp \| \*\*tool-removed\*\*/,
    'each breaking change with where it is',
  );
  // The same findings of another run carry the same fingerprints: code scanning tracks them.
  const again = await runCheck(
    t,
    ['--cassettes', 'target.cassette.json', '--sarif', 'removed-again.sarif', '--quiet', '--', ...build('tool-removed')],
    { cwd: dir },
  );
  t.is(again.code, 1);
  const prints = (rs: typeof results) => rs.map((x) => `${x.ruleId} ${x.partialFingerprints['mcpCassetteFinding/v1']}`).sort();
  t.deepEqual(prints(readSarif(t, join(dir, 'removed-again.sarif'))), prints(results));
  const annotations = r.stdout
    .toString()
    .split('\n')
    .filter((l) => l.startsWith('::'));
  t.true(
    annotations.some((l) =>
      /^::error file=target\.cassette\.json,line=\d+,title=breaking change tool-removed::tool "stamp" was removed/.test(l),
    ),
  );
});

test('a new spec violation fails even when nothing breaks: exit 1, marked new, with the live value', async (t) => {
  const r = await runCheck(
    t,
    ['--cassettes', 'target.cassette.json', '--sarif', 'noise.sarif', '--summary', 'noise.md', '--', ...build('stdout-noise')],
    { cwd: dir },
  );
  t.is(r.code, 1, r.stdout.toString() + r.stderr);
  const results = readSarif(t, join(dir, 'noise.sarif'));
  const noise = results.filter((x) => x.ruleId === 'STDIO-STDOUT-CLEAN');
  t.true(noise.length >= 1);
  t.true(noise.every((x) => x.level === 'error'));
  assertRegions(t, results, dir);
  t.false(
    results.some((x) => x.ruleId.startsWith('replay/')),
    'no breaking change: the violation alone fails the check',
  );
  const md = readFileSync(join(dir, 'noise.md'), 'utf8');
  t.regex(md, /New violations \(\d+\)/);
  t.regex(md, /\*\*STDIO-STDOUT-CLEAN\*\* error .*`"replay-target starting"`/, 'the live value is shown');
  // Warnings the recording already had do not fail at the default --fail-on error …
  t.regex(md, /Violations the recording has too/);
});

test('--fail-on warning fails on the warnings the same build has', async (t) => {
  const r = await runCheck(t, ['--cassettes', 'target.cassette.json', '--fail-on', 'warning', '--quiet', '--', ...build()], { cwd: dir });
  t.is(r.code, 1, r.stderr);
  t.is(r.stdout.toString(), '', '--quiet: nothing on stdout outside GitHub Actions');
});

test('exit 2 when it cannot run: no cassette matches, or the build does not start', async (t) => {
  const none = await runCheck(t, ['--cassettes', 'nothing/*.cassette.json', '--', ...build()], { cwd: dir });
  t.is(none.code, 2);
  t.regex(none.stderr, /matches no file/);
  const missing = await runCheck(t, ['--cassettes', 'target.cassette.json', '--junit', 'missing.xml', '--', join(dir, 'no-such-server')], {
    cwd: dir,
  });
  t.is(missing.code, 2, missing.stdout.toString());
  t.regex(missing.stdout.toString(), /could not run/);
  t.true(readJunit(t, join(dir, 'missing.xml')).cases.some((c) => c.name === 'replay ran to the end'));
  const usage = await runCheck(t, ['--cassettes', 'target.cassette.json'], { cwd: dir });
  t.is(usage.code, 2);
  t.regex(usage.stderr, /name the build to check/);
});
