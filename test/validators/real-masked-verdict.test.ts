/**
 * Verdicts that survive redaction, end to end with real processes: the official v1 SDK client
 * records a server of ours that leaks a credential in a tool result through the real `record`
 * (stdio, live validation, the default capture that masks credentials). The live validator saw
 * SEC-SECRET-LEAK and stored it; the cassette holds the key masked. `validate`, `check` (against
 * the same build, which leaks again) and the view's JSON API each still report it, marked "seen
 * live; evidence masked", and no report carries the key.
 */
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { recordSdkSession } from '../helpers/sdk-recording.js';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { rawGet, startView } from '../helpers/view.js';
import { cleanEnv, readJunit, readSarif, runCheck } from '../check/support.js';
import { BROWSER_HINT, chromiumPath, newPage, openBrowser, texts } from '../helpers/browser.js';
import { testWhen } from '../helpers/skip.js';

const leakyServer = join(root, 'dist', 'test', 'servers', 'leaky-server.js');
const withBrowser = testWhen(chromiumPath !== undefined, 'the browser check of the view', BROWSER_HINT);
const NOTE = 'seen live; evidence masked';
/** AWS's documented example access key id, and a GitHub token shape (built here, so no scanner
 * takes this file for a real token). */
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const GITHUB_TOKEN = `ghp_${'a1B2'.repeat(9)}`;

interface ValidateJson {
  violations: { rule: string; seq: number; path: string; message: string; evidence?: string; seenLive?: boolean }[];
  summary: { warnings: number; maskedEvidence?: number };
}

/**
 * Records one session calling `whoami` (which answers with `key`) through the real proxy.
 * `--fail-on warning` makes the recorder wait for every live verdict before it writes the
 * cassette, as it does for a session that runs longer than its validator takes to start.
 */
async function recordLeak(t: ExecutionContext, key: string): Promise<{ dir: string; path: string; cassette: Cassette }> {
  const { dir, cassette } = await recordSdkSession(
    t,
    [node, leakyServer],
    async (c) => {
      const r = (await c.callTool({ name: 'whoami', arguments: {} })) as { content: { text: string }[] };
      t.is(r.content[0]!.text, `deploying as ${key}`, 'the client got the key: forwarding is unchanged');
    },
    { env: () => ({ LEAKY_SERVER_KEY: key }), extra: ['--fail-on', 'warning'] },
  );
  const path = join(dir, 'real.cassette.json');
  t.false(readFileSync(path, 'utf8').includes(key), 'the cassette holds the key masked');
  const stored = cassette.sessions[0]!.violations ?? [];
  t.true(
    stored.some((v) => v.rule === 'SEC-SECRET-LEAK'),
    `the live validator stored its verdict: ${JSON.stringify(stored.map((v) => v.rule))}`,
  );
  return { dir, path, cassette };
}

const validate = (t: ExecutionContext, args: string[]) => collect(spawnTracked(t, node, [cli, 'validate', ...args]));

test('AWS key: validate (JSON and text) and the view report the live SEC-SECRET-LEAK, marked seen live with evidence masked', async (t) => {
  const { path, cassette } = await recordLeak(t, AWS_KEY);
  const answer = cassette.sessions[0]!.messages.find((m) => JSON.stringify(m.json ?? '').includes('deploying as'))!;
  t.is(JSON.stringify(answer.json).includes('deploying as [REDACTED]'), true, 'the stored answer shows the mask');

  const json = await validate(t, ['--format', 'json', path]);
  t.is(json.code, 0, json.stderr);
  const report = JSON.parse(json.stdout.toString()) as ValidateJson;
  const leaks = report.violations.filter((v) => v.rule === 'SEC-SECRET-LEAK');
  t.is(leaks.length, 1, JSON.stringify(report.violations));
  t.like(leaks[0], { seq: answer.seq, path: '/result/content/0/text', evidence: 'masked', seenLive: true });
  t.is(report.summary.maskedEvidence, 1);
  t.false(json.stdout.toString().includes(AWS_KEY), 'the report holds no key');

  const text = await validate(t, [path]);
  t.is(text.code, 0, text.stderr);
  const line = text.stdout
    .toString()
    .split('\n')
    .find((l) => l.includes('SEC-SECRET-LEAK') && l.includes(`#${answer.seq}`));
  t.truthy(line, text.stdout.toString());
  t.true(line!.endsWith(`(${NOTE})`), line);
  t.regex(text.stdout.toString(), /\(1 seen live; evidence masked\)\n$/);

  // A seen-live verdict counts for --fail-on like any other.
  t.is((await validate(t, ['--fail-on', 'warning', path])).code, 1);

  const { url } = await startView(t, [path]);
  const api = new URL('/api/session', url);
  api.searchParams.set('token', url.searchParams.get('token')!);
  api.searchParams.set('i', '0');
  const got = await rawGet(api);
  t.is(got.status, 200, got.body);
  const detail = JSON.parse(got.body) as { rows: { seq: number; violations: { rule: string; evidence?: string }[] }[] };
  const row = detail.rows.find((r) => r.seq === answer.seq)!;
  t.deepEqual(
    row.violations.filter((v) => v.rule === 'SEC-SECRET-LEAK').map((v) => v.evidence),
    ['masked'],
    'the view marks the verdict on its message',
  );
});

