/**
 * A host starts all its servers at once (Claude Desktop, Cursor and VS Code launch every configured
 * server at startup), and real clients give each about a second: the v2 SDK client's probe process
 * answers `server/discover` within 1 s or is SIGKILLed and the client falls back to 2025, and
 * @ai-sdk/mcp waits 1 s for the discover answer before it downgrades in place. Eight wrapped servers
 * started together must negotiate through the proxy what they negotiate directly (issue 28).
 *
 * The server is the SDK-free bench server (it answers discover in some 60 ms of CPU, as a raw
 * server in the field does). An SDK-based server takes some 250 ms of CPU to start, so eight of
 * them on two cores answer in 0.6-1.1 s directly: the direct baseline itself is at the 1 s cliff,
 * and a comparison there would judge the machine, not the proxy. docs/benchmarks.md#lifecycle has
 * the figures for both.
 */
import test from 'ava';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { benchServer } from '../bench/proc.js';
import { node, node22, NODE22_HINT, node22Peer, node22Ready } from '../helpers/paths.js';
import { readCassette, recordArgs } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { testWhen } from '../helpers/skip.js';

const node22Test = testWhen(node22Ready, '@ai-sdk/mcp host test', NODE22_HINT);

const run = promisify(execFile);
const aisdkClient = node22Peer('aisdk-client.mjs');
const N = 8;
const eight = <T>(f: (i: number) => Promise<T>): Promise<T[]> => Promise.all(Array.from({ length: N }, (_, i) => f(i)));
const server = [benchServer, 'stdio'];

/** The official v2 client in `auto` mode: a probe process for discover (1 s, then SIGKILL), then the session. */
async function v2Session(command: string, args: string[]): Promise<unknown> {
  const client = new Client({ name: 'many-at-once', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  try {
    const tools = await client.listTools();
    const echo = await client.callTool({ name: 'echo', arguments: { n: 7 } });
    return { protocolVersion: client.getNegotiatedProtocolVersion(), tools: tools.tools.map((t) => t.name), echo: echo.content };
  } finally {
    await client.close();
  }
}

test.serial(
  'eight v2 SDK clients (auto: a probe process with 1 s) started together negotiate through the proxy what they negotiate directly',
  async (t) => {
    const dir = tempDir(t);
    const direct = await eight(() => v2Session(node, server));
    const proxied = await eight((i) => v2Session(node, recordArgs(join(dir, `s${i}.cassette.json`), [node, ...server])));
    t.deepEqual(proxied, direct);
    t.true(
      direct.every((r) => (r as { protocolVersion?: string }).protocolVersion === '2026-07-28'),
      'every client negotiated the newest revision directly (the baseline is within the 1 s budget)',
    );
    // Every process a client started is in its cassette: the probe's discover, and the session.
    for (let i = 0; i < N; i++) {
      const sessions = readCassette(join(dir, `s${i}.cassette.json`)).sessions;
      t.deepEqual(
        sessions.map((s) => s.protocol.negotiation),
        ['discover', 'envelope'],
        `cassette ${i}`,
      );
    }
  },
);

node22Test.serial(
  'a host of eight @ai-sdk/mcp clients (Node 22: discover in place with 1 s) started together negotiates through the proxy what it negotiates directly',
  async (t) => {
    const dir = tempDir(t);
    // One host process starting eight servers at once, as a desktop host does.
    const host = async (serverArgs: string[]) =>
      JSON.parse((await run(node22!, [aisdkClient, '--sessions', String(N), node, ...serverArgs])).stdout) as {
        protocolVersion?: string;
      }[];
    const direct = await host(server);
    const proxied = await host(recordArgs(join(dir, 'a{i}.cassette.json'), [node, ...server]));
    t.deepEqual(proxied, direct);
    t.true(
      direct.every((r) => r.protocolVersion === '2026-07-28'),
      'every client negotiated the newest revision directly (the baseline is within the 1 s budget)',
    );
    for (let i = 0; i < N; i++) t.is(readCassette(join(dir, `a${i}.cassette.json`)).sessions.length, 1, `cassette ${i}`);
  },
);
