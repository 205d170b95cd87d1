/**
 * The `serve` options that decide a run's outcome: --fail-on-unused (CLI and withCassette's
 * failOnUnused, across a client's processes), --answer-timeout, --report, and withCassette's
 * MCPC_SERVE_TIMEOUT when a test leaves `serve` running.
 */
import test from 'ava';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { runExampleScenario } from '../../../recorder/demo/example-client.js';
import { withCassette, type ServeReport } from '../../../replay/serve/index.js';
import { exampleServer, node, root } from '../../helpers/paths.js';
import { readCassette } from '../../helpers/recording.js';
import { tempDir } from '../../helpers/tmp.js';
import { countedServer, LEGACY_INIT, rawServe, readJson, serveArgs, startListening } from './helpers.js';

const example = join(root, 'cassettes', 'examples', 'example-server.cassette.json');
const MODERN = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' };
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args, _meta: MODERN },
});

test.serial('--fail-on-unused: exit 1 with the unused requests listed; without it the same run exits 0', async (t) => {
  for (const [extra, code] of [
    [['--fail-on-unused'], 1],
    [[], 0],
  ] as const) {
    const s = rawServe(t, example, [...extra]);
    t.like(await s.request(call(1, 'add', { a: 2, b: 3 })), { id: 1, result: { structuredContent: { sum: 5 } } });
    const end = await s.end();
    t.is(end.code, code, end.stderr);
    t.regex(
      end.stderr,
      code ? /serve: FAILED: 1 answered from the cassette, 0 unmatched, 0 client answer mismatches, 6 unused/ : /serve: ok: .* 6 unused/,
    );
    t.regex(end.stderr, /unused: tools\/call "count_slowly" \(session 2, seq 13\)/);
    t.notRegex(end.stderr, /session 3/, 'only the revision the client spoke counts');
  }
});

test.serial(
  "failOnUnused in withCassette: the v2 auto client's probe process does not count; a request no process asked for fails the test",
  async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'example.cassette.json');
    copyFileSync(example, cassette);
    const live = await runExampleScenario({ command: node, args: [exampleServer, 'stdio'] }, 'auto');
    const options = { mode: 'none' as const, failOnUnused: true, env: {} };
    t.deepEqual(
      await withCassette(cassette, options, (run) => runExampleScenario({ command: run.command!, args: run.args! }, 'auto')),
      live,
      'every 2026-07-28 request asked for, over two processes',
    );
    const err = await t.throwsAsync(
      withCassette(cassette, options, async (run) => {
        const client = new Client({ name: 'partial', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
        const transport = new StdioClientTransport({ command: run.command!, args: run.args!, stderr: 'pipe' });
        transport.stderr?.on('data', () => {});
        await client.connect(transport);
        await client.listTools();
        await client.close();
      }),
    );
    t.is((err as { code?: string }).code, 'MCPC_SERVE_FAILED');
    t.regex(err!.message, /unused: tools\/call "add" \(session 2, seq 3\)/);
    t.regex(err!.message, /6 unused/);
  },
);

test.serial(
  '--answer-timeout: a server→client request the client leaves unanswered fails the run after the timeout, and the answer still comes',
  async (t) => {
    const s = rawServe(t, example, ['--answer-timeout', '300']);
    await s.request(LEGACY_INIT);
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const started = performance.now();
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'confirm_action', arguments: { action: 'deploy' } } });
    t.like(await s.next((m) => m.method === 'elicitation/create'), { params: { message: 'Really deploy?' } });
    t.like(await s.next((m) => m.id === 3 && !('method' in m)), { result: { content: [{ text: 'confirmed=true action=deploy' }] } });
    // A lower bound only: the answer coming at all proves the timeout fired; a loaded machine can
    // make it come later, never sooner.
    const waited = performance.now() - started;
    t.true(waited >= 290, `answered after ${waited} ms`);
    const end = await s.end();
    t.is(end.code, 1);
    t.regex(
      end.stderr,
      /mismatch: during tools\/call "confirm_action" \(session 3, seq 8\): the client did not answer elicitation\/create within 300 ms \(--answer-timeout\)/,
    );

    // A client that goes away while the question is open is a failure too, said as such.
    const gone = rawServe(t, example);
    await gone.request(LEGACY_INIT);
    gone.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'confirm_action', arguments: { action: 'deploy' } } });
    await gone.next((m) => m.method === 'elicitation/create');
    const ended = await gone.end();
    t.is(ended.code, 1);
    t.regex(ended.stderr, /the client went away without answering elicitation\/create/);

    const bad = rawServe(t, example, ['--answer-timeout', '0']);
    const refused = await bad.end();
    t.is(refused.code, 2);
    t.regex(refused.stderr, /--answer-timeout 0: give a number of milliseconds above 0/);
  },
);

