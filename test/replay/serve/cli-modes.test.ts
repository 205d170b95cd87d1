/**
 * Record modes through the `serve` CLI: `--listen` with a stdio server (the serve engine bridges
 * HTTP clients to it) or with `--upstream` (`record --upstream` in place), the v2 SDK `auto`
 * client's two processes over stdio (one recording run), and `new_episodes` with a Streamable
 * HTTP real server.
 */
import test from 'ava';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { runExampleScenario, type NegotiationMode } from '../../../recorder/demo/example-client.js';
import { exampleServer, node } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { runV1HttpScenario } from '../../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';
import { countedServer, readJson, serveArgs, sleep, startListening, starts } from './helpers.js';

const MODES: NegotiationMode[] = ['auto', 'legacy'];

async function direct(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const mode of MODES) out[mode] = await runExampleScenario({ command: node, args: [exampleServer, 'stdio'] }, mode);
  return out;
}

test.serial(
  'serve --listen with a stdio server: once records through the bridge (both eras), then replays without starting it; all replaces; passthrough keeps nothing',
  async (t) => {
    const dir = tempDir(t);
    const marker = join(dir, 'starts');
    const cassette = join(dir, 'bridged.cassette.json');
    const live = await direct();

    const once = await startListening(t, serveArgs(cassette, ['--listen', '127.0.0.1:0', '--', ...countedServer(marker)]));
    for (const mode of MODES) t.deepEqual(await runExampleScenario({ url: once.url }, mode), live[mode], `recording, ${mode}`);
    const recorded = await once.stop();
    t.is(recorded.code, 0, recorded.stderr);
    t.regex(recorded.stderr, /serve: ok: 0 answered from the cassette, \d+ forwarded to the real server/);
    t.is(starts(marker), 2, 'one server process for the stateless 2026-07-28 requests, one for the 2025 session');
    const c = readJson(cassette);
    t.deepEqual(
      c.sessions.map((s) => [s.transport, s.protocol.era]),
      [
        ['stdio', 'modern'],
        ['stdio', 'legacy'],
      ],
    );

    const replay = await startListening(t, serveArgs(cassette, ['--listen', '0', '--', ...countedServer(marker)]));
    for (const mode of MODES) t.deepEqual(await runExampleScenario({ url: replay.url }, mode), live[mode], `replay, ${mode}`);
    const replayed = await replay.stop();
    t.is(replayed.code, 0, replayed.stderr);
    t.regex(replayed.stderr, /serve: ok: \d+ answered from the cassette, 0 unmatched/);
    t.is(starts(marker), 2, 'the replay did not start the server');

    const all = await startListening(t, serveArgs(cassette, ['--listen', '0', '--mode', 'all', '--', ...countedServer(marker)]));
    t.deepEqual(await runExampleScenario({ url: all.url }, 'legacy'), live.legacy);
    t.is((await all.stop()).code, 0);
    t.deepEqual(
      readJson(cassette).sessions.map((s) => s.protocol.era),
      ['legacy'],
      'mode all replaced the cassette with this run',
    );
    t.is(starts(marker), 3);

    const through = join(dir, 'through.cassette.json');
    const pass = await startListening(t, serveArgs(through, ['--listen', '0', '--mode', 'passthrough', '--', ...countedServer(marker)]));
    for (const mode of MODES) t.deepEqual(await runExampleScenario({ url: pass.url }, mode), live[mode], `passthrough, ${mode}`);
    t.is((await pass.stop()).code, 0);
    t.false(existsSync(through));
    t.is(starts(marker), 5);
  },
);

test.serial(
  'serve --listen --upstream: once runs `record --upstream` in place, the replay needs no server, all replaces, passthrough keeps nothing',
  async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'remote.cassette.json');
    let upstream = await startListening(t, [exampleServer, 'http', '0']);
    const live: Record<string, unknown> = {};
    for (const mode of MODES) live[mode] = await runExampleScenario({ url: upstream.url }, mode);

    const once = await startListening(t, serveArgs(cassette, ['--listen', '0', '--upstream', upstream.url]));
    for (const mode of MODES) t.deepEqual(await runExampleScenario({ url: once.url }, mode), live[mode], `recording, ${mode}`);
    t.is((await once.stop()).code, 0);
    const recorded = readJson(cassette);
    t.true(recorded.sessions.length > 2);
    t.true(recorded.sessions.every((s) => s.transport === 'streamable-http' && s.proxy.version !== undefined && s.exchanges!.length > 0));
    await upstream.stop();

    const replay = await startListening(t, serveArgs(cassette, ['--listen', '0', '--upstream', upstream.url]));
    for (const mode of MODES)
      t.deepEqual(await runExampleScenario({ url: replay.url }, mode), live[mode], `replay with the server down, ${mode}`);
    t.is((await replay.stop()).code, 0);

    upstream = await startListening(t, [exampleServer, 'http', '0']);
    const all = await startListening(t, serveArgs(cassette, ['--listen', '0', '--mode', 'all', '--upstream', upstream.url]));
    t.deepEqual(await runExampleScenario({ url: all.url }, 'legacy'), live.legacy);
    t.is((await all.stop()).code, 0);
    const replaced = readJson(cassette);
    t.true(
      replaced.sessions.every((s) => s.protocol.era !== 'modern'),
      "only this run's 2025 sessions are left",
    );
    t.false(replaced.sessions.some((s) => recorded.sessions.some((r) => r.id === s.id)));

    const through = join(dir, 'through.cassette.json');
    const pass = await startListening(t, serveArgs(through, ['--listen', '0', '--mode', 'passthrough', '--upstream', upstream.url]));
    for (const mode of MODES) t.deepEqual(await runExampleScenario({ url: pass.url }, mode), live[mode], `passthrough, ${mode}`);
    t.is((await pass.stop()).code, 0);
    t.false(existsSync(through));
    await upstream.stop();
  },
);

