import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { cli, node, root, SPEC_DIR_HINT, specDir } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { fixtureSession, fixtureSessions, loadFixtures } from '../helpers/fixtures.js';
import { testWhen } from '../helpers/skip.js';
import { tempDir } from '../helpers/tmp.js';
import { parseSarif } from '../check/support.js';
import { emptyCassette } from '../../lib/cassette/cassette.js';
import { stringifyCassette } from '../../lib/cassette/store.js';
import { RULES } from '../../validators/rules/index.js';
import { distinctRules, specLink } from '../../validators/rule.js';

const examples = join(root, 'cassettes', 'examples');

/** A cassette holding every rule fixture, so every rule fires at least once. */
function fixtureCassette(dir: string): string {
  const c = emptyCassette();
  c.sessions = loadFixtures().flatMap(fixtureSessions);
  const path = join(dir, 'fixtures.cassette.json');
  writeFileSync(path, stringifyCassette(c));
  return path;
}

const run = (t: Parameters<typeof tempDir>[0], args: string[]) => collect(spawnTracked(t, node, [cli, 'validate', ...args]));

test('real traffic from the SDK servers raises only its real violations', async (t) => {
  const r = await run(t, [
    '--format',
    'json',
    join(examples, 'example-server.cassette.json'),
    join(examples, 'example-server-http.cassette.json'),
    join(examples, 'server-everything.cassette.json'),
  ]);
  t.is(r.code, 0, r.stderr);
  const report = JSON.parse(r.stdout.toString()) as {
    violations: { rule: string; severity: string; spec: string; message: string }[];
    summary: { errors: number };
  };
  t.is(report.summary.errors, 0, 'no errors on clean SDK traffic');
  // Real findings, each a SHOULD or a heuristic: the example server's `add` returns {"sum":5} as
  // structuredContent but "5" as text; its MRTR requestState is the guessable "round-1" (the SDK
  // example's value); server-everything has parameterless tools with a bare {"type":"object"}.
  // (count_slowly logs only for requests that ask, so no LOG-OPT-IN and no LOG-DEPRECATED.)
  // The example server runs on 127.0.0.1 with no authentication at all: SEC-LOCAL-HTTP-OPEN
  // (info; basic/transports/streamable-http.mdx §Security & Endpoint: servers SHOULD authenticate).
  t.deepEqual([...new Set(report.violations.map((v) => `${v.rule}:${v.severity}`))].sort(), [
    'SEC-LOCAL-HTTP-OPEN:info',
    'SEC-STATE-ID-GUESSABLE:warning',
    'TOOLS-NOPARAM:info',
    'TOOLS-STRUCT-MIRROR:warning',
  ]);
  const guessable = report.violations.filter((v) => v.rule === 'SEC-STATE-ID-GUESSABLE');
  t.true(guessable.every((v) => v.message.includes('"round-1"')));
  for (const v of report.violations)
    t.regex(v.spec, /server\/tools$|basic\/patterns\/mrtr$|server\/utilities\/logging$|basic\/transports\/streamable-http$/);
});

test('--fail-on sets the exit code; an unreadable cassette is exit 2', async (t) => {
  const dir = tempDir(t);
  const path = fixtureCassette(dir);
  t.is((await run(t, [path])).code, 0, 'without --fail-on the report never fails the run');
  t.is((await run(t, ['--fail-on', 'error', path])).code, 1);
  const clean = join(examples, 'example-server.cassette.json');
  t.is((await run(t, ['--fail-on', 'error', clean])).code, 0);
  t.is((await run(t, ['--fail-on', 'warning', clean])).code, 1);
  writeFileSync(join(dir, 'bad.cassette.json'), '{');
  const bad = await run(t, [join(dir, 'bad.cassette.json')]);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /bad\.cassette\.json is not valid JSON/);
  const format = await run(t, ['--format', 'xml', clean]);
  t.is(format.code, 2);
  t.regex(format.stderr, /--format must be one of text, json, junit, sarif, github/);
});

test('json: the documented fields, one entry per violation', async (t) => {
  const path = fixtureCassette(tempDir(t));
  const r = await run(t, ['--format', 'json', path]);
  const report = JSON.parse(r.stdout.toString()) as { violations: Record<string, unknown>[]; summary: { byRule: Record<string, unknown> } };
  for (const v of report.violations)
    t.deepEqual(Object.keys(v).slice(0, 8), ['rule', 'severity', 'session', 'seq', 'direction', 'path', 'message', 'spec']);
  t.deepEqual(
    Object.keys(report.summary.byRule).sort(),
    distinctRules(RULES)
      .map((r) => r.id)
      .sort(),
    'every rule fired on its fixtures',
  );
});

