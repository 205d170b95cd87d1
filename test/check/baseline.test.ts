import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, node } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { recordTargetCassette } from '../replay/target-client.js';
import { assertRegions, build, readJunit, readSarif, runCheck } from './support.js';
import { parseExpectedFailures } from '../../lib/expected-failures.js';
import { removeDir } from '../helpers/tmp.js';

// Expected-failures files (the YAML `probe` already reads, with `validate:` and `replay:`
// sections): listed findings are expected, entries that no longer occur are stale and fail.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-baseline-'));
test.before(async () => {
  await recordTargetCassette(join(dir, 'target.cassette.json'));
});
test.after.always(() => removeDir(dir));

const baseline = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return name;
};

test('listed breaking changes are expected: the seeded build passes, and each is reported as expected', async (t) => {
  const file = baseline('removed.yml', 'replay:\n  stamp: [tool-removed, success-became-error]\n');
  const r = await runCheck(
    t,
    [
      '--cassettes',
      'target.cassette.json',
      '--expected-failures',
      file,
      '--sarif',
      'removed.sarif',
      '--summary',
      'removed.md',
      '--',
      ...build('tool-removed'),
    ],
    { cwd: dir },
  );
  t.is(r.code, 0, r.stdout.toString() + r.stderr);
  const results = readSarif(t, join(dir, 'removed.sarif'));
  const breaking = results.filter((x) => x.ruleId.startsWith('replay/'));
  t.true(breaking.length >= 2);
  t.true(
    breaking.every((x) => Array.isArray(x.suppressions) && x.suppressions.length === 1),
    'expected findings carry a suppression',
  );
  t.regex(readFileSync(join(dir, 'removed.md'), 'utf8'), /Expected \(listed in the baseline\) \(\d+\)/);
});

test('the same baseline against the fixed build: its entries are stale, exit 1, located in the baseline file', async (t) => {
  const file = baseline('stale.yml', '# known\nreplay:\n  stamp: [tool-removed]\nvalidate:\n  - STDIO-STDOUT-CLEAN\n');
  const r = await runCheck(
    t,
    ['--cassettes', 'target.cassette.json', '--expected-failures', file, '--sarif', 'stale.sarif', '--', ...build()],
    { cwd: dir },
  );
  t.is(r.code, 1, r.stdout.toString() + r.stderr);
  const stale = readSarif(t, join(dir, 'stale.sarif')).filter((x) => x.ruleId === 'baseline/stale');
  t.deepEqual(
    stale.map((x) => [x.locations[0]!.physicalLocation.artifactLocation.uri, x.locations[0]!.physicalLocation.region.startLine]).sort(),
    [
      ['stale.yml', 3],
      ['stale.yml', 5],
    ],
  );
  t.regex(r.stdout.toString(), /STALE .*tool-removed/);
});

test('a listed rule makes a new violation expected; without the baseline the same run fails', async (t) => {
  const file = baseline('noise.yml', 'validate:\n  - STDIO-STDOUT-CLEAN\n');
  const args = ['--cassettes', 'target.cassette.json', '--sarif', 'noise.sarif', '--', ...build('stdout-noise')];
  const without = await runCheck(t, args, { cwd: dir });
  t.is(without.code, 1);
  const withBaseline = await runCheck(t, ['--expected-failures', file, ...args], { cwd: dir });
  t.is(withBaseline.code, 0, withBaseline.stdout.toString());
  const results = readSarif(t, join(dir, 'noise.sarif'));
  assertRegions(t, results, dir);
  t.true(results.filter((x) => x.ruleId === 'STDIO-STDOUT-CLEAN').every((x) => x.suppressions !== undefined));
});

test('validate --expected-failures: listed violations become expected notes, a stale entry an error', async (t) => {
  const cassette = join(dir, 'target.cassette.json');
  const validate = async (...args: string[]) => {
    const r = await collect(spawnTracked(t, node, [cli, 'validate', '--format', 'json', '--fail-on', 'warning', ...args, cassette]));
    const report = JSON.parse(r.stdout.toString()) as {
      violations: { rule: string; path: string; severity: string; message: string; seq: number }[];
    };
    return { code: r.code, violations: report.violations };
  };
  const plain = await validate();
  t.is(plain.code, 1, 'the real recording has warnings');
  const listed = plain.violations.find((v) => v.severity === 'warning')!;
  const expected = await validate(
    '--expected-failures',
    join(dir, baseline('validate.yml', `validate:\n  - ${listed.rule}:${listed.path}\n`)),
  );
  const same = expected.violations.filter((v) => v.rule === listed.rule && v.path === listed.path);
  t.true(same.length > 0 && same.every((v) => v.severity === 'info' && v.message.startsWith('expected failure')));
  t.is(expected.code, plain.violations.some((v) => v.severity !== 'info' && !(v.rule === listed.rule && v.path === listed.path)) ? 1 : 0);
  const stale = await validate(
    '--expected-failures',
    join(dir, baseline('stale-validate.yml', `validate:\n  - ${listed.rule}\n  - ENV-NO-BATCH\n`)),
  );
  t.deepEqual(
    stale.violations.filter((v) => v.message.startsWith('stale expected failure')).map((v) => [v.rule, v.severity, v.seq]),
    [['ENV-NO-BATCH', 'error', 3]],
  );
  t.is(stale.code, 1, 'the stale entry fails');
});

test('an expected-failures file that is not the documented shape is refused with what to write', (t) => {
  t.throws(() => parseExpectedFailures('validate: TOOLS-NAME-FORMAT\n', 'x.yml'), { message: /`validate:` must be a list/ });
  t.throws(() => parseExpectedFailures('validate:\n  - RULE:no-slash\n', 'x.yml'), { message: /JSON Pointer/ });
  t.throws(() => parseExpectedFailures('replay:\n  - tool-removed\n', 'x.yml'), { message: /map a tool/ });
  const ok = parseExpectedFailures('probe:\n  - unknown-tool\nvalidate:\n  - A-B:/x/0\nreplay:\n  "*": description-changed\n', 'x.yml');
  t.deepEqual(ok.validate, [{ rule: 'A-B', path: '/x/0', text: 'A-B:/x/0' }]);
  t.deepEqual(ok.replay, [{ tool: '*', kind: 'description-changed', text: '*: description-changed' }]);
});

test('--probe: every judged probe is a JUnit case, a failed one fails the check unless its probe is listed', async (t) => {
  const r = await runCheck(
    t,
    ['--cassettes', 'target.cassette.json', '--probe', '--junit', 'probe.xml', '--sarif', 'probe.sarif', '--', ...build()],
    { cwd: dir },
  );
  const junit = readJunit(t, join(dir, 'probe.xml'));
  const probes = junit.cases.filter((c) => c.classname.startsWith('probe '));
  t.true(probes.length >= 5, `the probes ran (${probes.length})`);
  const failed = probes.filter((c) => c.failure).map((c) => c.classname.slice('probe '.length));
  t.true(failed.length > 0, 'the SDK server fails some probes');
  t.is(r.code, 1, r.stdout.toString());
  const results = readSarif(t, join(dir, 'probe.sarif'));
  t.true(results.some((x) => x.properties.kind === 'probe' && x.level === 'error'));
  const file = baseline('probes.yml', `probe:\n${[...new Set(failed)].map((p) => `  - ${p}\n`).join('')}`);
  const listed = await runCheck(
    t,
    ['--cassettes', 'target.cassette.json', '--probe', '--expected-failures', file, '--quiet', '--', ...build()],
    { cwd: dir },
  );
  t.is(listed.code, 0, listed.stderr);
});