test.serial(
  '--report: the JSON summary ({pid} replaced) says running at start and the outcome at the end, over stdio and HTTP and for record modes',
  async (t) => {
    const dir = tempDir(t);
    const pattern = join(dir, 'report-{pid}.json');
    const s = rawServe(t, example, ['--report', pattern]);
    const path = join(dir, `report-${s.pid}.json`);
    t.like(await s.request(call(1, 'add', { a: 2, b: 3 })), { result: { structuredContent: { sum: 5 } } });
    t.like(readJson<ServeReport>(path), {
      running: true,
      pid: s.pid,
      cassette: example,
      transport: 'stdio',
      mode: 'none',
      action: 'replay',
    });
    await s.request(call(2, 'add', { a: 2, b: 4 }));
    t.is((await s.end()).code, 1);
    const report = readJson<ServeReport>(path);
    t.like(report, { running: false, exitCode: 1, failed: true, served: 1, probe: false, answerMismatches: [] });
    t.is(report.unmatched.length, 1);
    t.like(report.unmatched[0], {
      method: 'tools/call',
      name: 'add',
      closest: { session: 2, seq: 3, differences: [{ path: '/params/arguments/b', recorded: 3, got: 4 }] },
    });
    t.is(report.unused.length, 6);

    const http = await startListening(t, serveArgs(example, ['--listen', '0', '--report', pattern]));
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN } });
    await (
      await fetch(http.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body,
      })
    ).text();
    t.is((await http.stop()).code, 0);
    t.like(readJson<ServeReport>(join(dir, `report-${http.child.pid}.json`)), {
      running: false,
      exitCode: 0,
      transport: 'http',
      url: http.url,
      probe: true,
      unused: [],
    });

    // A record mode run in place reports its exit status too.
    const cassette = join(dir, 'recorded.cassette.json');
    const marker = join(dir, 'starts');
    const recorder = spawn(node, serveArgs(cassette, ['--report', join(dir, 'record-{pid}.json'), '--', ...countedServer(marker)]), {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    t.teardown(() => recorder.kill('SIGKILL'));
    const exit = new Promise<number | null>((resolve) => recorder.on('close', (code) => resolve(code)));
    recorder.stdin.write(JSON.stringify(call(1, 'add', { a: 1, b: 1 })) + '\n');
    await new Promise<void>((resolve) => recorder.stdout.once('data', () => resolve()));
    recorder.stdin.end();
    t.is(await exit, 0);
    t.like(readJson<ServeReport>(join(dir, `record-${recorder.pid}.json`)), {
      running: false,
      exitCode: 0,
      mode: 'once',
      action: 'record',
    });
    // Recorded through `record`, which exits with its server: a finisher may write it just after.
    t.is(readCassette(cassette).sessions.length, 1);
  },
);

test.serial('MCPC_SERVE_TIMEOUT: withCassette fails when the test leaves `serve` running past settleMs', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'example.cassette.json');
  copyFileSync(example, cassette);
  let pid: number | undefined;
  const started = performance.now();
  const err = await t.throwsAsync(
    withCassette(cassette, { mode: 'none', settleMs: 500, env: {} }, async ({ command, args }) => {
      const child = spawn(command!, args!, { stdio: ['pipe', 'pipe', 'ignore'] });
      pid = child.pid;
      t.teardown(() => child.kill('SIGKILL'));
      child.stdin.write(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }) + '\n');
      await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
      // …and the test forgets to close it.
    }),
  );
  t.is((err as { code?: string }).code, 'MCPC_SERVE_TIMEOUT');
  t.regex(err!.message, /mcp-cassette serve did not finish within 500 ms after the test \(did the client close it\?\)/);
  t.true(performance.now() - started < 10_000);
  t.truthy(pid);
});
