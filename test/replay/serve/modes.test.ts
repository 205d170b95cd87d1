import test from 'ava';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Cassette } from '../../../lib/cassette/cassette.js';
import { withCassette, type CassetteRun } from '../../../replay/serve/index.js';
import { runExampleScenario } from '../../../recorder/demo/example-client.js';
import { exampleServer, node } from '../../helpers/paths.js';
import { readCassette } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { countedServer, startListening, starts } from './helpers.js';
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
  const err = await t.throwsAsync(
    withCassette(
      'adder',
      options,
      sums([
        [2, 3],
        [4, 5],
      ]),
    ),
  );
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
  const forced = await withCassette(
    'adder',
    { dir, mode: 'all', server: countedServer(marker), env: { MCP_CASSETTE_MODE: 'none' } },
    sums([[1, 1]]),
  );
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
  await t.throwsAsync(
    withCassette('adder', options, async (run) => {
      await sums([[8, 9]])(run);
      throw new Error('the test failed');
    }),
    { message: 'the test failed' },
  );
  t.is(readFileSync(cassette, 'utf8'), second);
});

test.serial('new_episodes replays what is recorded, asks the real server for the rest and appends it', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  const cassette = join(dir, 'adder.cassette.json');
  await withCassette('adder', { dir, mode: 'once', server: countedServer(marker), env: {} }, sums([[2, 3]]));
  t.is(starts(marker), 1);
  const mixed = await withCassette(
    'adder',
    { dir, mode: 'new_episodes', server: countedServer(marker), env: {} },
    sums([
      [2, 3],
      [4, 5],
    ]),
  );
  t.deepEqual(mixed, { action: 'replay-and-record', out: [{ sum: 5 }, { sum: 9 }] });
  t.is(starts(marker), 2, 'the real server was started once, for the new request');
  t.is(sessions(cassette), 2, 'the new episode was appended as a session');
  t.deepEqual(
    await withCassette(
      'adder',
      { dir, mode: 'none', env: {} },
      sums([
        [4, 5],
        [2, 3],
      ]),
    ),
    { action: 'replay', out: [{ sum: 9 }, { sum: 5 }] },
  );
  t.is(starts(marker), 2);
});

test.serial('passthrough talks to the real server and writes no cassette', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  t.deepEqual(await withCassette('adder', { dir, mode: 'passthrough', server: countedServer(marker), env: {} }, sums([[2, 2]])), {
    action: 'passthrough',
    out: [{ sum: 4 }],
  });
  t.is(starts(marker), 1);
  t.false(existsSync(join(dir, 'adder.cassette.json')));
});

test.serial(
  'once over Streamable HTTP: records through `record --upstream`, then replays with `serve --listen` while the server is down',
  async (t) => {
    const dir = tempDir(t);
    const upstream = await startListening(t, [exampleServer, 'http', '0']);
    const options = { dir, mode: 'once' as const, server: { url: upstream.url }, env: {} };
    const recorded = await withCassette('remote', options, sums([[2, 3]]));
    t.deepEqual(recorded, { action: 'record', out: [{ sum: 5 }] });
    await upstream.stop();
    t.deepEqual(await withCassette('remote', options, sums([[2, 3]])), { action: 'replay', out: [{ sum: 5 }] });
    // The same cassette served over stdio too.
    t.deepEqual(await withCassette('remote', { ...options, transport: 'stdio' }, sums([[2, 3]])), { action: 'replay', out: [{ sum: 5 }] });
  },
);

test.serial('the serve CLI applies record modes too: once records a missing cassette in place, then replays', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'starts');
  const cassette = join(dir, 'cli.cassette.json');
  const { cli } = await import('../../helpers/paths.js');
  // Each run named (--run): a process of another run never joins a recording run, however soon
  // it starts (unnamed, one starting within RUN_GAP_MS of the last one's end would).
  const run = (id: string): CassetteRun => ({
    mode: 'once',
    action: 'replay',
    cassette,
    command: node,
    args: [cli, 'serve', cassette, '--log-level', 'warn', '--run', id, '--', ...countedServer(marker)],
  });
  t.deepEqual((await sums([[3, 4]])(run('first'))).out, [{ sum: 7 }]);
  // The recording's journal is beside the cassette from its first frame until the cassette is
  // written (by serve, or by its finisher once it exited).
  t.is(readCassette(cassette).sessions.length, 1, 'the first run recorded');
  t.is(starts(marker), 1);
  writeFileSync(marker, '');
  t.deepEqual((await sums([[3, 4]])(run('second'))).out, [{ sum: 7 }]);
  t.is(starts(marker), 0, 'the second run replayed');
});

