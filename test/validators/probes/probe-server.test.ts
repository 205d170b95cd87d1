import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { node } from '../../helpers/paths.js';
import { probe, type ProbeArgs } from '../../../validators/probes/probe-run.js';
import type { ProbeResult } from '../../../validators/probes/types.js';
import { probeServer, probeServerCassette, sharedTempDir, startHttp } from './helpers.js';

const TOKEN = 'probe-test-token';

function args(cassette: string, over: Partial<ProbeArgs>): ProbeArgs {
  return { cassette, command: [], allowSideEffects: true, format: 'text', header: [], probe: [], timeout: 5000, eofGrace: 1500, ...over };
}

const failing = (results: ProbeResult[]) => [...new Set(results.filter((r) => r.outcome === 'fail').map((r) => r.rule))].sort();
const passing = (results: ProbeResult[]) => [...new Set(results.filter((r) => r.outcome === 'pass').map((r) => r.rule))].sort();
const show = (results: ProbeResult[]) =>
  results
    .filter((r) => r.outcome !== 'pass')
    .map((r) => `${r.outcome} ${r.probe} ${r.rule}: ${r.reason}`)
    .join('\n');

let cassettePath: Promise<string> | undefined;
const shared = sharedTempDir();
test.after.always(shared.remove);
function cassette(_t: unknown): Promise<string> {
  // One recorded conversation with the correct server serves every test in this file.
  cassettePath ??= probeServerCassette(shared.dir);
  return cassettePath;
}

function httpServer(t: Parameters<typeof startHttp>[0], defects: string[] = []): Promise<string> {
  return startHttp(t, [probeServer, 'http', '0', '--token', TOKEN, ...defects.flatMap((d) => ['--defect', d])]);
}

test('the correct server passes every applicable probe over stdio', async (t) => {
  const run = await probe(args(await cassette(t), { command: [node, probeServer, 'stdio'] }));
  t.deepEqual(failing(run.results), [], show(run.results));
  t.false(
    run.results.some((r) => r.outcome === 'inconclusive' || r.outcome === 'skipped'),
    show(run.results),
  );
  t.deepEqual(passing(run.results), [
    'CAP-UNDECLARED-32601',
    'ENV-INFO-NOEFFECT',
    'MRTR-ANY-INSTANCE',
    'MRTR-STATE-INTEGRITY',
    'MRTR-STATE-REPLAY',
    'STATE-LIST-INVARIANT',
    'STDIO-EOF-EXIT',
    'TOOLS-ERR-EXECUTION',
    'TOOLS-ERR-PROTOCOL',
    'TOOLS-VALIDATE-INPUTS',
    'VER-INIT-ERR-NAMES',
    'VER-META-MISSING-32602',
    'VER-MISSING-CAP-32021',
    'VER-NO-CAP-INFERENCE',
    'VER-UNSUPPORTED-32022',
  ]);
});

test('the correct server passes every applicable probe over Streamable HTTP, authorization included', async (t) => {
  const url = await httpServer(t);
  const run = await probe(args(await cassette(t), { url, header: [`Authorization: Bearer ${TOKEN}`] }));
  t.deepEqual(failing(run.results), [], show(run.results));
  t.false(
    run.results.some((r) => r.outcome === 'inconclusive' || r.outcome === 'skipped' || r.outcome === 'not-applicable'),
    show(run.results),
  );
  t.deepEqual(passing(run.results), [
    'AUTH-401',
    'AUTH-PRM-LOCATION',
    'ENV-INFO-NOEFFECT',
    'HTTP-404-METHOD',
    'HTTP-405-GET-DELETE',
    'HTTP-HDR-VALIDATE',
    'HTTP-ORIGIN',
    'HTTP-PV-ABSENT',
    'HTTP-PV-UNSUPPORTED',
    'MRTR-ANY-INSTANCE',
    'MRTR-STATE-INTEGRITY',
    'MRTR-STATE-REPLAY',
    'STATE-LIST-INVARIANT',
    'TOOLS-ERR-EXECUTION',
    'TOOLS-ERR-PROTOCOL',
    'TOOLS-VALIDATE-INPUTS',
    'VER-INIT-ERR-NAMES',
    'VER-META-MISSING-32602',
    'VER-MISSING-CAP-32021',
    'VER-NO-CAP-INFERENCE',
    'VER-UNSUPPORTED-32022',
  ]);
});