test('junit: well-formed XML a JUnit consumer can read, failures for errors only', async (t) => {
  const dir = tempDir(t);
  const path = fixtureCassette(dir);
  const out = join(dir, 'report.xml');
  const r = await run(t, ['--format', 'junit', '--output', out, path]);
  t.is(r.code, 0);
  const xml = readFileSync(out, 'utf8');
  t.is(XMLValidator.validate(xml), true);
  const doc = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: {
      tests: string;
      failures: string;
      testsuite: { testcase: { classname: string; failure?: { '#text': string }; 'system-out'?: string }[] };
    };
  };
  t.is(Number(doc.testsuites.tests), distinctRules(RULES).length);
  const cases = doc.testsuites.testsuite.testcase;
  const failing = cases.filter((c) => c.failure).map((c) => c.classname);
  t.true(failing.includes('ENV-RES-RESULT'));
  t.false(failing.includes('TOOLS-NAME-FORMAT'), 'warnings are not failures');
  t.is(Number(doc.testsuites.failures), failing.length);
  // Each verdict is `session <session> #seq[ /path]: message`: a verdict on the whole message (no path)
  // leaves no gap before the colon.
  const verdicts = cases.flatMap((c) =>
    [c.failure?.['#text'] ?? '', (c['system-out'] ?? '').replace(/^\w+: /gm, '')].join('\n').split('\n'),
  );
  const lines = verdicts.filter((l) => l.startsWith('session '));
  t.true(
    lines.some((l) => /^session \S+ #\d+: /.test(l)),
    'some verdicts are on a whole message',
  );
  for (const l of lines) t.regex(l, /^session \S+ #\d+(: | \/)/, l);
});

test('sarif: valid against the official SARIF 2.1.0 schema', async (t) => {
  const path = fixtureCassette(tempDir(t));
  const r = await run(t, ['--format', 'sarif', path]);
  const sarif = parseSarif(t, r.stdout.toString());
  t.true(sarif.runs[0]!.results.some((x) => x.ruleId === 'ENV-RES-RESULT' && x.level === 'error'));
  t.true(sarif.runs[0]!.results.some((x) => x.ruleId === 'TOOLS-NOPARAM' && x.level === 'note'));
  // The tool names its version; each rule points at its row of docs/rules.md in the installed
  // package, and its help (what GitHub code scanning shows) names that row and the spec section.
  const driver = sarif.runs[0]!.tool.driver;
  const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
  t.like(driver, { name: 'mcp-cassette', version, semanticVersion: version });
  t.is(fileURLToPath(driver.informationUri), join(root, 'docs', '/'));
  const page = readFileSync(join(root, 'docs', 'rules.md'), 'utf8');
  const rule = driver.rules.find((r) => r.id === 'ENV-RES-RESULT')!;
  const [file, anchor] = rule.helpUri.split('#');
  t.is(fileURLToPath(file!), join(root, 'docs', 'rules.md'));
  t.is(anchor, 'env-res-result');
  t.true(page.includes(`<a id="${anchor}"></a>[ENV-RES-RESULT](`), 'the anchor is on the rule row of docs/rules.md');
  const spec = distinctRules(RULES).find((r) => r.id === 'ENV-RES-RESULT')!;
  t.is(
    rule.help.text,
    `${spec.title}\nSpecification: ${specLink(spec.source)}\nDocs: docs/rules.md#env-res-result in the mcp-cassette package`,
  );
  t.true(rule.help.markdown.includes(`Specification: <${specLink(spec.source)}>`));
});

test('github: one workflow command per violation, escaped', async (t) => {
  const path = fixtureCassette(tempDir(t));
  const r = await run(t, ['--format', 'github', path]);
  const lines = r.stdout.toString().trim().split('\n');
  t.true(lines.length > RULES.length - 1);
  for (const l of lines) t.regex(l, /^::(error|warning|notice) file=[^,]+,title=[A-Z0-9-]+::[^\n]+$/);
});

test('rules lists every rule with severity, revisions, title and spec link', async (t) => {
  const r = await collect(spawnTracked(t, node, [cli, 'rules', '--json']));
  const table = JSON.parse(r.stdout.toString()) as { id: string; severity: string; revisions: string; spec: string; title: string }[];
  t.deepEqual(
    table.map((x) => x.id),
    distinctRules(RULES).map((x) => x.id),
    'each rule once, even when two checks report under it',
  );
  t.true(table.every((x) => x.spec.startsWith('https://modelcontextprotocol.io/specification/2026-07-28/')));
  const revisions = (id: string) => table.find((x) => x.id === id)!.revisions;
  t.is(revisions('ENV-RESULTTYPE-PRESENT'), '2026-07-28', 'gated by era');
  t.is(revisions('ENV-UTF8'), '2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28', 'every known revision');
  t.is(revisions('TOOLS-OUTPUT-CONFORM'), '2025-06-18, 2025-11-25, 2026-07-28', 'from the revision that added structured output');
  t.is(revisions('ENV-NO-BATCH'), '2024-11-05, 2025-06-18, 2025-11-25, 2026-07-28', 'not 2025-03-26, which had batches');
  const text = await collect(spawnTracked(t, node, [cli, 'rules']));
  const conform = distinctRules(RULES).find((x) => x.id === 'TOOLS-OUTPUT-CONFORM')!;
  const line = text.stdout
    .toString()
    .split('\n')
    .find((l) => l.startsWith('TOOLS-OUTPUT-CONFORM '));
  t.regex(line ?? '', /^TOOLS-OUTPUT-CONFORM +error +2025-06-18\.\.2026-07-28 /, 'text: a run of revisions as first..last');
  t.true(line?.endsWith(` ${conform.title}  ${specLink(conform.source)}`), `text: the rule's title, then its spec link: ${line}`);
  t.true(
    table.every((x) => x.title === distinctRules(RULES).find((r) => r.id === x.id)!.title),
    'json: each rule with its title',
  );
});

test('docs/rules.md is what `rules --format markdown` prints now (regenerate it with that command)', async (t) => {
  const page = readFileSync(join(root, 'docs', 'rules.md'), 'utf8');
  const md = await collect(spawnTracked(t, node, [cli, 'rules', '--format', 'markdown']));
  t.is(md.code, 0);
  t.is(md.stdout.toString(), page, 'run `mcp-cassette rules --format markdown > docs/rules.md` and commit it');
  for (const r of distinctRules(RULES))
    t.true(page.includes(`| <a id="${r.id.toLowerCase()}"></a>[${r.id}](${specLink(r.source)}) |`), `${r.id} has its row, with its anchor`);
  const legacy = await collect(spawnTracked(t, node, [cli, 'rules', '--markdown']));
  t.is(legacy.stdout.toString(), page, '--markdown is --format markdown');
  const json = await collect(spawnTracked(t, node, [cli, 'rules', '--format', 'json']));
  const viaFlag = await collect(spawnTracked(t, node, [cli, 'rules', '--json']));
  t.is(json.stdout.toString(), viaFlag.stdout.toString(), '--json is --format json');
  const bad = await collect(spawnTracked(t, node, [cli, 'rules', '--format', 'xml']));
  t.is(bad.code, 2);
  t.regex(bad.stderr.toString(), /unknown --format xml: choose text, json, markdown/);
  const both = await collect(spawnTracked(t, node, [cli, 'rules', '--json', '--format', 'markdown']));
  t.is(both.code, 2);
  t.regex(both.stderr.toString(), /choose one output format/);
});

testWhen(
  specDir !== undefined,
  'the --schema test against the official schema files',
  SPEC_DIR_HINT,
)('--schema checks each message of that revision against the official schema file exactly', async (t) => {
  const dir = tempDir(t);
  const spec = (rev: string) => join(specDir!, rev, 'schema.json');
  // Real SDK traffic of both eras matches the official schema of its own revision; traffic of
  // another revision is left to that revision's rules.
  for (const rev of ['2026-07-28', '2025-11-25', '2025-06-18']) {
    const r = await run(t, [
      '--format',
      'json',
      '--schema',
      spec(rev),
      join(examples, 'example-server.cassette.json'),
      join(examples, 'example-server-http.cassette.json'),
      join(examples, 'server-everything.cassette.json'),
    ]);
    t.is(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout.toString()) as { summary: { errors: number } };
    t.is(report.summary.errors, 0, `no schema errors with the ${rev} schema`);
  }
  // A mutated 2026-07-28 answer: resultType is required by both branches of the response type
  // (the official schema accepts almost anything else as an InputRequiredResult).
  const fixture = loadFixtures().find((f) => f.rule === 'valid' && f.name === 'modern-mrtr')!;
  const session = fixtureSession(fixture);
  const answer = session.messages.find(
    (m) => (m.json as { result?: { structuredContent?: unknown } }).result?.structuredContent !== undefined,
  )!;
  delete (answer.json as { result: { resultType?: unknown } }).result.resultType;
  const c = emptyCassette();
  c.sessions = [session];
  const path = join(dir, 'mutated.cassette.json');
  writeFileSync(path, stringifyCassette(c));
  const plain = JSON.parse((await run(t, ['--format', 'json', path])).stdout.toString()) as { violations: { rule: string }[] };
  t.false(
    plain.violations.some((v) => v.rule === 'TOOLS-CALL-SHAPE'),
    'structure is checked only with --schema, for now',
  );
  const exact = JSON.parse((await run(t, ['--format', 'json', '--schema', spec('2026-07-28'), path])).stdout.toString()) as {
    violations: { rule: string; seq: number; message: string }[];
  };
  const shape = exact.violations.filter((v) => v.rule === 'TOOLS-CALL-SHAPE');
  t.is(shape.length, 1);
  t.is(shape[0]!.seq, answer.seq);
  t.regex(shape[0]!.message, /does not match \$defs\/CallToolResultResponse of the 2026-07-28 schema/);
  const bad = await run(t, ['--schema', join(dir, 'nope.json'), path]);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--schema .*nope\.json cannot be read as JSON/);
});
