import test from 'ava';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeParts, type PartReport } from '../../check/merge-reports.js';
import { parseShard, shardPositions } from '../../check/shard.js';
import type { CheckRun, Finding } from '../../check/types.js';
import { cli, node } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { removeDir } from '../helpers/tmp.js';
import { recordTargetCassette } from '../replay/target-client.js';
import { build, cleanEnv, parseSarif, readJunit, runCheck } from './support.js';

/**
 * `check --shard K/N` and `merge-reports`: three parts of a check, merged, are the unsharded run
 * (the same cases, verdicts, findings, stale baseline entries and exit status), with SARIF valid
 * against the official 2.1.0 schema and JUnit read back by a real XML parser. Real check processes
 * against the replay target's seeded `tool-removed` build.
 */
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-shards-'));
const CASSETTES = ['a.cassette.json', 'b.cassette.json', join('sub', 'c.cassette.json'), join('sub', 'd.cassette.json')];
// One entry that every part's cassettes have (tool-removed), and one no cassette has (stale).
const BASELINE = 'replay:\n  stamp: [tool-removed]\nvalidate:\n  - STDIO-STDOUT-CLEAN\n';
test.before(async () => {
  await recordTargetCassette(join(dir, 'a.cassette.json'));
  mkdirSync(join(dir, 'sub'));
  for (const c of CASSETTES.slice(1)) cpSync(join(dir, 'a.cassette.json'), join(dir, c));
  writeFileSync(join(dir, 'expected.yml'), BASELINE);
});
test.after.always(() => removeDir(dir));

const reports = (out: string): string[] => [
  '--json',
  join(out, 'results.json'),
  '--summary',
  join(out, 'summary.md'),
  '--junit',
  join(out, 'junit.xml'),
  '--sarif',
  join(out, 'results.sarif'),
];
const common = ['--cassettes', '**/*.cassette.json', '--expected-failures', 'expected.yml', '--quiet'];
const mergeReports = (t: import('ava').ExecutionContext, args: string[]) =>
  collect(spawnTracked(t, node, [cli, 'merge-reports', ...args], { cwd: dir, env: cleanEnv() }));

/** What makes two JUnit reports the same run: every case, its verdict and its failure. */
function cases(t: import('ava').ExecutionContext, file: string) {
  const j = readJunit(t, file);
  t.is(j.tests, j.cases.length, 'tests counts every case');
  t.is(j.failures, j.cases.filter((c) => c.failure).length, 'failures counts the failed cases');
  return {
    tests: j.tests,
    failures: j.failures,
    cases: j.cases.map((c) => ({ classname: c.classname, name: c.name, failure: c.failure?.message ?? null })),
  };
}

test('3 parts and a merge equal 1 unsharded run: cases, verdicts, findings, stale entries, exit code', async (t) => {
  const full = await runCheck(t, [...common, ...reports('full'), '--', ...build('tool-removed')], { cwd: dir });
  t.is(full.code, 1, full.stderr);
  const parts = await Promise.all(
    [1, 2, 3].map((k) =>
      runCheck(t, [...common, '--shard', `${k}/3`, ...reports(`part-${k}`), '--', ...build('tool-removed')], { cwd: dir }),
    ),
  );
  const runs = [1, 2, 3].map((k) => JSON.parse(readFileSync(join(dir, `part-${k}`, 'results.json'), 'utf8')) as CheckRun);
  t.deepEqual(
    runs.map((r) => r.cassettes.length),
    [2, 1, 1],
    'four cassettes over three parts',
  );
  t.true(
    runs.every((r) => r.findings.every((f) => f.kind !== 'stale')),
    'a part lists no stale entry: it cannot know',
  );
  t.true(
    parts.every((p) => p.code === 1),
    'each part fails on its own breaking change',
  );

  const merged = await mergeReports(t, ['part-3', 'part-1', 'part-2', '--out', 'merged']);
  t.is(merged.code, full.code, merged.stderr);
  const read = (d: string, f: string) => readFileSync(join(dir, d, f), 'utf8');
  t.is(read('merged', 'summary.md'), read('full', 'summary.md'), 'the same Markdown summary');
  const sarif = parseSarif(t, read('merged', 'results.sarif'));
  t.deepEqual(sarif, parseSarif(t, read('full', 'results.sarif')), 'the same SARIF (valid against the 2.1.0 schema)');
  t.true(
    sarif.runs[0]!.results.some((r) => r.ruleId === 'baseline/stale'),
    'the stale entry, judged over every part',
  );
  t.deepEqual(cases(t, join(dir, 'merged', 'junit.xml')), cases(t, join(dir, 'full', 'junit.xml')), 'the same JUnit cases');
  // Times differ between runs, and so does the temporary cassette the recording proxy wrote the
  // replay's traffic into (named in the replay's target command).
  const strip = (r: CheckRun & Record<string, unknown>) => ({
    ...r,
    startedAt: undefined,
    durationMs: undefined,
    cassettes: r.cassettes.map((c) => ({
      ...c,
      replay: {
        ...c.replay,
        startedAt: undefined,
        durationMs: undefined,
        target: undefined,
        sessions: c.replay.sessions.map((s) => s.interactions.map((i) => [i.seq, i.method, i.outcome, i.differences])),
      },
      interactions: c.interactions.map((i) => ({ ...i, durationMs: undefined })),
    })),
  });
  const mergedRun = JSON.parse(read('merged', 'results.json')) as CheckRun & Record<string, unknown>;
  t.deepEqual(strip(mergedRun), strip(JSON.parse(read('full', 'results.json'))), 'the same JSON report, times aside');
  t.is(mergedRun.verdict, 'fail');
  t.is(mergedRun.shard, undefined);
});