/** Each seeded defect and the only rules (and probe) it may fail. */
const HTTP_DEFECTS: [string, string, string[]][] = [
  ['serve-unsupported-version', 'unsupported-version', ['HTTP-PV-UNSUPPORTED', 'VER-UNSUPPORTED-32022']],
  ['accept-missing-version', 'missing-protocol-version', ['VER-META-MISSING-32602']],
  ['accept-missing-capabilities', 'missing-client-capabilities', ['VER-META-MISSING-32602']],
  ['ignore-missing-capability', 'missing-capability', ['VER-MISSING-CAP-32021']],
  ['infer-capabilities', 'missing-capability', ['VER-NO-CAP-INFERENCE']],
  ['unknown-tool-iserror', 'unknown-tool', ['TOOLS-ERR-PROTOCOL']],
  ['no-input-validation', 'invalid-arguments', ['TOOLS-ERR-EXECUTION', 'TOOLS-VALIDATE-INPUTS']],
  ['unsigned-state', 'mrtr-state', ['MRTR-STATE-INTEGRITY']],
  ['unbound-state', 'mrtr-state', ['MRTR-STATE-REPLAY']],
  ['state-affinity', 'mrtr-state', ['MRTR-ANY-INSTANCE']],
  ['list-varies', 'list-invariant', ['STATE-LIST-INVARIANT']],
  ['clientinfo-varies', 'client-info', ['ENV-INFO-NOEFFECT']],
  ['unknown-method-200', 'unknown-method', ['HTTP-404-METHOD']],
  ['init-no-versions', 'legacy-initialize', ['VER-INIT-ERR-NAMES']],
  ['no-header-check', 'header-mismatch', ['HTTP-HDR-VALIDATE']],
  ['absent-pv-ok', 'header-absent', ['HTTP-PV-ABSENT']],
  ['no-origin-check', 'foreign-origin', ['HTTP-ORIGIN']],
  ['allow-get', 'legacy-initialize', ['HTTP-405-GET-DELETE']],
  ['accept-any-token', 'authorization', ['AUTH-401']],
  ['no-resource-metadata', 'authorization', ['AUTH-PRM-LOCATION']],
];

for (const [defect, probeId, rules] of HTTP_DEFECTS) {
  test(`HTTP server seeded with ${defect} fails exactly ${probeId} (${rules.join(', ')})`, async (t) => {
    const url = await httpServer(t, [defect]);
    const run = await probe(args(await cassette(t), { url, header: [`Authorization: Bearer ${TOKEN}`] }));
    t.deepEqual(failing(run.results), rules, show(run.results));
    t.deepEqual([...new Set(run.results.filter((r) => r.outcome === 'fail').map((r) => r.probe))], [probeId]);
    const f = run.results.find((r) => r.outcome === 'fail')!;
    t.truthy(f.sent, 'a failure says what was sent');
    t.truthy(f.received, 'and what came back');
  });
}

const STDIO_DEFECTS: [string, string, string[]][] = [
  ['ignore-eof', 'stdin-eof', ['STDIO-EOF-EXIT']],
  ['unknown-method-200', 'unknown-method', ['CAP-UNDECLARED-32601']],
  // A fresh process per connection: state kept in one process is lost on the next.
  ['state-affinity', 'mrtr-state', ['MRTR-ANY-INSTANCE']],
  ['infer-capabilities', 'missing-capability', ['VER-NO-CAP-INFERENCE']],
];

for (const [defect, probeId, rules] of STDIO_DEFECTS) {
  test(`stdio server seeded with ${defect} fails exactly ${probeId} (${rules.join(', ')})`, async (t) => {
    const run = await probe(args(await cassette(t), { command: [node, probeServer, 'stdio', '--defect', defect] }));
    t.deepEqual(failing(run.results), rules, show(run.results));
    t.deepEqual([...new Set(run.results.filter((r) => r.outcome === 'fail').map((r) => r.probe))], [probeId]);
  });
}

test('without --allow-side-effects a tool without readOnlyHint is never re-sent: its probes are skipped with the reason', async (t) => {
  const run = await probe(args(await cassette(t), { command: [node, probeServer, 'stdio'], allowSideEffects: false }));
  const skipped = run.results.filter((r) => r.outcome === 'skipped');
  t.deepEqual([...new Set(skipped.map((r) => r.probe))].sort(), ['missing-capability', 'mrtr-state']);
  t.true(
    skipped.every((r) => /confirm_action.*readOnlyHint: true.*--allow-side-effects/.test(r.reason)),
    show(skipped),
  );
  // `add` is annotated readOnlyHint: true, so it is still probed.
  t.is(run.results.find((r) => r.rule === 'TOOLS-VALIDATE-INPUTS')?.outcome, 'pass');
  t.deepEqual(failing(run.results), []);
});

test('only the server named on the command line is contacted, never the one recorded in the cassette', async (t) => {
  let hits = 0;
  const sentinel = createServer((_req, res) => {
    hits += 1;
    res.end();
  });
  await new Promise<void>((r) => sentinel.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => sentinel.close());
  const { readFileSync, writeFileSync } = await import('node:fs');
  const path = await cassette(t);
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { sessions: { target: unknown }[] };
  // The recorded target points at the sentinel (as a command and, for good measure, a URL).
  doc.sessions[0]!.target = {
    command: [node, '-e', `require('http').get('http://127.0.0.1:${(sentinel.address() as AddressInfo).port}/')`],
    cwd: '/',
  };
  const copy = path.replace(/\.cassette\.json$/, '-sentinel.cassette.json');
  writeFileSync(copy, JSON.stringify(doc));
  await t.throwsAsync(probe(args(copy, {})), { message: /name the server to probe/ });
  const url = await httpServer(t);
  await probe(args(copy, { url, header: [`Authorization: Bearer ${TOKEN}`], probe: ['unknown-tool'] }));
  t.is(hits, 0);
});
