import test from 'ava';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { cli, node } from '../../helpers/paths.js';
import { collect, spawnTracked } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';
import { applyBaseline, parseBaseline } from '../../../validators/probes/baseline.js';
import { PROBES } from '../../../validators/probes/index.js';
import { probe, probeCommand, type ProbeArgs } from '../../../validators/probes/probe-run.js';
import { renderProbeRun, toValidationRun } from '../../../validators/probes/report.js';
import { probeServer, probeServerCassette, sharedTempDir } from './helpers.js';

const ids = PROBES.map((p) => p.id);
let cassettePath: Promise<string> | undefined;
const shared = sharedTempDir();
test.after.always(shared.remove);
const cassette = (_t: unknown) => (cassettePath ??= probeServerCassette(shared.dir));
const defective = (defect: string) => [node, probeServer, 'stdio', '--defect', defect];

function args(c: string, over: Partial<ProbeArgs>): ProbeArgs {
  return {
    cassette: c,
    command: [],
    allowSideEffects: true,
    format: 'text',
    header: [],
    probe: ['unknown-tool', 'invalid-arguments'],
    timeout: 5000,
    ...over,
  };
}

test('the expected-failures YAML: a listed failure is expected, a listed probe that passes is stale', async (t) => {
  const entries = parseBaseline('probe:\n  - unknown-tool\n  - invalid-arguments:TOOLS-VALIDATE-INPUTS\n', 'b.yml', ids);
  const run = await probe(args(await cassette(t), { command: defective('unknown-tool-iserror') }));
  const { stale } = applyBaseline(run.results, entries);
  t.is(run.results.find((r) => r.rule === 'TOOLS-ERR-PROTOCOL')?.baseline, 'expected');
  t.deepEqual(
    stale.map((e) => e.text),
    ['invalid-arguments:TOOLS-VALIDATE-INPUTS'],
  );
  t.is(run.results.find((r) => r.rule === 'TOOLS-VALIDATE-INPUTS')?.baseline, 'stale');
  t.is(run.results.find((r) => r.rule === 'TOOLS-ERR-EXECUTION')?.baseline, undefined, 'a per-rule entry covers only that rule');
});

test('the expected-failures YAML is checked: unknown probes, mappings and contradictions are errors', (t) => {
  t.throws(() => parseBaseline('probe:\n  - no-such-probe\n', 'b.yml', ids), { message: /unknown probe `no-such-probe`/ });
  t.throws(() => parseBaseline('probe:\n  - mrtr-state: MRTR-STATE-REPLAY\n', 'b.yml', ids), {
    message: /without a space after the colon/,
  });
  t.throws(() => parseBaseline('probe:\n  - mrtr-state\n  - mrtr-state:MRTR-STATE-REPLAY\n', 'b.yml', ids), {
    message: /both whole and per rule/,
  });
  t.throws(() => parseBaseline('probe: [unclosed\n', 'b.yml', ids), { message: /not valid YAML/ });
  t.deepEqual(parseBaseline('', 'b.yml', ids), []);
});

test('--fail-on counts only new failures and stale entries, like validate', async (t) => {
  const dir = tempDir(t);
  const c = await cassette(t);
  const out = join(dir, 'report.txt');
  const failing = args(c, { command: defective('unknown-tool-iserror'), failOn: 'error', output: out });
  t.is(await probeCommand(failing), 1, 'a new failure');
  const expected = join(dir, 'expected.yml');
  writeFileSync(expected, 'probe:\n  - unknown-tool\n');
  t.is(await probeCommand({ ...failing, expectedFailures: expected }), 0, 'the same failure, listed');
  t.is(await probeCommand({ ...failing, command: [node, probeServer, 'stdio'], expectedFailures: expected }), 1, 'listed but fixed: stale');
  t.is(await probeCommand({ ...failing, failOn: undefined }), 0, 'no --fail-on, exit 0');
});