test.serial(
  'new_episodes with a Streamable HTTP real server ({ url }): replays what is recorded, forwards the rest, appends it; both transports, both eras',
  async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'remote.cassette.json');
    const upstream = await startListening(t, [exampleServer, 'http', '0']);
    const server = { url: upstream.url };
    const live = await runExampleScenario({ url: upstream.url }, 'auto');
    t.deepEqual(await withCassette('remote', { dir, mode: 'once', server, env: {} }, sums([[2, 3]])), {
      action: 'record',
      out: [{ sum: 5 }],
    });
    const recorded = sessions(cassette);

    // HTTP: 2+3 from the cassette, 4+5 from the real server.
    t.deepEqual(
      await withCassette(
        'remote',
        { dir, mode: 'new_episodes', server, env: {} },
        sums([
          [2, 3],
          [4, 5],
        ]),
      ),
      { action: 'replay-and-record', out: [{ sum: 5 }, { sum: 9 }] },
    );
    const afterHttp = JSON.parse(readFileSync(cassette, 'utf8')) as Cassette;
    const added = afterHttp.sessions.slice(recorded);
    t.true(added.length >= 1, 'the new episode was appended');
    t.true(added.every((s) => s.transport === 'streamable-http' && s.label === 'new episodes (mcp-cassette serve)'));
    t.regex(JSON.stringify(added), /"a":4,"b":5/);
    t.notRegex(JSON.stringify(added), /"a":2,"b":3/, 'what the cassette answered is not recorded again');

    // stdio in front of the HTTP server: 6+7 is new (the 2025 initialize is replayed to the real server first).
    t.deepEqual(
      await withCassette(
        'remote',
        { dir, mode: 'new_episodes', server, transport: 'stdio', env: {} },
        sums([
          [2, 3],
          [4, 5],
          [6, 7],
        ]),
      ),
      { action: 'replay-and-record', out: [{ sum: 5 }, { sum: 9 }, { sum: 13 }] },
    );
    t.regex(JSON.stringify(JSON.parse(readFileSync(cassette, 'utf8'))), /"a":6,"b":7/);

    // A 2026-07-28 client (v2 SDK, auto): the whole scenario, its unrecorded requests forwarded statelessly.
    t.deepEqual(
      await withCassette('remote', { dir, mode: 'new_episodes', server, env: {} }, (run) => runExampleScenario({ url: run.url! }, 'auto')),
      live,
    );
    await upstream.stop();
    // Everything is in the cassette now: replayed with the real server down.
    t.deepEqual(
      await withCassette('remote', { dir, mode: 'none', server, env: {} }, (run) => runExampleScenario({ url: run.url! }, 'auto')),
      live,
    );
    t.deepEqual(
      await withCassette(
        'remote',
        { dir, mode: 'none', server, transport: 'stdio', env: {} },
        sums([
          [6, 7],
          [4, 5],
          [2, 3],
        ]),
      ),
      { action: 'replay', out: [{ sum: 13 }, { sum: 9 }, { sum: 5 }] },
    );
  },
);

