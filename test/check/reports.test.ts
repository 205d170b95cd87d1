import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { type ChildProcess, spawn } from 'node:child_process';
import { collect, type Finished } from '../helpers/proc.js';
import { removeDir } from '../helpers/tmp.js';
import { cli, node, root } from '../helpers/paths.js';
import { recordTargetCassette } from '../replay/target-client.js';
import { build, cleanEnv, parseSarif, readJunit } from './support.js';

// One real check run as CI runs it: a cassette recorded from the replay target (real SDK client
// through the real proxy), replayed against a build with a seeded breaking change, with the probes
// on. The build fails some probes (the SDK server does) and breaks the replay, so every report has
// a probe finding and a replay finding to label.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-check-reports-'));
let run: Finished;
let child: ChildProcess | undefined;
test.before(async () => {
  await recordTargetCassette(join(dir, 'target.cassette.json'));
  const args = ['--cassettes', 'target.cassette.json', '--probe', '--junit', 'r.xml', '--sarif', 'r.sarif', '--summary', 'r.md'];
  // Hooks have no t.teardown (spawnTracked): the after hook ends it if a failure left it running.
  child = spawn(node, [cli, 'check', ...args, '--', ...build('tool-removed')], { cwd: dir, env: cleanEnv() });
  run = await collect(child);
});
test.after.always(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await removeDir(dir);
});

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };

test('console: each finding reads `<file>:<line>[ <interaction>]: <what>`, with no gap before the colon', (t) => {
  t.is(run.code, 1, run.stderr);
  const findings = run.stdout
    .toString()
    .split('\n')
    .filter((l) => /^(FAIL|warning|info|expected|STALE) /.test(l));
  const probes = findings.filter((l) => /^\S+ +probe /.test(l));
  t.true(probes.length > 0, 'the build fails some probes');
  for (const l of probes) t.regex(l, /^FAIL +probe +[A-Z0-9-]+ target\.cassette\.json:\d+: probe \S+ failed: /, l);
  t.true(
    findings.some((l) =>
      /breaking +tool-removed target\.cassette\.json:\d+ session \d tools\/list stamp( [^:]*)?: tool "stamp" was removed/.test(l),
    ),
  );
  for (const l of findings) t.notRegex(l, / :/, `no space before a colon: ${l}`);
});

test('JUnit: a probe shows what it sent and got; a replayed interaction what was recorded and what the build answered', (t) => {
  const junit = readJunit(t, join(dir, 'r.xml'));
  const probes = junit.cases.filter((c) => c.classname.startsWith('probe ') && c.failure);
  t.true(probes.length > 0);
  for (const c of probes) {
    const text = c.failure!['#text'] ?? '';
    t.regex(text, /^sent: /m, c.name);
    t.regex(text, /^got: /m, c.name);
    t.notRegex(text, /^(recorded|live): /m, `${c.name}: a probe has no recording`);
  }
  const removed = junit.cases.find((c) => c.name.includes('tools/list') && c.failure?.message.includes('tool-removed'));
  t.truthy(removed, 'the tools/list interaction fails on the removed tool');
  t.regex(removed!.failure!['#text'] ?? '', /^recorded: .*"stamp"/m);
  t.regex(removed!.failure!['#text'] ?? '', /^live: \(absent\)$/m);
});

test('SARIF: the tool names its version, and each rule its help in our docs and its spec section', (t) => {
  const doc = parseSarif(t, readFileSync(join(dir, 'r.sarif'), 'utf8'));
  const driver = doc.runs[0]!.tool.driver;
  t.is(driver.version, pkg.version);
  t.is(driver.semanticVersion, pkg.version);
  t.is(fileURLToPath(driver.informationUri), join(root, 'docs/'), "the docs folder of the installed package, as --help's Docs: line");
  const rulesPage = readFileSync(join(root, 'docs', 'rules.md'), 'utf8');
  const probeRule = doc.runs[0]!.results.find((r) => r.properties.kind === 'probe')!.ruleId;
  const rule = (id: string) => driver.rules.find((r) => r.id === id)!;
  const help = rule(probeRule);
  const anchor = probeRule.toLowerCase();
  t.is(help.helpUri, `${pathToFileURL(join(root, 'docs', 'rules.md')).href}#${anchor}`);
  t.true(rulesPage.includes(`<a id="${anchor}"></a>[${probeRule}](`), 'the anchor is on the rule row of docs/rules.md');
  t.regex(
    help.help.text,
    new RegExp(`Specification: https://modelcontextprotocol\\.io/specification/.*\\nDocs: docs/rules\\.md#${anchor} `),
  );
  t.regex(help.help.markdown, new RegExp(`Docs: \`docs/rules\\.md#${anchor}\``));
  t.regex(rule('replay/tool-removed').helpUri, /\/docs\/replay-verdicts\.md$/);
  const probe = doc.runs[0]!.results.find((r) => r.properties.kind === 'probe')!;
  t.truthy(probe.properties.sent, 'a probe result carries what it sent');
  t.false('recorded' in probe.properties);
});

test('summary: failed probes are shown with what they sent and got', (t) => {
  const md = readFileSync(join(dir, 'r.md'), 'utf8');
  t.regex(md, /<summary>Failed probes \(\d+\)<\/summary>\n\n\| where \| interaction \| finding \| what \| sent \| got \|/);
});
