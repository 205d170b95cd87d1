/**
 * Our own failures end every command cleanly: a documented exit status and one clear line on
 * stderr, never "internal error" (70) with a stack trace. Real CLI processes throughout.
 */
import test from 'ava';
import { chmodSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { useColour } from '../../lib/cli-output.js';
import { cli, node, rawServer, root } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

const example = join(root, 'cassettes', 'examples', 'example-server.cassette.json');
const noStack = /\n\s+at |internal error|node:internal/;

function run(t: Parameters<typeof tempDir>[0], args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return collect(spawnTracked(t, node, [cli, ...args], { ...options, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** A port held by another listener for the test's length. */
async function portInUse(t: Parameters<typeof tempDir>[0]): Promise<number> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
  t.teardown(() => holder.close());
  return (holder.address() as { port: number }).port;
}

// --- a closed stdout (`| head`) -----------------------------------------------------------------

for (const args of [['rules'], ['rules', '--json'], ['show', '--messages', example], ['validate', example, '--format', 'json']]) {
  test(`a reader that closes stdout early ends \`${args.join(' ')}\` quietly`, async (t) => {
    // A few times: whether the write after the close fails depends on how far the reader got.
    for (let i = 0; i < 3; i++) {
      const child = spawnTracked(t, node, [cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
      // The reading end goes away after the first chunk, as `| head -1` does.
      child.stdout!.once('data', () => child.stdout!.destroy());
      let stderr = '';
      child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
      t.is(stderr, '', 'no EPIPE stack trace');
      t.is(code, 0, "the command's own status");
    }
  });
}

// --- addresses ----------------------------------------------------------------------------------

test('serve --listen on a port in use: exit 2 naming the address and the fix', async (t) => {
  const port = await portInUse(t);
  const r = await run(t, ['serve', example, '--listen', `127.0.0.1:${port}`]);
  t.is(r.code, 2);
  t.is(
    r.stderr,
    `mcp-cassette: cannot listen on 127.0.0.1:${port}: the address is already in use (another process listens there); stop it, or give another port with --listen host:port (port 0 picks a free one)\n`,
  );
});

test('record --upstream --listen on a port in use: exit 2 naming the address, nothing left behind', async (t) => {
  const dir = tempDir(t);
  const port = await portInUse(t);
  const cassette = join(dir, 'x.cassette.json');
  const r = await run(t, ['record', '--upstream', 'http://127.0.0.1:1/mcp', '--listen', `127.0.0.1:${port}`, '--cassette', cassette]);
  t.is(r.code, 2);
  t.regex(r.stderr, new RegExp(`^mcp-cassette: cannot listen on 127\\.0\\.0\\.1:${port}: the address is already in use`));
  t.notRegex(r.stderr, noStack);
  t.deepEqual(readdirSync(dir), []);
});

test('record --upstream --listen on an address this machine does not have: exit 2 naming it', async (t) => {
  const dir = tempDir(t);
  // 192.0.2.0/24 is TEST-NET-1 (RFC 5737): never a local address, so nothing is ever bound.
  const r = await run(t, [
    'record',
    '--upstream',
    'http://127.0.0.1:1/mcp',
    '--listen',
    '192.0.2.1:0',
    '--cassette',
    join(dir, 'x.cassette.json'),
  ]);
  t.is(r.code, 2);
  t.is(
    r.stderr,
    'mcp-cassette: cannot listen on 192.0.2.1:0: this machine has no such address; give one of its own addresses with --listen, for example 127.0.0.1:0\n',
  );
});

// --- report files -------------------------------------------------------------------------------

test("validate --output creates missing folders, like replay's and serve's reports", async (t) => {
  const dir = tempDir(t);
  const out = join(dir, 'reports', 'today', 'validate.json');
  const r = await run(t, ['validate', example, '--format', 'json', '--output', out]);
  t.is(r.code, 0, r.stderr);
  t.is(r.stdout.length, 0);
  t.true(Array.isArray((JSON.parse(readFileSync(out, 'utf8')) as { violations: unknown[] }).violations));
});

test('validate --output to a path that cannot be written: exit 2 naming it', async (t) => {
  const dir = tempDir(t);
  const r = await run(t, ['validate', example, '--output', dir]);
  t.is(r.code, 2);
  t.is(r.stderr, `mcp-cassette: cannot write ${dir} (it is a folder); choose a path you can write, or - for stdout\n`);
});

test('`-` is stdout for validate --output and -o', async (t) => {
  const dir = tempDir(t);
  for (const flag of ['--output', '-o']) {
    const r = await run(t, ['validate', example, '--format', 'json', flag, '-'], { cwd: dir });
    t.is(r.code, 0, r.stderr);
    t.true(Array.isArray((JSON.parse(r.stdout.toString()) as { violations: unknown[] }).violations));
  }
  t.deepEqual(readdirSync(dir), [], 'no file named -');
});

test('replay --report json=- writes the report on stdout (the console report on stderr), no file named -', async (t) => {
  const dir = tempDir(t);
  // A target that cannot start: the replay cannot run (2), and its report is still written.
  const r = await run(t, ['replay', example, '--report', 'json=-', '--no-progress', '--', join(dir, 'no-such-server')], { cwd: dir });
  t.is(r.code, 2);
  const report = JSON.parse(r.stdout.toString()) as Record<string, unknown>;
  t.is(typeof report, 'object');
  t.deepEqual(readdirSync(dir), []);
});

test('serve --report - over stdio is a usage error: stdout carries the protocol', async (t) => {
  const dir = tempDir(t);
  const r = await run(t, ['serve', example, '--report', '-'], { cwd: dir });
  t.is(r.code, 2);
  t.is(r.stderr, 'mcp-cassette: --report - (stdout) needs --listen: over stdio, stdout carries the protocol; give a file\n');
  t.deepEqual(readdirSync(dir), []);
});

test('a folder without cassettes: exit 2 naming it, for validate, show, replay and serve', async (t) => {
  const dir = tempDir(t);
  for (const args of [
    ['validate', dir],
    ['show', dir],
    ['replay', dir, '--', node, rawServer, 'echo'],
    ['serve', dir],
  ]) {
    const r = await run(t, args);
    t.is(r.code, 2, args[0]);
    t.is(
      r.stderr,
      `mcp-cassette: directory ${dir} holds no cassettes (*.cassette.json); a recorder writes one there each time it closes a file (see \`record --cassette-dir\`)\n`,
    );
  }
});

// --- colour -------------------------------------------------------------------------------------

test('colour has one rule: FORCE_COLOR forces it, NO_COLOR and TERM=dumb turn it off, else a terminal', (t) => {
  t.true(useColour({ isTTY: true }, {}));
  t.false(useColour({ isTTY: false }, {}));
  t.false(useColour({ isTTY: true }, { NO_COLOR: '1' }));
  t.true(useColour({ isTTY: true }, { NO_COLOR: '' }), 'an empty NO_COLOR is unset (no-color.org)');
  t.false(useColour({ isTTY: true }, { TERM: 'dumb' }));
  t.true(useColour({ isTTY: false }, { FORCE_COLOR: '1' }));
  t.true(useColour({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' }), 'FORCE_COLOR is the explicit request');
  t.false(useColour({ isTTY: true }, { FORCE_COLOR: '0' }));
});

test('validate colours a pipe only under FORCE_COLOR', async (t) => {
  const env = { ...process.env, NO_COLOR: '', FORCE_COLOR: '' };
  const plain = await run(t, ['validate', example], { env });
  const forced = await run(t, ['validate', example], { env: { ...env, FORCE_COLOR: '1' } });
  t.false(plain.stdout.toString().includes('\u001b['));
  t.true(forced.stdout.toString().includes('\u001b['));
});

// --- exit codes docs/exit-codes.md lists that nothing else produces -----------------------------------

test('record: a server command that cannot be executed is 126', async (t) => {
  const dir = tempDir(t);
  const script = join(dir, 'server.sh');
  writeFileSync(script, '#!/bin/sh\n');
  chmodSync(script, 0o644); // not executable, even for root
  const r = await run(t, ['record', '--cassette', join(dir, 'x.cassette.json'), '--', script]);
  t.is(r.code, 126);
  t.regex(r.stderr, /^mcp-cassette: cannot start the server .*\(permission denied\)/m);
  t.notRegex(r.stderr, noStack);
});

test('recover: a journal that cannot be read is 1', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'x.cassette.json');
  writeFileSync(join(dir, '.x.cassette.json.0000-broken.journal'), 'not a journal\n');
  const r = await run(t, ['recover', cassette]);
  t.is(r.code, 1);
  t.regex(r.stderr, /^mcp-cassette: skipped .*\.journal: /);
});

test('unwrap: a host config that cannot be read is 2', async (t) => {
  const dir = tempDir(t);
  const r = await run(t, ['unwrap', join(dir, 'claude_desktop_config.json')]);
  t.is(r.code, 2);
  t.regex(r.stderr, /^mcp-cassette: host config .*claude_desktop_config\.json cannot be read/);
});

// --- a save that fails is loud (HTTP; stdio is in test/recorder/stdio-faults.test.ts) ----------

test('record --upstream into a cassette broken during the recording: journal kept, recover command printed, exit 73', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'corrupt.cassette.json');
  // Broken after the start check (a cassette broken before it is refused at once:
  // test/recorder/cassette-target.test.ts).
  const child = spawnTracked(t, node, [cli, 'record', '--upstream', 'http://127.0.0.1:1/mcp', '--cassette', cassette]);
  const done = collect(child);
  await waitForOutput(child.stdout!, (s) => s.includes('\n'));
  writeFileSync(cassette, '{ not a cassette');
  child.kill('SIGTERM');
  const r = await done;
  t.is(r.code, 73);
  t.true(r.stderr.includes(`\n  mcp-cassette recover ${cassette}\n`), r.stderr);
  t.is(readFileSync(cassette, 'utf8'), '{ not a cassette');
  t.is(readdirSync(dir).filter((n) => n.endsWith('.journal')).length, 1);
});

test('record (stdio) into a folder that cannot be created: exit 2 naming it, the server stopped', async (t) => {
  const dir = tempDir(t);
  writeFileSync(join(dir, 'blocker'), '');
  const cassette = join(dir, 'blocker', 'x.cassette.json');
  const child = spawnTracked(t, node, [cli, 'record', '--cassette', cassette, '--', node, rawServer, 'echo']);
  const done = collect(child);
  child.stdin!.end('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  const r = await done; // the server it spawned first does not keep it alive
  t.is(r.code, 2);
  t.true(
    r.stderr.endsWith(
      `mcp-cassette: cannot write the session journal next to the cassette ${cassette} (a part of the path is a file, not a folder); give a --cassette path in a folder you can write\n`,
    ),
    r.stderr,
  );
  t.notRegex(r.stderr, noStack);
});

test('recover into a cassette that cannot be read (a folder): exit 2 naming it, the journal kept', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'x.cassette.json');
  // A recorder killed mid-session leaves its journal; then the cassette's path becomes a folder.
  const rec = spawnTracked(t, node, [cli, 'record', '--cassette', cassette, '--', node, rawServer, 'echo']);
  const recorded = collect(rec);
  rec.stdin!.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await waitForOutput(rec.stdout!, (s) => s.includes('"id":1'));
  rec.kill('SIGKILL');
  await recorded;
  mkdirSync(cassette);
  const r = await run(t, ['recover', cassette]);
  t.is(r.code, 2);
  t.is(r.stderr, `mcp-cassette: cassette ${cassette} cannot be read (it is a folder)\n`);
  t.is(readdirSync(dir).filter((n) => n.endsWith('.journal')).length, 1);
});

// --- our own bugs -------------------------------------------------------------------------------

test('a bug of ours (an unexpected exception) ends with exit 70 and the stack trace to report', async (t) => {
  // No input makes mcp-cassette throw unexpectedly (that would be a bug to fix), so the fault is
  // injected into a real CLI process: a preload breaks stdout.write the way a bug would throw.
  const fault = 'data:text/javascript,process.stdout.write=()=>{throw new TypeError("injected fault")}';
  const r = await collect(spawnTracked(t, node, ['--import', fault, cli, 'rules'], { stdio: ['ignore', 'pipe', 'pipe'] }));
  t.is(r.code, 70);
  t.regex(
    r.stderr,
    /^mcp-cassette: internal error \(a bug in mcp-cassette, not in your server or input: please report it with this stack trace\): TypeError: injected fault\n\s+at /,
  );
  t.regex(r.stderr, /rules-command\.[tj]s:\d+:\d+/, 'the trace names where it happened (the bundle mapped back to the source)');
});
