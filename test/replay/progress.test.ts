import test from 'ava';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadCassette, stringifyCassette } from '../../lib/cassette/store.js';
import { CI_VARIABLES, LONG_CASSETTE_SESSIONS, ProgressBar, shouldShowProgress } from '../../replay/progress.js';
import { replayCommand, type ReplayArgs } from '../../replay/replay-run.js';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import type { SessionResult } from '../../replay/index.js';
import { cli, node } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { testWhen } from '../helpers/skip.js';
import { tempDir, removeDir } from '../helpers/tmp.js';
import { recordTargetCassette, replayTarget } from './target-client.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-progress-'));
const cassette = join(dir, 'long.cassette.json');
test.before(async () => {
  await recordTargetCassette(cassette);
});
test.after.always(() => removeDir(dir));

const BAR = /\r\u001b\[2Kreplay [█░]{20} \d+\/\d+ sessions/;
/** An environment without any CI variable (the test itself may run in CI). */
const noCI = (): NodeJS.ProcessEnv => {
  const env = { ...process.env };
  for (const name of CI_VARIABLES) delete env[name];
  delete env.TERM;
  return env;
};

test('the decision: a bar only on a terminal, outside CI, for a long cassette, unless quiet or --no-progress', (t) => {
  const long = LONG_CASSETTE_SESSIONS;
  t.true(shouldShowProgress({ isTTY: true, env: {}, sessions: long }));
  t.false(shouldShowProgress({ isTTY: true, env: {}, sessions: long - 1 }), 'short cassettes finish before a bar helps');
  t.false(shouldShowProgress({ isTTY: false, env: {}, sessions: 100 }), 'no terminal');
  t.false(shouldShowProgress({ isTTY: undefined, env: {}, sessions: 100 }), 'a pipe has no isTTY at all');
  for (const name of CI_VARIABLES) t.false(shouldShowProgress({ isTTY: true, env: { [name]: 'true' }, sessions: 100 }), name);
  t.false(shouldShowProgress({ isTTY: true, env: { CI: '1' }, sessions: 100 }));
  t.true(shouldShowProgress({ isTTY: true, env: { CI: 'false' }, sessions: 100 }), 'CI=false is not CI');
  t.true(shouldShowProgress({ isTTY: true, env: { CI: '0' }, sessions: 100 }));
  t.true(shouldShowProgress({ isTTY: true, env: { CI: '' }, sessions: 100 }));
  t.false(shouldShowProgress({ isTTY: true, env: { TERM: 'dumb' }, sessions: 100 }));
  t.false(shouldShowProgress({ isTTY: true, env: {}, sessions: 100, quiet: true }));
  t.false(shouldShowProgress({ isTTY: true, env: {}, sessions: 100, enabled: false }));
});

test('the bar counts sessions and breaking interactions and fits the terminal', (t) => {
  let text = '';
  const bar = new ProgressBar({ write: (s: string) => (text += s), columns: 60 }, 4);
  const session = { transport: 'stdio', label: 'nightly', protocol: { revision: '2025-11-25' } } as RecordedSession;
  bar.start(1, session);
  t.is(bar.line(200), `replay ${'░'.repeat(20)} 0/4 sessions  session 1 (nightly): stdio 2025-11-25`);
  bar.done({ interactions: [{ outcome: 'breaking' }, { outcome: 'same' }] } as SessionResult);
  t.is(bar.line(200), `replay ${'█'.repeat(5)}${'░'.repeat(15)} 1/4 sessions, 1 breaking  session 1 (nightly): stdio 2025-11-25`);
  t.is(bar.line().length, 59, 'cut to the terminal width');
  t.true(bar.line().endsWith('…'));
  bar.finish();
  t.true(text.endsWith('\r\u001b[2K'), 'the bar is erased before the report');
  t.is(new ProgressBar({ write: () => true, columns: 0 }, 1).line().length <= 80, true, 'a pseudo-terminal reporting 0 columns gets 80');
});

function io(isTTY: boolean, env: NodeJS.ProcessEnv) {
  const seen = { out: '', err: '' };
  return {
    seen,
    io: {
      out: { write: (s: string) => (seen.out += s), isTTY: false },
      err: { write: (s: string) => (seen.err += s), isTTY, columns: 100 },
      env,
    },
  };
}

const args = (path: string): ReplayArgs => ({
  cassette: path,
  command: [node, replayTarget],
  ignore: [],
  report: [],
  strict: false,
  header: [],
  timeout: 5000,
});

test('replaying a long cassette draws the bar on a terminal stderr and erases it before the report', async (t) => {
  const { seen, io: streams } = io(true, noCI());
  t.is(await replayCommand(args(cassette), streams), 0);
  const sessions = loadCassette(cassette).sessions.length;
  t.true(sessions >= LONG_CASSETTE_SESSIONS);
  t.regex(seen.err, BAR);
  t.true(seen.err.includes(`${sessions}/${sessions} sessions`), 'the bar reached the end');
  t.true(seen.err.endsWith('\r\u001b[2K'));
  t.regex(seen.out, /0 breaking, 0 changed, 0 warning/);
  t.notRegex(seen.out, /█|\r/, 'the report on stdout has no bar in it');
});

test('no bar in CI, without a terminal, for a short cassette, with --quiet or --no-progress', async (t) => {
  const a = args(cassette);
  const short = join(tempDir(t), 'short.cassette.json');
  const c = loadCassette(cassette);
  writeFileSync(short, stringifyCassette({ ...c, sessions: c.sessions.slice(0, LONG_CASSETTE_SESSIONS - 1) }));
  const b = args(short);
  const runs: Array<[string, ReplayArgs, boolean, NodeJS.ProcessEnv]> = [
    ['CI=true', a, true, { ...noCI(), CI: 'true' }],
    ['GITHUB_ACTIONS', a, true, { ...noCI(), GITHUB_ACTIONS: 'true' }],
    ['not a TTY', a, false, noCI()],
    ['short cassette', b, true, noCI()],
    ['--quiet', { ...a, quiet: true }, true, noCI()],
    ['--no-progress', { ...a, progress: false }, true, noCI()],
  ];
  for (const [why, run, tty, env] of runs) {
    const { seen, io: streams } = io(tty, env);
    t.is(await replayCommand(run, streams), 0, why);
    t.is(seen.err, '', why);
  }
});

test('the CLI writes no bar when stderr is a pipe, even outside CI', async (t) => {
  const child = spawnTracked(t, node, [cli, 'replay', cassette, '--', node, replayTarget], { env: noCI() });
  const done = await collect(child);
  t.is(done.code, 0, done.stderr);
  t.is(done.stderr, '');
  t.notRegex(done.stdout.toString('utf8'), /█|\r/);
});

// A real pseudo-terminal, through util-linux `script`, where the system has it.
const script = ['/usr/bin/script', '/bin/script'].find((p) => existsSync(p));
const withScript = testWhen(
  script !== undefined,
  'the pseudo-terminal progress bar test',
  "it needs util-linux's `script` at /usr/bin/script or /bin/script for a real pseudo-terminal (apt-get install bsdutils)",
);
withScript('under a real pseudo-terminal the CLI draws the bar, and not with CI set', async (t) => {
  const command = [node, cli, 'replay', cassette, '--', node, replayTarget].map((a) => `'${a}'`).join(' ');
  const run = async (env: NodeJS.ProcessEnv) => {
    const child = spawnTracked(t, script!, ['-qfec', command, '/dev/null'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const done = await collect(child);
    t.is(done.code, 0, done.stderr);
    return done.stdout.toString('utf8');
  };
  const tty = await run(noCI());
  t.regex(tty, BAR);
  t.regex(tty, /\r\u001b\[2Kreplay .* against /, 'erased before the report');
  const ci = await run({ ...noCI(), CI: 'true' });
  t.notRegex(ci, /█|░/);
  t.regex(ci, /0 breaking, 0 changed, 0 warning/);
});
