/**
 * `mcp-cassette fuzz` against the seeded-defect server (test/servers/fuzz-target.ts), from a seed
 * cassette the official v2 SDK client recorded through the real proxy: every seeded defect is
 * found within the stated budget, each is written as a minimal cassette, `replay` of that cassette
 * reproduces it against the same build (exit 1) and passes against the build that fixed it
 * (exit 0), and the tool without readOnlyHint is never called.
 */
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fuzzTargetCommand, recordSeedCassette } from '../../helpers/fuzz-target.js';
import { cli, node } from '../../helpers/paths.js';
import { collect, spawnTracked } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';
import { parseSarif, readJunit } from '../../check/support.js';

/** The budget docs/fuzz.md states for the seeded defects: this many cases with seed 1. */
const BUDGET = '400';

interface JsonFinding {
  kind: string;
  rule?: string;
  severity: string;
  method: string;
  tool?: string;
  message: string;
  cassette?: string;
  reproducible: boolean;
  shrink: { attempts: number; cases: number };
}
interface JsonRun {
  seed: number;
  cases: number;
  findings: JsonFinding[];
  skipped: { tool: string; reason: string }[];
}

function run(t: ExecutionContext, args: string[]) {
  return collect(
    spawnTracked(t, node, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GITHUB_STEP_SUMMARY: '' } }),
  );
}

/** What `serve <cassette>` answers a client that sends the cassette's own client frames. */
async function served(t: ExecutionContext, cassette: string): Promise<string> {
  const { sessions } = JSON.parse(readFileSync(cassette, 'utf8')) as {
    sessions: { messages: { direction: string; raw?: string; json?: unknown }[] }[];
  };
  const lines = sessions[0]!.messages.filter((m) => m.direction === 'client-to-server').map((m) => `${m.raw ?? JSON.stringify(m.json)}\n`);
  const child = spawnTracked(t, node, [cli, 'serve', cassette], { stdio: ['pipe', 'pipe', 'pipe'] });
  const done = collect(child);
  child.stdin!.end(lines.join(''));
  return (await done).stdout.toString();
}

/** What each seeded defect must come back as: kind, rule and tool. */
const EXPECTED = [
  { kind: 'crash', tool: 'echo' },
  { kind: 'hang', tool: 'parity' },
  { kind: 'error-misuse', rule: 'TOOLS-ERR-EXECUTION', tool: 'convert_temperature' },
  { kind: 'stderr-panic', tool: 'inspect_json' },
  { kind: 'stdout-noise', tool: 'greet' },
  { kind: 'rule', rule: 'TOOLS-CALL-SHAPE', tool: 'word_count' },
];

