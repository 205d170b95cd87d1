import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { isHashPlaceholder } from '../../lib/masked-values.js';
import { HASH_KEY_ENV, HASH_KEY_FILE } from '../../recorder/capture/hash-key.js';
import { echoSecretsServer, filesHolding, recordStdio } from '../helpers/capture.js';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `--capture hashed` stores HMAC-SHA-256 under a per-folder key (or MCP_CASSETTE_HASH_KEY), not
 * a plain SHA-256 that a table of every 4-digit PIN would reverse. Recorded through the real
 * proxy, the official v2 SDK client and server (test/servers/echo-secrets-server.ts).
 */
const run = promisify(execFile);
const sha256 = (s: string): string => createHash('sha256').update(s).digest('hex');
const hmac = (keyHex: string, s: string): string => createHmac('sha256', Buffer.from(keyHex, 'hex')).update(s).digest('hex');
const PIN = '1234';

/** What the cassette stores for the `echo` argument (the PIN). */
function storedPin(c: Cassette): string {
  const call = c.sessions[0]!.messages.find((m) => (m.json as { method?: string } | undefined)?.method === 'tools/call');
  return (call!.json as { params: { arguments: { text: string } } }).params.arguments.text;
}

async function recordPin(t: ExecutionContext, dir: string, name: string, env?: Record<string, string>): Promise<string> {
  const r = await recordStdio(
    t,
    join(dir, name),
    ['--capture', 'hashed'],
    async (client, stderr) => {
      await client.callTool({ name: 'echo', arguments: { text: PIN } }).catch((err: unknown) => {
        throw new Error(`${String(err)}; the recorder said: ${stderr?.()}`);
      });
    },
    '--cassette',
    env,
  );
  t.is(r.code, 0, r.stderr);
  return storedPin(r.cassette);
}

test('--capture hashed: a PIN is stored as its HMAC under the folder key (created with mode 0600), not its SHA-256; a second run there gives the same value', async (t) => {
  const a = tempDir(t);
  const first = await recordPin(t, a, 'one.cassette.json');
  t.not(first, `sha256:${sha256(PIN)}:4`);
  t.deepEqual(filesHolding(a, [sha256(PIN)]), [], "no file holds the PIN's plain SHA-256");
  const keyPath = join(a, HASH_KEY_FILE);
  t.is(statSync(keyPath).mode & 0o777, 0o600, 'the key file is readable by its owner only');
  const keyHex = readFileSync(keyPath, 'utf8').trim();
  t.regex(keyHex, /^[0-9a-f]{64}$/);
  const [, id] = /^hmac-sha256:([0-9a-f]{8}):/.exec(first) ?? [];
  t.truthy(id, first);
  t.is(first, `hmac-sha256:${id}:${hmac(keyHex, PIN)}:4`);
  t.true(isHashPlaceholder(first), 'replay and serve read it as a placeholder');
  t.false(keyHex.includes(id!), 'the key id is not a part of the key');

  // A second run in the folder uses its key again: its values compare equal.
  t.is(await recordPin(t, a, 'two.cassette.json'), first);
  t.is(readFileSync(keyPath, 'utf8').trim(), keyHex, 'the key file is created once');
});

test('the same key compares across folders and machines: a key file and MCP_CASSETTE_HASH_KEY holding one key give one value', async (t) => {
  // One machine's folder, with its key file (as copied from another machine).
  const key = randomBytes(32).toString('hex');
  const a = tempDir(t);
  writeFileSync(join(a, HASH_KEY_FILE), `${key}\n`, { mode: 0o600 });
  const inFile = await recordPin(t, a, 'a.cassette.json');
  t.is(inFile.split(':')[2], hmac(key, PIN));
  // Another folder given the same key in the environment (upper case: hex either way): equal, and
  // no key file is made there.
  const b = tempDir(t);
  t.is(await recordPin(t, b, 'b.cassette.json', { [HASH_KEY_ENV]: key.toUpperCase() }), inFile);
  t.false(readdirSync(b).includes(HASH_KEY_FILE));
});

test('MCP_CASSETTE_HASH_KEY: two runs with one key give one value; another key gives another value and key id', async (t) => {
  const key = randomBytes(32).toString('hex');
  const first = await recordPin(t, tempDir(t), 'c.cassette.json', { [HASH_KEY_ENV]: key });
  t.is(await recordPin(t, tempDir(t), 'd.cassette.json', { [HASH_KEY_ENV]: key }), first);
  const other = await recordPin(t, tempDir(t), 'e.cassette.json', { [HASH_KEY_ENV]: randomBytes(32).toString('hex') });
  t.not(other, first);
  t.not(other.split(':')[1], first.split(':')[1]);
  t.not(other.split(':')[2], first.split(':')[2]);
});

