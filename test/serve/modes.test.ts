import test from 'ava';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { withCassette, type CassetteRun } from '../../replay/serve/index.js';
import { exampleServer, node } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp.js';
import { startListening } from './helpers.js';

/** The real server, behind a shell that notes every start in `marker`. */
function countedServer(marker: string): string[] {
  return ['/bin/sh', '-c', 'echo started >> "$0"; exec "$1" "$2" stdio', marker, node, exampleServer];
}
const starts = (marker: string) => (existsSync(marker) ? readFileSync(marker, 'utf8').split('\n').filter(Boolean).length : 0);
const sessions = (path: string) => (JSON.parse(readFileSync(path, 'utf8')) as Cassette).sessions.length;

async function connect(run: CassetteRun): Promise<Client> {
  const client = new Client({ name: 'modes-test', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  if (run.url) {
    await client.connect(new StreamableHTTPClientTransport(new URL(run.url)));
  } else {
    const transport = new StdioClientTransport({ command: run.command!, args: run.args!, stderr: 'pipe' });
    transport.stderr?.on('data', () => {});
    await client.connect(transport);
  }
  return client;
}

/** A test body: sums with the example server's `add` tool. */
const sums = (pairs: Array<[number, number]>) => async (run: CassetteRun) => {
  const client = await connect(run);
  try {
    const out: unknown[] = [];
    for (const [a, b] of pairs) out.push((await client.callTool({ name: 'add', arguments: { a, b } })).structuredContent);
    return { action: run.action, out };
  } finally {
    await client.close();
  }
};

test.serial('once: the first run records through the real server, the second replays without starting it', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  const options = { dir, mode: 'once' as const, server: countedServer(marker), env: {} };
  t.deepEqual(await withCassette('adder', options, sums([[2, 3]])), { action: 'record', out: [{ sum: 5 }] });
  const cassette = join(dir, 'adder.cassette.json');
  t.true(existsSync(cassette));
  t.is(starts(marker), 1);
  t.deepEqual(await withCassette('adder', options, sums([[2, 3]])), { action: 'replay', out: [{ sum: 5 }] });
  t.is(starts(marker), 1, 'the real server was not started for the replay');
  const err = await t.throwsAsync(withCassette('adder', options, sums([[2, 3], [4, 5]])));
  t.is((err as { code?: string }).code, 'MCPC_SERVE_FAILED', 'a request the cassette lacks fails the test');
  t.regex(err!.message, /unmatched: tools\/call "add": no recorded request matches; .*\/params\/arguments\/a: recorded 2, got 4/);
  t.is(starts(marker), 1);
});

test.serial('none replays only; MCP_CASSETTE_MODE overrides the option', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  await withCassette('adder', { dir, mode: 'all', server: countedServer(marker), env: {} }, sums([[1, 1]]));
  t.is(starts(marker), 1);
  t.deepEqual(await withCassette('adder', { dir, mode: 'none', env: {} }, sums([[1, 1]])), { action: 'replay', out: [{ sum: 2 }] });
  const forced = await withCassette('adder', { dir, mode: 'all', server: countedServer(marker), env: { MCP_CASSETTE_MODE: 'none' } }, sums([[1, 1]]));
  t.deepEqual(forced, { action: 'replay', out: [{ sum: 2 }] }, 'CI forces none over mode: all');
  t.is(starts(marker), 1);
});

test.serial('all re-records every time, replacing the cassette; a failing test leaves the old one untouched', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  const cassette = join(dir, 'adder.cassette.json');
  const options = { dir, mode: 'all' as const, server: countedServer(marker), env: {} };
  await withCassette('adder', options, sums([[2, 3]]));
  const first = readFileSync(cassette, 'utf8');
  t.deepEqual(await withCassette('adder', options, sums([[6, 7]])), { action: 'record', out: [{ sum: 13 }] });
  t.is(starts(marker), 2);
  t.is(sessions(cassette), 1, 'replaced, not appended');
  t.notRegex(readFileSync(cassette, 'utf8'), /"a": 2/);
  const second = readFileSync(cassette, 'utf8');
  t.not(second, first);
  await t.throwsAsync(withCassette('adder', options, async (run) => {
    await sums([[8, 9]])(run);
    throw new Error('the test failed');
  }), { message: 'the test failed' });
  t.is(readFileSync(cassette, 'utf8'), second);
});

test.serial('new_episodes replays what is recorded, asks the real server for the rest and appends it', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  const cassette = join(dir, 'adder.cassette.json');
  await withCassette('adder', { dir, mode: 'once', server: countedServer(marker), env: {} }, sums([[2, 3]]));
  t.is(starts(marker), 1);
  const mixed = await withCassette('adder', { dir, mode: 'new_episodes', server: countedServer(marker), env: {} }, sums([[2, 3], [4, 5]]));
  t.deepEqual(mixed, { action: 'replay-and-record', out: [{ sum: 5 }, { sum: 9 }] });
  t.is(starts(marker), 2, 'the real server was started once, for the new request');
  t.is(sessions(cassette), 2, 'the new episode was appended as a session');
  t.deepEqual(await withCassette('adder', { dir, mode: 'none', env: {} }, sums([[4, 5], [2, 3]])), { action: 'replay', out: [{ sum: 9 }, { sum: 5 }] });
  t.is(starts(marker), 2);
});

test.serial('passthrough talks to the real server and writes no cassette', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  t.deepEqual(await withCassette('adder', { dir, mode: 'passthrough', server: countedServer(marker), env: {} }, sums([[2, 2]])), { action: 'passthrough', out: [{ sum: 4 }] });
  t.is(starts(marker), 1);
  t.false(existsSync(join(dir, 'adder.cassette.json')));
});

test.serial('once over Streamable HTTP: records through `record --upstream`, then replays with `serve --listen` while the server is down', async (t) => {
  const dir = tempDir(t);
  const upstream = await startListening(t, [exampleServer, 'http', '0']);
  const options = { dir, mode: 'once' as const, server: { url: upstream.url }, env: {} };
  const recorded = await withCassette('remote', options, sums([[2, 3]]));
  t.deepEqual(recorded, { action: 'record', out: [{ sum: 5 }] });
  await upstream.stop();
  t.deepEqual(await withCassette('remote', options, sums([[2, 3]])), { action: 'replay', out: [{ sum: 5 }] });
  // The same cassette served over stdio too.
  t.deepEqual(await withCassette('remote', { ...options, transport: 'stdio' }, sums([[2, 3]])), { action: 'replay', out: [{ sum: 5 }] });
});

test.serial('the serve CLI applies record modes too: once records a missing cassette in place, then replays', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  const cassette = join(dir, 'cli.cassette.json');
  const { cli } = await import('../helpers/paths.js');
  const run: CassetteRun = { mode: 'once', action: 'replay', cassette, command: node, args: [cli, 'serve', cassette, '--log-level', 'warn', '--', ...countedServer(marker)] };
  t.deepEqual((await sums([[3, 4]])(run)).out, [{ sum: 7 }]);
  for (let i = 0; i < 100 && !existsSync(cassette); i++) await new Promise((r) => setTimeout(r, 50));
  t.true(existsSync(cassette));
  writeFileSync(marker, '');
  t.deepEqual((await sums([[3, 4]])(run)).out, [{ sum: 7 }]);
  t.is(starts(marker), 0, 'the second run replayed');
});
