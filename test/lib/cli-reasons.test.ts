/**
 * Each failure names its real reason: an output folder that cannot be written is not a lock held
 * by another process; a report file that cannot be written is said before anything runs; a command
 * line that does not parse is said in this tool's words, naming the option as typed and the
 * command's usage (exit 2). Real CLI processes throughout.
 */
import test, { type ExecutionContext } from 'ava';
import { chmodSync, existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SpawnOptions } from 'node:child_process';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

const example = join(root, 'cassettes', 'examples', 'example-server.cassette.json');
const httpExample = join(root, 'cassettes', 'examples', 'example-server-http.cassette.json');

function run(t: ExecutionContext, args: string[], options: SpawnOptions = {}) {
  return collect(spawnTracked(t, node, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'], ...options }));
}

/**
 * A folder the CLI cannot write. Root writes anywhere whatever the mode, so as root the CLI runs
 * as `nobody` (uid 65534), with the test's folders readable by it; otherwise the folder loses its
 * write bit.
 */
function unwritableFolder(t: ExecutionContext, dir: string): { folder: string; as: SpawnOptions } {
  const folder = join(dir, 'no-write');
  mkdirSync(folder);
  if (process.getuid?.() === 0) {
    chmodSync(dir, 0o755);
    chmodSync(folder, 0o755);
    // Without V8 coverage: under `npm run test:all` it would write into coverage/, which nobody
    // may not, and say so on stderr. Empty, not left out: Node copies the parent's value into a
    // child's environment that lacks it.
    const env = { ...process.env, NODE_V8_COVERAGE: '' };
    return { folder, as: { uid: 65534, gid: 65534, env } };
  }
  chmodSync(folder, 0o555);
  t.teardown(() => chmodSync(folder, 0o755));
  return { folder, as: {} };
}

const posix = process.platform === 'win32' ? test.skip : test;

// --- import -o ------------------------------------------------------------------------------------

posix('import -o into a folder that cannot be written: exit 2, the folder named and the fix, no lock', async (t) => {
  const dir = tempDir(t);
  const har = join(dir, 'remote.har');
  const exported = await run(t, ['export', httpExample, '--format', 'har', '--output', har]);
  t.is(exported.code, 0, exported.stderr);
  const { folder, as } = unwritableFolder(t, dir);
  const cassette = join(folder, 'remote.cassette.json');
  const r = await run(t, ['import', '--from', 'har', har, '-o', cassette], as);
  t.is(r.code, 2);
  t.is(
    r.stderr,
    `mcp-cassette: cannot write cassette ${cassette}: its folder ${folder} is not writable (permission denied); give a path in a folder you can write, or make this one writable (chmod u+w ${folder})\n`,
  );
  t.notRegex(r.stderr, /locked by another/);
  t.deepEqual(readdirSync(folder), []);
});

// --- report paths, checked before anything runs ------------------------------------------------------

/** A server command that leaves a mark when started: it must not be. */
function markingServer(dir: string): { command: string[]; mark: string } {
  const mark = join(dir, 'server-started');
  return { command: [node, '-e', `require('fs').writeFileSync(${JSON.stringify(mark)}, '')`], mark };
}

test('replay --report to a path that cannot be written: exit 2 before the server is started', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'blocker'), '');
  const { command, mark } = markingServer(dir);
  for (const spec of ['json', 'junit', 'markdown']) {
    const report = join(dir, 'blocker', `replay.${spec}`);
    const r = await run(t, ['replay', example, '--report', 'markdown=-', '--report', `${spec}=${report}`, '--', ...command]);
    t.is(r.code, 2, spec);
    t.is(
      r.stderr,
      `mcp-cassette: cannot write ${report} (a part of the path is a file, not a folder), given to --report ${spec}; choose a path you can write, or - for stdout; nothing was run\n`,
    );
    t.is(r.stdout.length, 0, 'no report at all');
  }
  const folder = await run(t, ['replay', example, '--report', `json=${dir}`, '--', ...command]);
  t.is(folder.code, 2);
  t.regex(folder.stderr, /cannot write .* \(it is a folder\), given to --report json;/);
  t.false(existsSync(mark), 'the server was never started');
});

test('check --junit, --sarif, --summary to a path that cannot be written: exit 2 before any build starts', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'blocker'), '');
  const { command, mark } = markingServer(dir);
  for (const option of ['--junit', '--sarif', '--summary']) {
    const report = join(dir, 'blocker', 'report');
    const r = await run(t, ['check', '--cassettes', example, option, report, '--', ...command]);
    t.is(r.code, 2, option);
    t.is(
      r.stderr,
      `mcp-cassette: cannot write ${report} (a part of the path is a file, not a folder), given to ${option}; choose a path you can write, or - for stdout; nothing was run\n`,
    );
  }
  t.false(existsSync(mark), 'the build was never started');
});

// --- a command line that does not parse ----------------------------------------------------------

const REPLAY_USAGE = 'Usage: mcp-cassette replay <cassette> [options] -- <server command> [args...]';

for (const [args, said] of [
  // yargs
  [['replay', example, '--bogus-flag', '--', 'node', 'x.js'], `mcp-cassette replay: unknown option --bogus-flag. ${REPLAY_USAGE}`],
  [['replay', '--bogus-flag', example, '--', 'node', 'x.js'], `mcp-cassette replay: unknown option --bogus-flag. ${REPLAY_USAGE}`],
  [['replay'], `mcp-cassette replay: missing <cassette>. ${REPLAY_USAGE}`],
  [['replay', example, '--timeout', '--', 'node', 'x.js'], `mcp-cassette replay: --timeout needs a value. ${REPLAY_USAGE}`],
  [
    ['show', '--bogus', '--other=1', example],
    'mcp-cassette show: unknown options --bogus, --other. Usage: mcp-cassette show <cassette...> [options]',
  ],
  [['wrap', 'a.json', 'b.json'], 'mcp-cassette wrap: unexpected argument b.json. Usage: mcp-cassette wrap <config> [options]'],
  [
    ['recrod', '-c', 'x'],
    'mcp-cassette: unknown command recrod. Did you mean record? The commands: record, recover, show, wrap, unwrap, validate, probe, fuzz, replay, serve, check, merge-reports, export, import, view, rules',
  ],
  // the fast path of `record` and `serve` (lib/fast-args.ts), which hands what it does not know to yargs
  [
    ['record', '--bogus-flag', '-c', 'x.cassette.json', '--', 'node', 'x.js'],
    'mcp-cassette record: unknown option --bogus-flag. Usage: mcp-cassette record [options] [--] <server command> [args...]',
  ],
  [['record', '-c'], 'mcp-cassette record: -c needs a value. Usage: mcp-cassette record [options] [--] <server command> [args...]'],
  [
    ['serve', example, '--record', 'new_episodes', '--', 'node', 'x.js'],
    'mcp-cassette serve: unknown option --record. Usage: mcp-cassette serve <cassette|dir>... [options] [-- <real server command> [args...]]',
  ],
  [
    ['serve', example, '--no-such-flag'],
    'mcp-cassette serve: unknown option --no-such-flag. Usage: mcp-cassette serve <cassette|dir>... [options] [-- <real server command> [args...]]',
  ],
] as const) {
  test(`usage error in our words: ${args.join(' ').replace(root, '.')}`, async (t) => {
    const dir = tempDir(t);
    const r = await run(t, [...args], { cwd: dir });
    t.is(r.code, 2);
    t.is(r.stderr, `${said}\n`);
    t.deepEqual(readdirSync(dir), [], 'nothing written or started');
  });
}
