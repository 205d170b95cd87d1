import test from 'ava';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Cassette } from '../../../lib/cassette/cassette.js';
import { withCassette } from '../../../replay/serve/index.js';
import { cli, node, root } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { LEGACY_INIT, rawServe, serveArgs, startListening } from './helpers.js';

const execFileP = promisify(execFile);
const examples = join(root, 'cassettes', 'examples');
const example = join(examples, 'example-server.cassette.json');
const everything = join(examples, 'server-everything.cassette.json');
const MODERN = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'someone-else', version: '9' },
};

async function runCli(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number; stderr: string; stdout: string }> {
  try {
    const r = await execFileP(node, [cli, ...args], { env });
    return { code: 0, stderr: r.stderr, stdout: r.stdout };
  } catch (err) {
    const e = err as { code: number; stderr: string; stdout: string };
    return { code: e.code, stderr: e.stderr, stdout: e.stdout };
  }
}

test.serial(
  'an unmatched request gets a JSON-RPC error naming the closest recorded request; the run exits 1 with a summary on stderr',
  async (t) => {
    const s = rawServe(t, example);
    t.like(await s.request(LEGACY_INIT), { id: 0, result: { protocolVersion: '2025-11-25' } });
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const answer = await s.request({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    const error = answer.error as { code: number; message: string; data: { code: string; closest: { method: string; name: string } } };
    t.is(answer.id, 7);
    t.is(error.code, -32099);
    t.regex(
      error.message,
      /^mcp-cassette: tools\/call "no_such_tool": no recorded request matches; closest recorded request: tools\/call "\w+" \(session \d+, seq \d+\); \/params\/name: recorded "\w+", got "no_such_tool"/,
    );
    t.is(error.data.code, 'MCPC_SERVE_NO_MATCH');
    t.is(error.data.closest.method, 'tools/call');
    const end = await s.end();
    t.is(end.code, 1);
    t.regex(end.stderr, /mcp-cassette serve: FAILED: .*1 unmatched/);
    t.regex(end.stderr, /unmatched: tools\/call "no_such_tool"/);
    t.regex(
      end.stderr,
      /unused: resources\/read "example:\/\/readme" \(session 3, seq 12\)/,
      'unused interactions of the revision in use are listed',
    );
  },
);

test.serial('a changed argument is named with its path, the recorded value and the received one', async (t) => {
  const s = rawServe(t, example);
  const answer = await s.request({
    jsonrpc: '2.0',
    id: 'x',
    method: 'tools/call',
    params: { name: 'add', arguments: { a: 2, b: 7 }, _meta: MODERN },
  });
  const error = answer.error as { message: string; data: { closest: { name: string; differences: unknown[] } } };
  t.regex(error.message, /closest recorded request: tools\/call "add" \(session 2, seq 3\); \/params\/arguments\/b: recorded 3, got 7$/);
  t.deepEqual(error.data.closest.differences, [{ path: '/params/arguments/b', recorded: 3, got: 7 }]);
  t.is((await s.end()).code, 1);
});

test.serial("matching ignores ids, key order and volatile _meta; the reply carries the caller's id and progress token", async (t) => {
  const s = rawServe(t, example);
  const add = await s.request({
    id: 'caller-1',
    params: { _meta: { ...MODERN, traceparent: '00-abc-def-01', progressToken: 99 }, arguments: { b: 3, a: 2 }, name: 'add' },
    method: 'tools/call',
    jsonrpc: '2.0',
  });
  t.like(add, { id: 'caller-1', result: { structuredContent: { sum: 5 } } });
  const count = await s.request({
    jsonrpc: '2.0',
    id: 41,
    method: 'tools/call',
    params: { name: 'count_slowly', arguments: { n: 3 }, _meta: { ...MODERN, progressToken: 'my-token' } },
  });
  t.like(count, { id: 41, result: { content: [{ type: 'text', text: 'counted to 3' }] } });
  const progress = s.received.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
  t.deepEqual(
    progress,
    [1, 2, 3].map((n) => ({ progressToken: 'my-token', progress: n, total: 3 })),
    'recorded progress, sent before the answer, with the live token',
  );
  t.is((await s.end()).code, 0);
});

test.serial(
  'server/discover and initialize are answered with the requested revision; a 2025-only cassette answers discover with -32601',
  async (t) => {
    const s = rawServe(t, example);
    const discover = await s.request({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN } });
    t.deepEqual((discover.result as { supportedVersions: string[] }).supportedVersions, ['2026-07-28']);
    const init = await s.request(LEGACY_INIT);
    t.is((init.result as { protocolVersion: string }).protocolVersion, '2025-11-25');
    await s.end();
    const e = rawServe(t, everything);
    t.like(await e.request({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: MODERN } }), { error: { code: -32601 } });
    t.like(await e.request({ ...LEGACY_INIT, id: 1 }), { id: 1, result: { serverInfo: { name: 'mcp-servers/everything' } } });
    t.is((await e.end()).code, 0);
  },
);