withBrowser('the view page says "seen live; evidence masked" on the message whose key was masked', async (t) => {
  const { path, cassette } = await recordLeak(t, AWS_KEY);
  const answer = cassette.sessions[0]!.messages.find((m) => JSON.stringify(m.json ?? '').includes('deploying as'))!;
  const { url } = await startView(t, [path]);
  const page = await newPage(await openBrowser(t));
  await page.goto(url.href);
  const head = `li.row[data-seq="${answer.seq}"] > .row-head`;
  await page.waitForSelector(head);
  await page.$eval(head, (b) => (b as HTMLButtonElement).click());
  await page.waitForSelector(`li.row[data-seq="${answer.seq}"] .violation .vnote`);
  const shown = await texts(page, `li.row[data-seq="${answer.seq}"] .violation`);
  t.true(
    shown.some((v) => v.includes('SEC-SECRET-LEAK') && v.includes(NOTE)),
    JSON.stringify(shown),
  );
  t.false((await page.content()).includes(AWS_KEY), 'the page holds no key');
});

test('GitHub token: check against the build that still leaks reports it seen live, evidence masked, in every report format', async (t) => {
  const { dir } = await recordLeak(t, GITHUB_TOKEN);
  const env = cleanEnv({ LEAKY_SERVER_KEY: GITHUB_TOKEN, GITHUB_ACTIONS: 'true' });
  const args = ['--cassettes', 'real.cassette.json', '--junit', 'r.xml', '--sarif', 'r.sarif', '--summary', 'r.md'];
  const r = await runCheck(t, [...args, '--fail-on', 'warning', '--', node, leakyServer], { cwd: dir, env });
  const stdout = r.stdout.toString();
  t.is(r.code, 1, 'a seen-live warning fails at --fail-on warning: ' + stdout + r.stderr);
  for (const file of ['r.xml', 'r.sarif', 'r.md'])
    t.false(readFileSync(join(dir, file), 'utf8').includes(GITHUB_TOKEN), `${file} holds no token`);
  t.false(stdout.includes(GITHUB_TOKEN), 'the console and the annotations hold no token');

  const sarif = readSarif(t, join(dir, 'r.sarif')).filter((x) => x.ruleId === 'SEC-SECRET-LEAK');
  t.is(sarif.length, 1);
  t.true(sarif[0]!.message.text.includes(NOTE), sarif[0]!.message.text);
  t.like(sarif[0]!.properties as unknown as Record<string, unknown>, { evidence: 'masked', seenLive: true, new: false });
  const junit = readJunit(t, join(dir, 'r.xml'));
  const failed = junit.cases.find((c) => c.failure?.message.includes('SEC-SECRET-LEAK'));
  t.truthy(failed, JSON.stringify(junit.cases));
  t.true(failed!.failure!['#text']!.includes(NOTE));
  const md = readFileSync(join(dir, 'r.md'), 'utf8');
  t.regex(md, new RegExp(`\\*\\*SEC-SECRET-LEAK\\*\\* warning \\| [^|]*\\(${NOTE}\\)`), md);
  t.regex(stdout, new RegExp(`^FAIL +violation SEC-SECRET-LEAK .*\\(${NOTE}\\)$`, 'm'), 'the console text');
  t.regex(stdout, new RegExp(`^::error file=real\\.cassette\\.json,line=\\d+,title=violation SEC-SECRET-LEAK::.*\\(${NOTE}\\)`, 'm'));

  // At the default --fail-on error the warning is reported and does not fail.
  const quiet = await runCheck(t, ['--cassettes', 'real.cassette.json', '--', node, leakyServer], {
    cwd: dir,
    env: cleanEnv({ LEAKY_SERVER_KEY: GITHUB_TOKEN }),
  });
  t.is(quiet.code, 0, quiet.stdout.toString() + quiet.stderr);
  t.regex(quiet.stdout.toString(), new RegExp(`^warning +violation SEC-SECRET-LEAK .*\\(${NOTE}\\)$`, 'm'));
});