test.serial(
  "serve over stdio keeps the v2 auto client's probe process in the run: once records both processes then replays, all replaces the whole run",
  async (t) => {
    const dir = tempDir(t);
    const marker = join(dir, 'starts');
    const cassette = join(dir, 'auto.cassette.json');
    const live = await runExampleScenario({ command: node, args: [exampleServer, 'stdio'] }, 'auto');
    const viaServe = (extra: string[]) =>
      runExampleScenario({ command: node, args: serveArgs(cassette, [...extra, '--', ...countedServer(marker)]) }, 'auto');
    const shape = () => readJson(cassette).sessions.map((s) => s.protocol.negotiation);

    // Unnamed, the probe process and the real one are one run because the second starts while
    // the first is alive or within PROBE_GAP_MS (10 s) of its end: the client starts it at once.
    t.deepEqual(await viaServe(['--mode', 'once']), live);
    t.is(starts(marker), 2, 'the probe process and the real one each recorded');
    t.deepEqual(shape(), ['discover', 'envelope'], "the probe's server/discover session is kept");
    // The next run is named (--run), so it is told apart from the one before by its id, however
    // soon it starts (unnamed, it would join a run whose last process ended under RUN_GAP_MS ago).
    t.deepEqual(await viaServe(['--mode', 'once', '--run', 'replay-1']), live, 'the second run replays both processes');
    t.is(starts(marker), 2);

    const before = readJson(cassette).sessions.map((s) => s.id);
    t.deepEqual(await viaServe(['--mode', 'all']), live);
    t.is(starts(marker), 4);
    const first = readJson(cassette).sessions.map((s) => s.id);
    t.deepEqual(shape(), ['discover', 'envelope'], 'mode all: the run, probe included, replaced the cassette');
    t.false(first.some((id) => before.includes(id)));
    // Runs named with --run (or MCP_CASSETTE_RUN) are told apart without waiting.
    t.deepEqual(await viaServe(['--mode', 'all', '--run', 'ci-1']), live);
    t.deepEqual(await viaServe(['--mode', 'all', '--run', 'ci-2']), live);
    const last = readJson(cassette).sessions.map((s) => s.id);
    t.deepEqual(shape(), ['discover', 'envelope']);
    t.false(last.some((id) => first.includes(id)));
    t.is(starts(marker), 8);

    t.deepEqual(await runExampleScenario({ command: node, args: serveArgs(cassette, ['--mode', 'none']) }, 'auto'), live);
  },
);

/** The v1 SDK's sessionful Streamable HTTP server (GET-stream elicitation), on 127.0.0.1. */
async function sessionfulUpstream(t: { teardown(fn: () => void): void }): Promise<{ url: string; server: Server }> {
  const server = createServer(v1SessionfulHandler());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, server };
}

/** A v2 client (2025 era) over stdio with an elicitation answer, calling the v1 server's tools. */
async function legacyStdio(args: string[], calls: Array<{ name: string; arguments: Record<string, unknown> }>): Promise<unknown[]> {
  const client = new Client(
    { name: 'cli-modes-test', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: 'legacy' } },
  );
  client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
  const transport = new StdioClientTransport({ command: node, args, stderr: 'pipe' });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    const out: unknown[] = [];
    for (const call of calls) out.push((await client.callTool(call)).content);
    return out;
  } finally {
    await client.close();
  }
}