test.serial('2026-07-28 input_required is served and the retry is matched by its inputResponses', async (t) => {
  const s = rawServe(t, example);
  const first = await s.request({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'confirm_action', arguments: { action: 'deploy' }, _meta: MODERN },
  });
  const result = first.result as { resultType: string; requestState: string };
  t.is(result.resultType, 'input_required');
  const retry = { name: 'confirm_action', arguments: { action: 'deploy' }, requestState: result.requestState, _meta: MODERN };
  const done = await s.request({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: { ...retry, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } },
  });
  t.like(done, { id: 2, result: { content: [{ text: 'confirmed=true action=deploy' }] } });
  const declined = await s.request({
    jsonrpc: '2.0',
    id: 3,
    method: 'tools/call',
    params: { ...retry, inputResponses: { confirm: { action: 'accept', content: { ok: false } } } },
  });
  t.regex((declined.error as { message: string }).message, /\/params\/inputResponses\/confirm\/content\/ok: recorded true, got false/);
  t.is((await s.end()).code, 1);
});

test.serial("2025 server→client requests are sent and the client's answer is checked against the recorded one", async (t) => {
  for (const [answer, code] of [
    [{ action: 'accept', content: { ok: true } }, 0],
    [{ action: 'decline' }, 1],
  ] as const) {
    const s = rawServe(t, example);
    await s.request(LEGACY_INIT);
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'confirm_action', arguments: { action: 'deploy' } } });
    const elicit = await s.next((m) => m.method === 'elicitation/create');
    t.like(elicit.params, { message: 'Really deploy?' });
    s.send({ jsonrpc: '2.0', id: elicit.id, result: answer });
    t.like(await s.next((m) => m.id === 3 && !('method' in m)), { result: { content: [{ text: 'confirmed=true action=deploy' }] } });
    const end = await s.end();
    t.is(end.code, code);
    if (code)
      t.regex(
        end.stderr,
        /mismatch: during tools\/call "confirm_action" \(session 3, seq 8\): the client answered elicitation\/create differently from the recording \(\/result\/action: recorded "accept", got "decline"/,
      );
  }
});

const req = (id: number, name: string, t: number) => ({
  seq: 0,
  t,
  direction: 'client-to-server',
  channel: 'stdin',
  kind: 'request',
  bytes: 1,
  json: {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } },
  },
});
const res = (id: number, text: string, t: number) => ({
  seq: 0,
  t,
  direction: 'server-to-client',
  channel: 'stdout',
  kind: 'response',
  bytes: 1,
  json: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], resultType: 'complete' } },
});

/** A one-session stdio cassette of `messages` (`t`: ms from the session's start) at `dir/name`. */
function stdioCassette(dir: string, name: string, messages: ReturnType<typeof req | typeof res>[]): string {
  const cassette = {
    format: 'mcp-cassette',
    version: 2,
    sessions: [
      {
        id: 'r',
        transport: 'stdio',
        startedAt: '2026-11-30T00:00:00.000Z',
        target: { command: ['dice'], cwd: '/' },
        protocol: { revision: '2026-07-28', era: 'modern', negotiation: 'envelope' },
        proxy: { pid: 1, version: '0.1.0' },
        messages: messages.map((m, i) => ({ ...m, seq: i + 1 })),
      },
    ],
  } as unknown as Cassette;
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(cassette));
  return path;
}

/** A small cassette in which one request was made three times with different answers. */
function repeatsCassette(dir: string): string {
  return stdioCassette(dir, 'dice.cassette.json', [
    req(1, 'roll', 1),
    res(1, '4', 2),
    req(2, 'roll', 3),
    res(2, '6', 4),
    req(3, 'flip', 5),
    res(3, 'heads', 6),
    req(4, 'roll', 7),
    res(4, '1', 408),
  ]);
}

const call = (id: number, name: string) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: MODERN } });
const text = (m: Record<string, unknown>) =>
  (m.result as { content: Array<{ text: string }> } | undefined)?.content[0]?.text ?? (m.error as { message: string }).message;

test.serial('identical requests get their recorded answers in recorded order; --match strict and order', async (t) => {
  const path = repeatsCassette(tempDir(t));
  const p = rawServe(t, path);
  const got = [];
  for (let i = 1; i <= 4; i++) got.push(text(await p.request(call(i, 'roll'))));
  t.deepEqual(got, ['4', '6', '1', '1'], 'params (default): recorded order, then the last answer again');
  t.is((await p.end()).code, 0);

  const s = rawServe(t, path, ['--match', 'strict']);
  t.regex(
    text(await s.request(call(0, 'roll'))),
    /\/params\/_meta\/io\.modelcontextprotocol~1clientInfo: recorded nothing, got \{"name":"someone-else"/,
    'strict compares _meta too',
  );
  const exact = (id: number) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'roll', arguments: {}, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', progressToken: id } },
  });
  t.deepEqual([text(await s.request(exact(1))), text(await s.request(exact(2))), text(await s.request(exact(3)))], ['4', '6', '1']);
  t.regex(text(await s.request(exact(4))), /every recorded answer to it was already used \(--match strict\)/);
  t.is((await s.end()).code, 1);

  const o = rawServe(t, path, ['--match', 'order']);
  t.is(text(await o.request(call(1, 'roll'))), '4');
  t.regex(text(await o.request(call(2, 'flip'))), /out of order: the next recorded request is tools\/call "roll" \(session 1, seq 3\)/);
  t.is(text(await o.request(call(3, 'roll'))), '6');
  t.is(text(await o.request(call(4, 'flip'))), 'heads');
  t.is((await o.end()).code, 1);
});