test('merge-reports names a missing part, a part given twice, and parts of another run: exit 2, one line', async (t) => {
  for (const k of [1, 2]) {
    const r = await runCheck(
      t,
      ['--cassettes', '*.cassette.json', '--shard', `${k}/2`, '--json', `two-${k}/results.json`, '--quiet', '--', ...build()],
      { cwd: dir },
    );
    t.is(r.code, 0, r.stderr);
  }
  const missing = await mergeReports(t, ['two-1', '--out', 'm1']);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /part 2\/2 is missing: the run has 2 parts and 1 was given/);
  cpSync(join(dir, 'two-1'), join(dir, 'two-1-again'), { recursive: true });
  const twice = await mergeReports(t, ['two-1', 'two-2', 'two-1-again', '--out', 'm2']);
  t.is(twice.code, 2);
  t.regex(twice.stderr, /part 1\/2 is given twice, in two-1\/results\.json and two-1-again\/results\.json/);
  t.is(twice.stderr.trim().split('\n').length, 1, twice.stderr);
  mkdirSync(join(dir, 'other-2'));
  const other = JSON.parse(readFileSync(join(dir, 'two-2', 'results.json'), 'utf8')) as CheckRun;
  writeFileSync(join(dir, 'other-2', 'results.json'), JSON.stringify({ ...other, target: 'node another-build.js' }));
  const foreign = await mergeReports(t, ['two-1', 'other-2', '--out', 'm4']);
  t.is(foreign.code, 2);
  t.regex(
    foreign.stderr,
    /other-2\/results\.json is not a part of the same run as two-1\/results\.json: its target is "node another-build\.js"/,
  );
  const noOut = await mergeReports(t, ['two-1', 'two-2']);
  t.is(noOut.code, 2);
  t.regex(noOut.stderr, /needs --out <dir>/);
  const ok = await mergeReports(t, ['two-1', 'two-2', '--out', 'm3', '--quiet']);
  t.is(ok.code, 0, ok.stderr);
  t.is(ok.stdout.toString(), '');
});

test('--shard K/N: usage errors exit 2 naming the fix', async (t) => {
  for (const bad of ['0/3', '4/3', '2', 'a/b']) {
    const r = await runCheck(t, ['--cassettes', '*.cassette.json', '--shard', bad, '--', ...build()], { cwd: dir });
    t.is(r.code, 2);
    t.regex(r.stderr, /--shard must be K\/N, .* e\.g\. --shard 2\/3/);
  }
});

test('the split depends on the paths alone: each cassette in exactly one part, whatever the order they are listed in', (t) => {
  const paths = Array.from({ length: 23 }, (_, i) => join('/repo', 'cassettes', `${String.fromCharCode(97 + (i % 7))}${i}.cassette.json`));
  const reversed = [...paths].reverse();
  for (const total of [1, 2, 3, 5, 30]) {
    const place = (list: string[]) => {
      const of = new Map<string, number>();
      for (let k = 1; k <= total; k++)
        for (const i of shardPositions(list, parseShard(`${k}/${total}`), '/repo')) of.set(list[i]!, (of.get(list[i]!) ?? 0) * 10 + k);
      return of;
    };
    const a = place(paths);
    const b = place(reversed);
    t.is(a.size, paths.length);
    for (const p of paths) {
      t.true(a.get(p)! >= 1 && a.get(p)! <= total, `${p} is in exactly one of ${total} parts`);
      t.is(a.get(p), b.get(p), 'the same part whatever the order');
    }
  }
});

/** A finding of a stale entry, as a part hands it on. */
const staleFinding = (print: string): Finding => ({
  kind: 'stale',
  id: print,
  severity: 'error',
  expected: false,
  message: `stale ${print}`,
  file: '/r/base.yml',
  line: 1,
  fingerprint: print,
});
function part(index: number, stale: string[], seen: string[]): PartReport {
  const report = {
    format: 'mcp-cassette-check' as const,
    version: 1 as const,
    root: '/r',
    target: 'node s.js',
    expectedFailures: 'base.yml',
    failOn: 'error' as const,
    startedAt: new Date(0).toISOString(),
    durationMs: 1,
    cassettes: [],
    findings: [],
    errors: [],
    verdict: 'pass' as const,
    counts: {} as CheckRun['counts'],
    shard: {
      index,
      total: 2,
      of: 0,
      positions: [],
      findings: [],
      stale: stale.map((s, rank) => ({ rank, finding: staleFinding(s) })),
      seen,
    },
  };
  return { given: `p${index}`, file: `p${index}/results.json`, report };
}

test('a baseline entry is stale when no part saw it: one part that saw it is enough', (t) => {
  // `a`: no part saw it. `b`: part 2 saw it. `c` (a probe entry): part 1 saw it pass, no part saw it fail.
  const run = mergeParts([part(1, ['a', 'b', 'c'], []), part(2, ['a'], ['b'])], '/r');
  t.deepEqual(
    run.findings.map((f) => f.fingerprint),
    ['a', 'c'],
  );
  t.is(run.verdict, 'fail');
  t.is(run.counts.stale, 2);
});