test.serial(
  "new_episodes from the CLI with a Streamable HTTP real server (--upstream), over --listen and stdio: a sessionful server's GET-stream elicitation is relayed, answered and appended",
  async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'sessionful.cassette.json');
    const upstream = await sessionfulUpstream(t);
    const add = (a: number, b: number) => ({ name: 'add', arguments: { a, b } });
    const confirm = (action: string) => ({ name: 'confirm', arguments: { action } });
    const steps =
      (calls: Array<{ name: string; arguments: Record<string, unknown> }>) =>
      async (client: { callTool(c: unknown): Promise<unknown> }) => {
        const out: Record<string, unknown> = {};
        for (const [i, c] of calls.entries()) out[`${i}:${c.name}`] = await client.callTool(c);
        return out;
      };
    const everything = [add(2, 3), confirm('deploy'), add(20, 3)];
    const live = await runV1HttpScenario(upstream.url, steps(everything));

    // A first recording with only 2+3.
    const rec = await startListening(t, serveArgs(cassette, ['--listen', '0', '--upstream', upstream.url]));
    await runV1HttpScenario(rec.url, steps([add(2, 3)]));
    t.is((await rec.stop()).code, 0);
    t.is(readJson(cassette).sessions.length, 1);

    // HTTP: 2+3 replayed; confirm (its elicitation arrives on the real server's GET stream) and 20+3 forwarded.
    const ne = await startListening(t, serveArgs(cassette, ['--listen', '0', '--mode', 'new_episodes', '--upstream', upstream.url]));
    t.deepEqual(await runV1HttpScenario(ne.url, steps(everything)), live);
    const done = await ne.stop();
    t.is(done.code, 0, done.stderr);
    t.regex(done.stderr, /serve: ok: \d+ answered from the cassette, 2 forwarded to the real server, 0 unmatched/);
    const c = readJson(cassette);
    t.is(c.sessions.length, 2);
    const episode = c.sessions[1]!;
    t.like(episode, {
      label: 'new episodes (mcp-cassette serve)',
      transport: 'streamable-http',
      protocol: { era: 'legacy', negotiation: 'initialize' },
    });
    t.truthy(episode.mcpSessionId, "the real server's session id");
    const methods = episode.messages.map((m) => (m.json as { method?: string }).method ?? `answer:${m.direction}`);
    t.deepEqual(
      methods.filter((m) => !m.startsWith('answer')),
      ['initialize', 'notifications/initialized', 'tools/call', 'elicitation/create', 'tools/call'],
    );
    t.true(
      episode.exchanges!.some((e) => e.method === 'GET' && e.status === 200),
      'the GET stream is recorded',
    );
    t.true(
      episode.exchanges!.some((e) => e.method === 'DELETE'),
      'the session was ended',
    );

    // stdio in front of the same server: confirm replayed (elicitation checked), 7+8 forwarded.
    const viaStdio = await legacyStdio(serveArgs(cassette, ['--mode', 'new_episodes', '--upstream', upstream.url]), [
      confirm('deploy'),
      add(7, 8),
    ]);
    t.deepEqual(viaStdio, [[{ type: 'text', text: 'answer=accept ok=true' }], [{ type: 'text', text: '15' }]]);
    for (let i = 0; i < 50 && readJson(cassette).sessions.length < 3; i++) await sleep(100);
    t.is(readJson(cassette).sessions.length, 3);

    // Everything replays with the real server gone.
    upstream.server.closeAllConnections();
    await new Promise<void>((resolve) => upstream.server.close(() => resolve()));
    const none = await startListening(t, serveArgs(cassette, ['--listen', '0', '--mode', 'none']));
    t.deepEqual(await runV1HttpScenario(none.url, steps(everything)), live);
    const ended = await none.stop();
    t.is(ended.code, 0, ended.stderr);
    t.deepEqual(await legacyStdio(serveArgs(cassette, ['--mode', 'none']), [add(7, 8)]), [[{ type: 'text', text: '15' }]]);
  },
);

test.serial(
  'serve refuses a real server given twice, a bad --upstream, a bad --header and --header without --upstream (exit 2)',
  async (t) => {
    const { execFile } = await import('node:child_process');
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        execFile(node, serveArgs(join(tempDir(t), 'x.cassette.json'), args), (err, _out, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stderr }),
        );
      });
    t.like(await run(['--upstream', 'http://127.0.0.1:1/mcp', '--', node, exampleServer]), { code: 2 });
    t.regex(
      (await run(['--upstream', 'http://127.0.0.1:1/mcp', '--', node, exampleServer])).stderr,
      /either as a command after -- or as --upstream <url>, not both/,
    );
    t.regex((await run(['--upstream', 'ftp://x'])).stderr, /--upstream "ftp:\/\/x": use an http or https URL/);
    t.regex((await run(['--upstream', 'http://127.0.0.1:1/mcp', '--header', 'nocolon'])).stderr, /--header "nocolon" is not "Name: value"/);
    t.like(await run(['--header', 'Authorization: Bearer x', '--', node, exampleServer]), { code: 2 });
    t.regex((await run(['--header', 'Authorization: Bearer x'])).stderr, /--header is for the requests to an --upstream server/);
  },
);