test.serial('--timing recorded and xN replay the recorded latency; fast does not', async (t) => {
  // "short" was answered 401 ms after it was asked, "long" ten minutes after. Only lower bounds
  // are timed, as a busy machine can make a wait longer but never shorter (less 1 ms: a timer
  // counts from the event loop's millisecond, which can lag the request's arrival by under 1 ms).
  // What each mode must not wait is ten minutes, far past this test's timeout: a mode that
  // waited it fails the test however fast or loaded the machine.
  const path = stdioCassette(tempDir(t), 'waits.cassette.json', [
    req(1, 'warm', 1),
    res(1, 'warm answer', 2),
    req(2, 'short', 3),
    res(2, 'short answer', 404),
    req(3, 'long', 405),
    res(3, 'long answer', 405 + 600_000),
  ]);
  t.timeout(90_000, 'a mode waited a recorded gap of ten minutes that it should have cut short or skipped');
  /** One serve process, warmed up (started and answering), then asked `name`: how long the answer took. */
  const wait = async (extra: string[], name: string): Promise<number> => {
    const s = rawServe(t, path, extra);
    t.is(text(await s.request(call(1, 'warm'))), 'warm answer');
    const start = performance.now();
    t.is(text(await s.request(call(2, name))), `${name} answer`);
    const waited = performance.now() - start;
    await s.end();
    return waited;
  };
  const [recorded, x2, fast, fastLong, x2400Long] = await Promise.all([
    wait(['--timing', 'recorded'], 'short'),
    wait(['--timing', 'x2'], 'short'),
    wait([], 'short'),
    wait([], 'long'),
    wait(['--timing', 'x2400'], 'long'),
  ]);
  t.log(
    `waited: recorded ${recorded.toFixed(0)} ms, x2 ${x2.toFixed(0)} ms, fast ${fast.toFixed(0)} ms and ${fastLong.toFixed(0)} ms (long), x2400 ${x2400Long.toFixed(0)} ms (long)`,
  );
  t.true(recorded >= 400, `recorded waited ${recorded} ms for a 401 ms gap`);
  t.true(x2 >= 199, `x2 waited ${x2} ms for a 401 ms gap (200.5 ms)`);
  t.true(x2400Long >= 249, `x2400 waited ${x2400Long} ms for a ten-minute gap (250 ms)`);
});

test.serial('missing cassette in none mode: exit 2 and a message naming the file and the mode (CLI and withCassette)', async (t) => {
  const dir = tempDir(t);
  const missing = join(dir, 'missing.cassette.json');
  for (const [args, env] of [
    [['serve', missing], process.env],
    [['serve', missing, '--mode', 'none', '--', node, 'server.js'], process.env],
    [['serve', missing, '--', node, 'server.js'], { ...process.env, MCP_CASSETTE_MODE: 'none' }],
  ] as const) {
    const r = await runCli([...args], env);
    t.is(r.code, 2);
    t.regex(r.stderr, new RegExp(`cassette ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} does not exist and record mode is none`));
    t.is(r.stdout, '', 'nothing on stdout');
  }
  let called = false;
  const err = await t.throwsAsync(
    withCassette(missing, { mode: 'none', server: [node, 'server.js'] }, () => {
      called = true;
    }),
  );
  t.is((err as { code?: string }).code, 'MCPC_CASSETTE_NOT_FOUND');
  t.false(called);
  const bad = await runCli(['serve', example, '--match', 'fuzzy']);
  t.is(bad.code, 2);
  t.regex(bad.stderr, /--match "fuzzy": use one of params, strict, order/);
});

test.serial('serve --listen binds 127.0.0.1 and refuses a foreign Host or Origin (403)', async (t) => {
  const http = await startListening(t, serveArgs(example, ['--listen', '0']));
  t.regex(http.url, /^http:\/\/127\.0\.0\.1:/);
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: { _meta: MODERN } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const ok = await fetch(http.url, { method: 'POST', headers, body });
  t.is(ok.status, 200);
  const evil = await fetch(http.url, { method: 'POST', headers: { ...headers, origin: 'http://evil.example' }, body });
  t.is(evil.status, 403);
  t.regex(
    (JSON.parse(await evil.text()) as { error: { message: string } }).error.message,
    /Origin "http:\/\/evil\.example" is not allowed/,
  );
  const port = new URL(http.url).port;
  const { request } = await import('node:http');
  const status = await new Promise<number>((resolve, reject) => {
    const r = request(
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { ...headers, host: `evil.example:${port}` } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    r.on('error', reject);
    r.end(body);
  });
  t.is(status, 403);
  t.is((await http.stop()).code, 0);
});

/** A cassette of hand-made stdio sessions: each a revision and its request/answer pairs. */