for (const era of ['2025-11-25', '2026-07-28'] as const) {
  test(`stdio, ${era}: each seeded defect found within ${BUDGET} cases, shrunk to a cassette whose replay reproduces it, and passes once fixed`, async (t) => {
    const dir = tempDir(t);
    const seed = await recordSeedCassette(t, { era, transport: 'stdio', dir });
    const out = join(dir, 'findings');
    const reports = { json: join(dir, 'fuzz.json'), junit: join(dir, 'fuzz.xml'), sarif: join(dir, 'fuzz.sarif') };
    const r = await run(t, [
      'fuzz',
      seed,
      '--runs',
      BUDGET,
      '--seed',
      '1',
      '--timeout',
      '1000',
      '--out',
      out,
      '--json',
      reports.json,
      '--junit',
      reports.junit,
      '--sarif',
      reports.sarif,
      '--',
      ...fuzzTargetCommand(),
    ]);
    t.is(r.code, 1, r.stderr);
    const report = JSON.parse(readFileSync(reports.json, 'utf8')) as JsonRun;
    t.is(report.seed, 1);
    t.is(report.cases, Number(BUDGET));
    for (const e of EXPECTED) {
      const f = report.findings.find((x) => x.kind === e.kind && x.tool === e.tool && (!e.rule || x.rule === e.rule));
      t.truthy(f, `${e.kind} on ${e.tool}: ${JSON.stringify(report.findings.map((x) => [x.kind, x.rule, x.tool]))}`);
      if (!f) continue;
      t.true(f.reproducible, `${e.kind} reproduced on a fresh server`);
      t.is(f.shrink.cases, 1, `${e.kind}: the minimal session holds its case alone`);
      t.truthy(f.cassette);
    }
    // Nothing else: the rest of the server is correct, so anything more would be a false finding.
    t.is(report.findings.length, EXPECTED.length, JSON.stringify(report.findings.map((x) => [x.kind, x.rule, x.tool, x.message])));
    // The tool without readOnlyHint was never called (it would have crashed the server).
    t.false(report.findings.some((x) => x.tool === 'delete_everything'));
    t.deepEqual(
      report.skipped.map((s) => s.tool),
      ['delete_everything'],
    );
    // Replay of each finding: still there against this build, gone against the fixed one.
    for (const e of EXPECTED) {
      const f = report.findings.find((x) => x.kind === e.kind && x.tool === e.tool && (!e.rule || x.rule === e.rule));
      if (!f?.cassette) continue;
      const same = await run(t, ['replay', f.cassette, '--', ...fuzzTargetCommand()]);
      t.is(same.code, 1, `${e.kind}: ${same.stdout.toString()}${same.stderr}`);
      t.regex(same.stdout.toString(), /fuzz finding reproduced: /);
      if (era !== '2026-07-28') continue; // against the fixed build once, in one era
      const fixed = await run(t, ['replay', f.cassette, '--', ...fuzzTargetCommand({ fixed: true })]);
      t.is(fixed.code, 0, `${e.kind} fixed: ${fixed.stdout.toString()}${fixed.stderr}`);
      t.regex(fixed.stdout.toString(), /fuzz finding not reproduced \(fixed\): /);
    }
    // `serve` mocks a finding's cassette: the -32603 comes back to a client that sends the same.
    const misuse = report.findings.find((x) => x.kind === 'error-misuse')!.cassette!;
    t.regex(await served(t, misuse), /"error":\{"code":-32603/);
    // The reports: JUnit has a failing case per finding, SARIF is valid and locates each in its cassette.
    const junit = readJunit(t, reports.junit);
    t.is(junit.failures, report.findings.length);
    const sarif = parseSarif(t, readFileSync(reports.sarif, 'utf8'));
    t.is(sarif.runs[0]!.results.length, report.findings.length);
  });
}

/** A cassette with what differs from run to run taken out: times, durations, the pid, and how
 * the frames of the server's stdout and stderr interleave (two pipes read as their bytes arrive);
 * each channel's frames stay in their order. */
function withoutTiming(path: string): unknown {
  const drop = new Set(['t', 'endT', 'startedAt', 'endedAt', 'durationMs', 'pid', 'seq']);
  const c = JSON.parse(readFileSync(path, 'utf8'), (k, v: unknown) => (drop.has(k) ? undefined : v)) as {
    sessions: { messages: { channel: string }[] }[];
  };
  for (const s of c.sessions) {
    const order = ['stdin', 'stdout', 'stderr', 'http'];
    s.messages = order.flatMap((ch) => s.messages.filter((m) => m.channel === ch));
  }
  return c;
}

test('the same seed twice: the same cases, the same findings, the same minimal cassettes byte for byte apart from timing', async (t) => {
  const dir = tempDir(t);
  const seed = await recordSeedCassette(t, { era: '2025-11-25', transport: 'stdio', dir });
  const runs: { report: JsonRun; cassettes: Map<string, unknown> }[] = [];
  for (const n of [1, 2]) {
    const out = join(dir, `findings-${n}`);
    const json = join(dir, `fuzz-${n}.json`);
    const r = await run(t, [
      'fuzz',
      seed,
      '--runs',
      '150',
      '--seed',
      '7',
      '--timeout',
      '1000',
      '--out',
      out,
      '--json',
      json,
      '--',
      ...fuzzTargetCommand(),
    ]);
    t.is(r.code, 1, r.stderr);
    const report = JSON.parse(readFileSync(json, 'utf8')) as JsonRun;
    const cassettes = new Map(report.findings.filter((f) => f.cassette).map((f) => [basename(f.cassette!), withoutTiming(f.cassette!)]));
    runs.push({ report, cassettes });
  }
  const [a, b] = runs as [(typeof runs)[0], (typeof runs)[0]];
  const shape = (r: JsonRun) =>
    r.findings.map((f) => ({ ...f, cassette: f.cassette && basename(f.cassette), shrink: { ...f.shrink, ms: 0 } }));
  t.true(a.report.findings.length > 0);
  t.deepEqual(shape(b.report), shape(a.report));
  t.deepEqual([...b.cassettes.keys()], [...a.cassettes.keys()]);
  for (const [name, cassette] of a.cassettes) t.deepEqual(b.cassettes.get(name), cassette, name);
});

test('--allow-side-effects: the tool without readOnlyHint is called too, and its crash is found', async (t) => {
  const dir = tempDir(t);
  const seed = await recordSeedCassette(t, { era: '2026-07-28', transport: 'stdio', dir });
  const json = join(dir, 'fuzz.json');
  const r = await run(t, [
    ...['fuzz', seed, '--allow-side-effects', '--runs', BUDGET, '--seed', '1', '--timeout', '1000'],
    ...['--out', join(dir, 'findings'), '--json', json, '--', ...fuzzTargetCommand()],
  ]);
  t.is(r.code, 1, r.stderr);
  const report = JSON.parse(readFileSync(json, 'utf8')) as JsonRun;
  t.deepEqual(report.skipped, []);
  t.truthy(report.findings.find((f) => f.kind === 'crash' && f.tool === 'delete_everything'));
});