test("reports come in validate's formats: json (with every probe), junit, sarif and github", async (t) => {
  const run = await probe(args(await cassette(t), { command: defective('unknown-tool-iserror') }));
  const json = JSON.parse(renderProbeRun('json', run)) as {
    violations: { rule: string; severity: string }[];
    probes: unknown[];
    counts: { fail: number };
  };
  t.deepEqual(
    json.violations.map((v) => [v.rule, v.severity]),
    [['TOOLS-ERR-PROTOCOL', 'error']],
  );
  t.is(json.probes.length, run.results.length);
  t.is(json.counts.fail, 1);
  const sarif = JSON.parse(renderProbeRun('sarif', run)) as {
    runs: { results: { ruleId: string; message: { text: string } }[]; tool: { driver: { rules: { id: string }[] } } }[];
  };
  t.deepEqual(
    sarif.runs[0]!.results.map((r) => r.ruleId),
    ['TOOLS-ERR-PROTOCOL'],
  );
  t.regex(sarif.runs[0]!.results[0]!.message.text, /Sent: .*no-such-tool.*Got: .*isError/);
  const junit = new XMLParser({ ignoreAttributes: false }).parse(renderProbeRun('junit', run)) as { testsuites: { '@_failures': string } };
  t.is(junit.testsuites['@_failures'], '1');
  // A probe's verdict has no JSON Pointer: the probe and its number, then the colon, no gap.
  const failure = /<failure [^>]*>([^<]*)<\/failure>/.exec(renderProbeRun('junit', run))?.[1];
  t.regex(failure ?? '', /^session unknown-tool #\d+: probe unknown-tool failed: /);
  t.regex(renderProbeRun('github', run), /^::error file=.*title=TOOLS-ERR-PROTOCOL::probe unknown-tool failed/m);
  t.regex(renderProbeRun('text', run), /FAIL error\s+unknown-tool\s+TOOLS-ERR-PROTOCOL/);
  t.is(toValidationRun(run).violations.length, 1);
});

test('a server that never answers times out cleanly: inconclusive, exit 2, no process left behind', async (t) => {
  const marker = `probe-silent-${process.pid}-${Date.now()}`;
  const silent = [node, '-e', `/*${marker}*/ process.stdin.resume(); setInterval(() => {}, 1 << 30)`];
  // No wall-clock bound: a probe that ignored --timeout would wait forever on this server, and
  // the test's own timeout fails it; the reason says which deadline ended each probe.
  const run = await probe(args(await cassette(t), { command: silent, timeout: 300, probe: ['unsupported-version', 'unknown-tool'] }));
  t.true(run.results.every((r) => r.outcome === 'inconclusive' && /no answer within 300 ms/.test(r.reason)));
  t.is(
    await probeCommand(
      args(await cassette(t), { command: silent, timeout: 300, probe: ['unknown-tool'], output: join(tempDir(t), 'r.txt') }),
    ),
    2,
  );
  const alive = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(marker);
      } catch {
        return false;
      }
    });
  t.deepEqual(alive, [], 'every spawned server was ended');
});

test('the CLI: probe <cassette> -- <command> with --format json and --fail-on', async (t) => {
  const c = await cassette(t);
  const child = spawnTracked(t, node, [
    cli,
    'probe',
    c,
    '--format',
    'json',
    '--fail-on',
    'error',
    '--allow-side-effects',
    '--probe',
    'unknown-tool',
    '--',
    ...defective('unknown-tool-iserror'),
  ]);
  child.stdin!.end();
  const done = await collect(child);
  t.is(done.code, 1, done.stderr);
  t.is((JSON.parse(done.stdout.toString('utf8')) as { violations: { rule: string }[] }).violations[0]!.rule, 'TOOLS-ERR-PROTOCOL');
  const usage = spawnTracked(t, node, [cli, 'probe', c]);
  usage.stdin!.end();
  const u = await collect(usage);
  t.is(u.code, 2);
  t.regex(u.stderr, /name the server to probe/);
});