test.serial(
  'withCassette records and passes through across transports: a stdio server for an HTTP client, an HTTP server for a stdio client',
  async (t) => {
    const dir = tempDir(t);
    const marker = join(dir, 'starts');
    // A stdio server, the test speaking HTTP: recorded through the `serve --listen` bridge.
    const toHttp = { dir, mode: 'once' as const, server: countedServer(marker), transport: 'http' as const, env: {} };
    const first = await withCassette('bridged', toHttp, async (run) => ({ url: Boolean(run.url), ...(await sums([[1, 2]])(run)) }));
    t.deepEqual(first, { url: true, action: 'record', out: [{ sum: 3 }] });
    t.is(starts(marker), 1);
    t.deepEqual(await withCassette('bridged', toHttp, sums([[1, 2]])), { action: 'replay', out: [{ sum: 3 }] });
    t.deepEqual(await withCassette('bridged', { ...toHttp, transport: 'stdio' }, sums([[1, 2]])), { action: 'replay', out: [{ sum: 3 }] });
    t.is(starts(marker), 1, 'replays did not start the server');
    // new_episodes over the HTTP bridge: the stdio server is started for the HTTP client's session.
    t.deepEqual(
      await withCassette(
        'bridged',
        { ...toHttp, mode: 'new_episodes' },
        sums([
          [1, 2],
          [8, 9],
        ]),
      ),
      { action: 'replay-and-record', out: [{ sum: 3 }, { sum: 17 }] },
    );
    t.is(starts(marker), 2);
    t.deepEqual(await withCassette('bridged', { ...toHttp, mode: 'none' }, sums([[8, 9]])), { action: 'replay', out: [{ sum: 17 }] });

    // An HTTP server, the test speaking stdio: recorded through the stdio bridge.
    const upstream = await startListening(t, [exampleServer, 'http', '0']);
    const toStdio = { dir, mode: 'once' as const, server: { url: upstream.url }, transport: 'stdio' as const, env: {} };
    const recorded = await withCassette('remote-stdio', toStdio, async (run) => ({
      command: run.command === node,
      ...(await sums([[5, 5]])(run)),
    }));
    t.deepEqual(recorded, { command: true, action: 'record', out: [{ sum: 10 }] });
    t.is((JSON.parse(readFileSync(join(dir, 'remote-stdio.cassette.json'), 'utf8')) as Cassette).sessions[0]!.transport, 'streamable-http');

    // Passthrough across transports keeps nothing.
    t.deepEqual(await withCassette('through', { ...toStdio, mode: 'passthrough' }, sums([[3, 3]])), {
      action: 'passthrough',
      out: [{ sum: 6 }],
    });
    t.deepEqual(await withCassette('through', { ...toHttp, mode: 'passthrough' }, sums([[4, 4]])), {
      action: 'passthrough',
      out: [{ sum: 8 }],
    });
    t.false(existsSync(join(dir, 'through.cassette.json')));
    await upstream.stop();
    t.deepEqual(
      await withCassette('remote-stdio', toStdio, sums([[5, 5]])),
      { action: 'replay', out: [{ sum: 10 }] },
      'replayed with the server down',
    );
  },
);

test.serial(
  'a Streamable HTTP real server that needs credentials: { url, headers } sends them on every request (record and new_episodes), and the cassette keeps them masked',
  async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'guarded.cassette.json');
    const handler = v1SessionfulHandler();
    const seen: string[] = [];
    const server = createServer((req, res) => {
      seen.push(String(req.headers.authorization));
      if (req.headers.authorization !== 'Bearer s3cret') {
        res
          .writeHead(401, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Unauthorized' } }));
        return;
      }
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    t.teardown(() => {
      server.closeAllConnections();
      server.close();
    });
    const real = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, headers: { authorization: 'Bearer s3cret' } };
    const adds = (pairs: Array<[number, number]>) => async (run: CassetteRun) =>
      runV1HttpScenario(run.url!, async (client) => {
        const out: unknown[] = [];
        for (const [a, b] of pairs) out.push((await client.callTool({ name: 'add', arguments: { a, b } })).content);
        return { out };
      });
    const recorded = await withCassette(cassette, { mode: 'once', server: real, env: {} }, adds([[1, 2]]));
    t.deepEqual(recorded.out, [[{ type: 'text', text: '3' }]]);
    const episodes = await withCassette(
      cassette,
      { mode: 'new_episodes', server: real, env: {} },
      adds([
        [1, 2],
        [3, 4],
      ]),
    );
    t.deepEqual(episodes.out, [[{ type: 'text', text: '3' }], [{ type: 'text', text: '7' }]]);
    t.true(seen.length > 0 && seen.every((h) => h === 'Bearer s3cret'), 'every request to the real server carried the credentials');
    const text = readFileSync(cassette, 'utf8');
    t.notRegex(text, /s3cret/);
    t.regex(text, /"authorization": "Bearer \[REDACTED\]"/);
    t.is((JSON.parse(text) as Cassette).sessions.length, 2);
  },
);
