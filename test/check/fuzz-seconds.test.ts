/**
 * `check --fuzz-seconds N` in CI: after replaying the cassettes, the build is fuzzed from them
 * (mcp-cassette fuzz) and every finding joins check's reports: the summary's table, a JUnit suite,
 * a SARIF result located in the cassette that replays it, and the verdict at --fail-on. The
 * seeded-defect server (test/servers/fuzz-target.ts), and its fixed build, which must come out clean.
 */
import test from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fuzzTargetCommand, recordSeedCassette } from '../helpers/fuzz-target.js';
import { tempDir } from '../helpers/tmp.js';
import { parseSarif, readJunit, runCheck } from './support.js';

/** What the seeded defects come back as (`fuzz/<kind>` or the rule), on which tool. */
const SEEDED = new Set([
  'fuzz/crash echo',
  'fuzz/hang parity',
  'TOOLS-ERR-EXECUTION convert_temperature',
  'fuzz/stderr-panic inspect_json',
  'fuzz/stdout-noise greet',
  'TOOLS-CALL-SHAPE word_count',
]);

/** check's options for `seconds` of fuzzing with seed 1, failing on warnings, quiet. */
const fuzzFor = (seed: string, out: string, seconds = '10'): string[] => [
  ...['--cassettes', seed, '--fuzz-seconds', seconds, '--fuzz-seed', '1', '--fuzz-out', out],
  ...['--fail-on', 'warning', '--quiet'],
];

interface JsonRun {
  verdict: string;
  fuzz?: { seed: number; cases: number; findings: number };
  findings: { kind: string; id: string; name?: string; file: string }[];
}

test('the findings of --fuzz-seconds join every report and fail the check; the fixed build passes', async (t) => {
  const dir = tempDir(t);
  const seed = await recordSeedCassette(t, { era: '2026-07-28', transport: 'stdio', dir });
  const out = join(dir, 'findings');
  const reports = {
    summary: join(dir, 'summary.md'),
    junit: join(dir, 'junit.xml'),
    sarif: join(dir, 'results.sarif'),
    json: join(dir, 'results.json'),
  };
  const r = await runCheck(t, [
    ...fuzzFor(seed, out),
    ...['--summary', reports.summary, '--junit', reports.junit, '--sarif', reports.sarif, '--json', reports.json],
    ...['--', ...fuzzTargetCommand()],
  ]);
  t.is(r.code, 1, r.stderr);
  const run = JSON.parse(readFileSync(reports.json, 'utf8')) as JsonRun;
  t.is(run.verdict, 'fail');
  t.is(run.fuzz?.seed, 1);
  const fuzz = run.findings.filter((f) => f.kind === 'fuzz');
  t.true(fuzz.length > 0, 'the first seeded defects come within a few dozen cases');
  t.is(run.fuzz?.findings, fuzz.length);
  for (const f of fuzz) {
    t.true(SEEDED.has(`${f.id} ${f.name}`), `a seeded defect, not a false finding: ${f.id} ${f.name}`);
    t.true(f.file.startsWith(out) && existsSync(f.file), f.file);
  }
  t.regex(readFileSync(reports.summary, 'utf8'), /<summary>Fuzz findings .*\((\d+)\)<\/summary>/);
  t.regex(readFileSync(reports.summary, 'utf8'), /Fuzzed 10 s \(seed 1, `--fuzz-seed 1` sends the same cases\): \d+ cases/);
  const junit = readJunit(t, reports.junit);
  t.is(junit.cases.filter((c) => c.classname === 'fuzz' && c.failure).length, fuzz.length);
  const sarif = parseSarif(t, readFileSync(reports.sarif, 'utf8'));
  const results = sarif.runs[0]!.results.filter((x) => fuzz.some((f) => x.ruleId === f.id));
  t.is(results.length, fuzz.length);
  for (const x of results) t.true(x.locations[0]!.physicalLocation.artifactLocation.uri.endsWith('.cassette.json'));

  // The findings' cassettes replayed by check: still there on this build (exit 1, each a fuzz
  // finding of the report), gone on the fixed one (exit 0).
  const again = await runCheck(t, [
    '--cassettes',
    join(out, '*.cassette.json'),
    '--quiet',
    '--json',
    reports.json,
    '--',
    ...fuzzTargetCommand(),
  ]);
  t.is(again.code, 1, again.stderr);
  const still = (JSON.parse(readFileSync(reports.json, 'utf8')) as JsonRun).findings.filter((f) => f.kind === 'fuzz');
  t.deepEqual(still.map((f) => `${f.id} ${f.name}`).sort(), fuzz.map((f) => `${f.id} ${f.name}`).sort());
  const gone = await runCheck(t, ['--cassettes', join(out, '*.cassette.json'), '--quiet', '--', ...fuzzTargetCommand({ fixed: true })]);
  t.is(gone.code, 0, gone.stdout.toString() + gone.stderr);

  const fixed = await runCheck(t, [
    ...fuzzFor(seed, join(dir, 'none'), '5'),
    '--json',
    reports.json,
    '--',
    ...fuzzTargetCommand({ fixed: true }),
  ]);
  t.is(fixed.code, 0, fixed.stderr);
  const clean = JSON.parse(readFileSync(reports.json, 'utf8')) as JsonRun;
  t.true((clean.fuzz?.cases ?? 0) > 0);
  t.is(clean.fuzz?.findings, 0);
});

test('--fuzz-seconds: its companions without it, a bad value, and --shard are usage errors named on one line', async (t) => {
  for (const [args, said] of [
    [['--fuzz-seconds', '0'], /--fuzz-seconds must be a positive number of seconds \(got 0\)/],
    [['--fuzz-seed', '3'], /--fuzz-out and --fuzz-seed go with --fuzz-seconds <N>/],
    [['--fuzz-seconds', '5', '--shard', '1/2'], /--fuzz-seconds and --shard do not mix/],
  ] as const) {
    const r = await runCheck(t, ['--cassettes', 'cassettes/examples/example-server.cassette.json', ...args, '--', 'node', 'x.js']);
    t.is(r.code, 2, r.stderr);
    t.regex(r.stderr, said);
    t.is(r.stderr.trim().split('\n').length, 1, r.stderr);
  }
});
