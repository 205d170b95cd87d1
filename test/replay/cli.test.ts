import test from 'ava';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { XMLParser } from 'fast-xml-parser';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir, removeDir } from '../helpers/tmp.js';
import { recordTargetCassette, replayTarget } from './target-client.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const reportSchema = JSON.parse(readFileSync(join(root, 'replay', 'replay-report.schema.json'), 'utf8')) as object;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validateReport = ajv.compile(reportSchema);

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-replay-cli-'));
const cassette = join(dir, 'target.cassette.json');
test.before(async () => {
  await recordTargetCassette(cassette);
});
test.after.always(() => removeDir(dir));

async function run(t: import('ava').ExecutionContext, args: string[], cwd = root) {
  const child = spawnTracked(t, node, [cli, 'replay', ...args], { cwd });
  const done = await collect(child);
  return { ...done, stdout: done.stdout.toString('utf8') };
}

/** Processes whose argv holds `marker` (Linux /proc): what a replay must not leave behind. */
function processesWith(marker: string): number[] {
  const out: number[] = [];
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker)) out.push(Number(pid));
    } catch {
      /* gone */
    }
  }
  return out;
}

function assertReport(t: import('ava').ExecutionContext, path: string): Record<string, any> {
  const report = JSON.parse(readFileSync(path, 'utf8')) as Record<string, any>;
  t.true(validateReport(report), ajv.errorsText(validateReport.errors));
  return report;
}

test('exit 0 and a clean report when nothing changed', async (t) => {
  const out = tempDir(t);
  const r = await run(t, [cassette, '--report', `json=${join(out, 'r.json')}`, '--', node, replayTarget]);
  t.is(r.code, 0, r.stdout + r.stderr);
  t.regex(r.stdout, /0 breaking, 0 changed, 0 warning, 0 compatible/);
  t.is(assertReport(t, join(out, 'r.json')).outcome, 'passed');
});

test('repeatable options before the cassette take one value each: --report and --ignore leave the cassette a positional', async (t) => {
  const out = tempDir(t);
  const r = await run(t, ['--report', `json=${join(out, 'r.json')}`, '--ignore', 'timestamp', cassette, '--', node, replayTarget]);
  t.is(r.code, 0, r.stdout + r.stderr);
  t.is(assertReport(t, join(out, 'r.json')).outcome, 'passed');
});