test('a keyed hashed cassette and one in the old sha256: form both replay unchanged against the real server', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'keyed.cassette.json');
  t.regex(await recordPin(t, dir, 'keyed.cassette.json'), /^hmac-sha256:/);
  // The same cassette as an older recorder wrote it (unkeyed `sha256:` placeholders).
  const old = join(dir, 'old.cassette.json');
  writeFileSync(old, readFileSync(path, 'utf8').replace(/hmac-sha256:[0-9a-f]{8}:/g, 'sha256:'));
  t.regex(readFileSync(old, 'utf8'), /"sha256:[0-9a-f]{64}:4"/);
  for (const cassette of [path, old]) {
    const { stdout } = await run(node, [cli, 'replay', cassette, '--', node, echoSecretsServer]);
    t.regex(stdout, /2 interactions in 1 sessions: 2 unchanged, 0 breaking/, cassette);
  }
});

/** `record --capture hashed` that must refuse to start: its exit code and stderr. */
async function refused(t: ExecutionContext, dir: string, env: Record<string, string> = {}) {
  const child = spawnTracked(
    t,
    node,
    [cli, 'record', '--cassette', join(dir, 'x.cassette.json'), '--capture', 'hashed', '--', node, echoSecretsServer],
    { env: { ...process.env, ...env } },
  );
  child.stdin!.end();
  const r = await collect(child);
  t.false(
    readdirSync(dir).some((n) => n.endsWith('.cassette.json') || n.endsWith('.journal')),
    'nothing was recorded',
  );
  return { code: r.code, lines: r.stderr.trim().split('\n') };
}

test('a bad key is one line naming it and the fix, exit 2, before anything is recorded: short or malformed env, unreadable or malformed key file', async (t) => {
  const dir = tempDir(t);
  const short = await refused(t, dir, { [HASH_KEY_ENV]: 'abc123' });
  t.is(short.code, 2);
  t.is(short.lines.length, 1, short.lines.join('\n'));
  t.regex(
    short.lines[0]!,
    /^mcp-cassette: MCP_CASSETTE_HASH_KEY is not a usable hash key \(6 hexadecimal characters are too few\); give at least 64 hexadecimal characters .*openssl rand -hex 32/,
  );
  const notHex = await refused(t, dir, { [HASH_KEY_ENV]: `zz${'0'.repeat(70)}` });
  t.is(notHex.code, 2);
  t.regex(notHex.lines[0]!, /MCP_CASSETTE_HASH_KEY is not a usable hash key \(it holds characters that are not hexadecimal\)/);
  t.false(notHex.lines[0]!.includes('zz0000'), 'the value itself is never quoted');

  // The key file is there but cannot be read (a folder: unreadable even to root).
  mkdirSync(join(dir, HASH_KEY_FILE));
  const unreadable = await refused(t, dir);
  t.is(unreadable.code, 2);
  t.is(unreadable.lines.length, 1, unreadable.lines.join('\n'));
  t.is(
    unreadable.lines[0],
    `mcp-cassette: cannot read the --capture hashed key ${join(dir, HASH_KEY_FILE)} (it is a folder); make it a file the user running record can read (mode 0600), or give the key in MCP_CASSETTE_HASH_KEY`,
  );

  const other = tempDir(t);
  writeFileSync(join(other, HASH_KEY_FILE), 'not a key\n', { mode: 0o600 });
  const malformed = await refused(t, other);
  t.is(malformed.code, 2);
  t.regex(
    malformed.lines[0]!,
    /the --capture hashed key .* is not a key \(it holds characters that are not hexadecimal\); it must hold at least 64/,
  );
});

test('recorders starting at once in one folder agree on one key, created whole with mode 0600', async (t) => {
  const dir = tempDir(t);
  const go = join(dir, 'go');
  const keyModule = join(root, 'dist', 'recorder', 'capture', 'hash-key.js');
  // Each process loads the module, says it is ready, waits for the go file, then asks for the key.
  const script = `
    const { existsSync } = require('node:fs');
    import(${JSON.stringify(keyModule)}).then((m) => {
      process.stdout.write('ready\\n');
      const tick = new Int32Array(new SharedArrayBuffer(4));
      while (!existsSync(${JSON.stringify(go)})) Atomics.wait(tick, 0, 0, 1);
      process.stdout.write(m.hashKeyFor(${JSON.stringify(dir)}, {}).id + '\\n');
    });`;
  const children = Array.from({ length: 6 }, () => spawnTracked(t, node, ['-e', script]));
  const finished = children.map((c) => collect(c));
  await Promise.all(children.map((c) => waitForOutput(c.stdout!, (s) => s.includes('ready'))));
  writeFileSync(go, '');
  const ids = (await Promise.all(finished)).map((r) => {
    t.is(r.code, 0, r.stderr);
    return r.stdout.toString().split('\n')[1];
  });
  t.is(new Set(ids).size, 1, ids.join(' '));
  t.regex(ids[0]!, /^[0-9a-f]{8}$/);
  t.is(statSync(join(dir, HASH_KEY_FILE)).mode & 0o777, 0o600);
  t.deepEqual(readdirSync(dir).sort(), [HASH_KEY_FILE, 'go'], 'no temporary file left');
});