test('exit 1 on a breaking change, with JSON (schema-valid), JUnit, Markdown and GitHub reports', async (t) => {
  const out = tempDir(t);
  const r = await run(t, [
    cassette,
    '--report',
    `json=${join(out, 'r.json')}`,
    '--report',
    `junit=${join(out, 'r.xml')}`,
    '--report',
    `markdown=${join(out, 'r.md')}`,
    '--report',
    'github',
    '--',
    node,
    replayTarget,
    '--regression',
    'is-error',
  ]);
  t.is(r.code, 1, r.stderr);
  t.regex(r.stdout, /BREAKING #\d+ tools\/call search/);
  t.regex(r.stdout, /tool-call-is-error: the tool call now fails with isError: true \("search backend is down"\)/);
  t.notRegex(r.stdout, /\u001b\[/, 'no colour when stdout is not a TTY');
  t.regex(r.stdout, /^::error file=.*title=replay breaking%3A tool-call-is-error::/m);
  const report = assertReport(t, join(out, 'r.json'));
  t.is(report.outcome, 'breaking');
  const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(readFileSync(join(out, 'r.xml'), 'utf8'));
  const suites = [xml.testsuites.testsuite].flat();
  t.is(Number(xml.testsuites['@failures']), report.summary.breaking);
  const failing = suites.flatMap((s: any) => [s.testcase].flat()).filter((c: any) => c.failure);
  t.true(failing.length >= 2);
  t.true(failing.every((c: any) => String(c['@name']).includes('tools/call search')));
  const md = readFileSync(join(out, 'r.md'), 'utf8');
  t.regex(md, /^## ❌ mcp-cassette replay/m);
  t.regex(md, /\| \*\*breaking\*\* \| `tool-call-is-error` \|/);
});

test('warnings exit 0, or 1 with --strict', async (t) => {
  const args = [cassette, '--', node, replayTarget, '--regression', 'description-changed'];
  const plain = await run(t, args);
  t.is(plain.code, 0, plain.stdout);
  t.regex(plain.stdout, /WARNING .*tool-description-changed/);
  const strict = await run(t, ['--strict', ...args]);
  t.is(strict.code, 1);
});

test('--ignore and mcp-cassette.config.json (with a per-cassette override) silence a difference', async (t) => {
  const args = ['--', node, replayTarget, '--regression', 'content-changed'];
  const ignored = await run(t, [cassette, '--ignore', '/result/content/*/text', '--ignore', 'hits', ...args]);
  t.is(ignored.code, 0, ignored.stdout);
  const cwd = tempDir(t);
  writeFileSync(
    join(cwd, 'mcp-cassette.config.json'),
    JSON.stringify({
      replay: {
        timeoutMs: 5000,
        cassettes: { '**/target.cassette.json': { ignore: ['/result/content/*/text', '/result/structuredContent/hits'] } },
      },
    }),
  );
  const viaConfig = await run(t, [cassette, ...args], cwd);
  t.is(viaConfig.code, 0, viaConfig.stdout + viaConfig.stderr);
  writeFileSync(join(cwd, 'mcp-cassette.config.json'), JSON.stringify({ replay: { ignore: 'not-a-list' } }));
  const bad = await run(t, [cassette, ...args], cwd);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /mcp-cassette\.config\.json is invalid: \/replay\/ignore must be array/);
});

for (const [kind, code, message] of [
  ['crash', 'MCPC_REPLAY_SERVER_EXITED', /exited with code 3 in the middle of the session/],
  ['hang', 'MCPC_REPLAY_TIMEOUT', /did not answer tools\/call \(search\) within 5000 ms; raise --timeout/],
] as const) {
  test(`a server that ${kind === 'crash' ? 'crashes' : 'hangs'} mid-replay: exit 2, clear message, partial report, no stray process`, async (t) => {
    const out = tempDir(t);
    const marker = `--marker=${randomUUID()}`;
    const r = await run(t, [
      cassette,
      // Long enough for a node server to start on a loaded CI machine (1500 ms was not: the
      // hang case once timed out on initialize), short enough for the hang to cost little.
      '--timeout',
      '5000',
      '--report',
      `json=${join(out, 'r.json')}`,
      '--report',
      `junit=${join(out, 'r.xml')}`,
      '--',
      node,
      replayTarget,
      '--regression',
      kind,
      marker,
    ]);
    t.is(r.code, 2, r.stdout + r.stderr);
    t.regex(r.stdout, message);
    t.regex(r.stdout, /the report above is partial/);
    const report = assertReport(t, join(out, 'r.json'));
    t.is(report.outcome, 'error');
    t.is(report.error.code, code);
    t.is(report.error.session, 1);
    const first = report.sessions[0];
    t.true(
      first.interactions.some((i: any) => i.method === 'initialize' && i.outcome === 'same'),
      'what ran before the failure is reported',
    );
    t.true(first.interactions.some((i: any) => i.name === 'search' && i.outcome === 'unanswered'));
    t.true(report.sessions.slice(1).every((s: any) => s.outcome === 'skipped'));
    const xml = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@' }).parse(readFileSync(join(out, 'r.xml'), 'utf8'));
    t.is(Number(xml.testsuites['@errors']), 1);
    t.deepEqual(processesWith(marker), []);
  });
}

test('a server that cannot start: exit 2 naming the command', async (t) => {
  const r = await run(t, [cassette, '--', 'no-such-mcp-server-binary', '--flag']);
  t.is(r.code, 2);
  t.regex(r.stdout, /could not start the server `no-such-mcp-server-binary --flag`: .*ENOENT.*check the server command after --/);
});

test('an invalid or missing cassette, or no target: exit 2 with the reason', async (t) => {
  const out = tempDir(t);
  writeFileSync(join(out, 'bad.cassette.json'), '{"format":"nope"}');
  const bad = await run(t, [join(out, 'bad.cassette.json'), '--', node, replayTarget]);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /is not a valid mcp-cassette file/);
  const missing = await run(t, [join(out, 'missing.cassette.json'), '--', node, replayTarget]);
  t.is(missing.code, 2);
  t.regex(missing.stderr, /does not exist/);
  const none = await run(t, [cassette]);
  t.is(none.code, 2);
  t.regex(none.stderr, /needs exactly one target/);
  const format = await run(t, [cassette, '--report', 'sarif=x', '--', node, replayTarget]);
  t.is(format.code, 2);
  t.regex(format.stderr, /unknown --report format "sarif"/);
});
