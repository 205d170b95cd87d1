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

/** A small cassette in which one request was made three times with different answers. */
function repeatsCassette(dir: string): string {
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
  const messages = [
    req(1, 'roll', 1),
    res(1, '4', 2),
    req(2, 'roll', 3),
    res(2, '6', 4),
    req(3, 'flip', 5),
    res(3, 'heads', 6),
    req(4, 'roll', 7),
    res(4, '1', 408),
  ].map((m, i) => ({ ...m, seq: i + 1 }));
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
        messages,
      },
    ],
  } as unknown as Cassette;
  const path = join(dir, 'dice.cassette.json');
  writeFileSync(path, JSON.stringify(cassette));
  return path;
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
  const path = repeatsCassette(tempDir(t));
  // The three modes side by side, each warmed up; then the same request, recorded 401 ms after its
  // own, goes to all three in one turn. The order of the answers says which waited longer (fast
  // none, x2 half, recorded all) however loaded the machine; only lower bounds are timed, as a
  // slow machine can make a wait longer but never shorter.
  const modes = { fast: [], x2: ['--timing', 'x2'], recorded: ['--timing', 'recorded'] } as const;
  const sessions = Object.entries(modes).map(([name, extra]) => ({ name, s: rawServe(t, path, [...extra]) }));
  for (const { s } of sessions) for (let i = 1; i <= 3; i++) await s.request(call(i, i === 3 ? 'flip' : 'roll'));
  const order: string[] = [];
  const waited = new Map<string, number>();
  await Promise.all(
    sessions.map(async ({ name, s }) => {
      const start = performance.now();
      t.is(text(await s.request(call(4, 'roll'))), '1');
      waited.set(name, performance.now() - start);
      order.push(name);
    }),
  );
  t.deepEqual(order, ['fast', 'x2', 'recorded'], 'answers come in the order of the waits each mode replays');
  t.true(waited.get('recorded')! >= 390, `recorded waited ${waited.get('recorded')} ms`);
  t.true(waited.get('x2')! >= 190, `x2 waited ${waited.get('x2')} ms`);
  for (const { s } of sessions) await s.end();
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
function cassetteOf(
  dir: string,
  name: string,
  sessions: Array<{ revision: string; pairs: Array<[Record<string, unknown>, Record<string, unknown>, Array<Record<string, unknown>>?]> }>,
): string {
  const built = sessions.map((s, i) => {
    const messages = s.pairs
      .flatMap(([req, res, after = []], k) =>
        [
          {
            direction: 'client-to-server',
            channel: 'stdin',
            kind: 'id' in req ? 'request' : 'notification',
            json: { jsonrpc: '2.0', ...req },
          },
          ...(Object.keys(res).length > 0
            ? [
                {
                  direction: 'server-to-client',
                  channel: 'stdout',
                  kind: 'error' in res ? 'error' : 'response',
                  json: { jsonrpc: '2.0', id: req.id, ...res },
                },
              ]
            : []),
          ...after.map((n) => ({ direction: 'server-to-client', channel: 'stdout', kind: 'notification', json: { jsonrpc: '2.0', ...n } })),
        ].map((m) => ({ ...m, bytes: 1, t: k })),
      )
      .map((m, j) => ({ ...m, seq: j + 1 }));
    const modern = s.revision >= '2026-07-28';
    return {
      id: `s${i}`,
      transport: 'stdio',
      startedAt: `2026-11-30T00:00:0${i}.000Z`,
      target: { command: ['x'], cwd: '/' },
      protocol: { revision: s.revision, era: modern ? 'modern' : 'legacy', negotiation: modern ? 'envelope' : 'initialize' },
      proxy: { pid: 1, version: '0.1.0' },
      messages,
    };
  });
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ format: 'mcp-cassette', version: 2, sessions: built }));
  return path;
}

const init = (id: number, revision: string) => ({
  id,
  method: 'initialize',
  params: { protocolVersion: revision, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
});
const initAnswer = (revision: string) => ({
  result: { protocolVersion: revision, capabilities: { tools: {} }, serverInfo: { name: `server-${revision}`, version: '1' } },
});
const echo = (id: number) => ({ id, method: 'tools/call', params: { name: 'echo', arguments: {} } });
const said = (text: string) => ({ result: { content: [{ type: 'text', text }] } });

test.serial(
  'initialize is answered with the requested revision when the cassette has several; that session answers what follows',
  async (t) => {
    const path = cassetteOf(tempDir(t), 'revisions.cassette.json', [
      {
        revision: '2025-06-18',
        pairs: [
          [init(0, '2025-06-18'), initAnswer('2025-06-18')],
          [echo(1), said('from 2025-06-18')],
        ],
      },
      {
        revision: '2025-11-25',
        pairs: [
          [init(0, '2025-11-25'), initAnswer('2025-11-25')],
          [echo(1), said('from 2025-11-25')],
        ],
      },
    ]);
    for (const revision of ['2025-06-18', '2025-11-25']) {
      const s = rawServe(t, path);
      t.like(await s.request({ jsonrpc: '2.0', ...init(10, revision) }), {
        id: 10,
        result: { protocolVersion: revision, serverInfo: { name: `server-${revision}` } },
      });
      t.like(await s.request({ jsonrpc: '2.0', ...echo(11) }), { id: 11, result: { content: [{ text: `from ${revision}` }] } });
      t.is((await s.end()).code, 0);
    }
    // A revision the cassette lacks gets a recorded answer, as a server counter-offers its own.
    const other = rawServe(t, path);
    t.like(await other.request({ jsonrpc: '2.0', ...init(1, '2024-11-05') }), { id: 1, result: { protocolVersion: '2025-06-18' } });
    await other.end();
  },
);

test.serial(
  'a 2025-era client is never served a 2026-07-28 input_required result: the request is unmatched, with the closest named',
  async (t) => {
    const confirm = (id: number, meta: boolean) => ({
      id,
      method: 'tools/call',
      params: { name: 'confirm', arguments: {}, ...(meta ? { _meta: MODERN } : {}) },
    });
    const path = cassetteOf(tempDir(t), 'eras.cassette.json', [
      {
        revision: '2025-11-25',
        pairs: [
          [init(0, '2025-11-25'), initAnswer('2025-11-25')],
          [echo(1), said('legacy echo')],
        ],
      },
      {
        revision: '2026-07-28',
        pairs: [
          [
            confirm(1, true),
            {
              result: {
                resultType: 'input_required',
                inputRequests: { ok: { method: 'elicitation/create', params: { message: 'ok?' } } },
                requestState: 'r1',
              },
            },
          ],
          [echo(2), said('modern echo')],
        ],
      },
    ]);
    const s = rawServe(t, path);
    await s.request({ jsonrpc: '2.0', ...init(0, '2025-11-25') });
    const answer = await s.request({ jsonrpc: '2.0', ...confirm(5, false) });
    t.like(answer, { id: 5, error: { code: -32099, data: { code: 'MCPC_SERVE_NO_MATCH' } } });
    t.regex((answer.error as { message: string }).message, /tools\/call "confirm": no recorded request matches/);
    t.is((await s.end()).code, 1);
    const m = rawServe(t, path);
    t.like(await m.request({ jsonrpc: '2.0', ...confirm(5, true) }), {
      id: 5,
      result: { resultType: 'input_required', requestState: 'r1' },
    });
    t.is((await m.end()).code, 0);
  },
);

test.serial(
  "HTTP: recorded progress and log notifications are SSE events before the answer, with the caller's token and id; a JSON-only client gets the answer alone",
  async (t) => {
    const http = await startListening(t, serveArgs(example, ['--listen', '0']));
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const init = await fetch(http.url, { method: 'POST', headers, body: JSON.stringify(LEGACY_INIT) });
    const session = init.headers.get('mcp-session-id');
    t.truthy(session, 'a stdio recording is served statefully');
    await init.text();
    const sessionHeaders = { ...headers, 'mcp-session-id': session!, 'mcp-protocol-version': '2025-11-25' };
    await (
      await fetch(http.url, {
        method: 'POST',
        headers: sessionHeaders,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
    ).text();
    const count = {
      jsonrpc: '2.0',
      id: 'caller-9',
      method: 'tools/call',
      params: { name: 'count_slowly', arguments: { n: 3 }, _meta: { progressToken: 'tok' } },
    };
    const res = await fetch(http.url, { method: 'POST', headers: sessionHeaders, body: JSON.stringify(count) });
    t.is(res.headers.get('content-type'), 'text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter((e) => e.trim())
      .map(
        (e) =>
          JSON.parse(
            e
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6),
          ) as Record<string, unknown>,
      );
    t.deepEqual(
      events.map((e) => e.method ?? 'answer'),
      [
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'notifications/progress',
        'notifications/message',
        'answer',
      ],
    );
    t.deepEqual(
      events.filter((e) => e.method === 'notifications/progress').map((e) => (e.params as { progressToken: unknown }).progressToken),
      ['tok', 'tok', 'tok'],
    );
    t.like(events.at(-1), { id: 'caller-9', result: { content: [{ text: 'counted to 3' }] } });

    const plain = await fetch(http.url, {
      method: 'POST',
      headers: { ...sessionHeaders, accept: 'application/json' },
      body: JSON.stringify({ ...count, id: 10 }),
    });
    t.is(plain.headers.get('content-type'), 'application/json');
    t.like(await plain.json(), { id: 10, result: { content: [{ text: 'counted to 3' }] } });
    t.is((await http.stop()).code, 0);
  },
);

test.serial(
  'HTTP: an unmatched request gets the JSON-RPC error; ending the server (SIGTERM) exits 1 with the summary on stderr',
  async (t) => {
    const http = await startListening(t, serveArgs(example, ['--listen', '0']));
    const res = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2026-07-28' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'h1',
        method: 'tools/call',
        params: { name: 'add', arguments: { a: 2, b: 30 }, _meta: MODERN },
      }),
    });
    t.is(res.status, 200);
    const answer = (await res.json()) as { id: string; error: { code: number; message: string } };
    t.is(answer.id, 'h1');
    t.is(answer.error.code, -32099);
    t.regex(
      answer.error.message,
      /closest recorded request: tools\/call "add" \(session 2, seq 3\); \/params\/arguments\/b: recorded 3, got 30/,
    );
    const end = await http.stop();
    t.is(end.code, 1);
    t.regex(end.stderr, /mcp-cassette serve: FAILED: 0 answered from the cassette, 1 unmatched, 0 client answer mismatches, 7 unused/);
    t.regex(end.stderr, /unmatched: tools\/call "add": no recorded request matches/);
  },
);

test.serial(
  '2025-03-26 batches: one array of answers, after the frames recorded before them (stdio lines; HTTP SSE events, or a JSON array without SSE)',
  async (t) => {
    const batch = [
      {
        jsonrpc: '2.0',
        id: 'b1',
        method: 'tools/call',
        params: { name: 'count_slowly', arguments: { n: 3 }, _meta: { progressToken: 'bt' } },
      },
      { jsonrpc: '2.0', id: 'b2', method: 'tools/call', params: { name: 'add', arguments: { a: 2, b: 3 } } },
    ];
    const s = rawServe(t, example);
    await s.request(LEGACY_INIT);
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const lines: unknown[] = [];
    const arrived = new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        lines.push(...s.received.splice(0));
        if (lines.some(Array.isArray)) {
          clearInterval(poll);
          resolve();
        }
      }, 20);
    });
    s.send(batch as unknown as Record<string, unknown>);
    await arrived;
    const answers = lines.find(Array.isArray) as Array<Record<string, unknown>>;
    t.deepEqual(answers.map((a) => a.id).sort(), ['b1', 'b2']);
    t.like(
      answers.find((a) => a.id === 'b2'),
      { result: { structuredContent: { sum: 5 } } },
    );
    t.deepEqual(
      (lines.slice(0, lines.indexOf(answers)) as Array<Record<string, unknown>>)
        .filter((m) => m.method === 'notifications/progress')
        .map((m) => (m.params as { progressToken: string }).progressToken),
      ['bt', 'bt', 'bt'],
    );
    t.is((await s.end()).code, 0);

    const http = await startListening(t, serveArgs(example, ['--listen', '0']));
    const init = await fetch(http.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(LEGACY_INIT),
    });
    const headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': init.headers.get('mcp-session-id')!,
      'mcp-protocol-version': '2025-11-25',
    };
    await init.text();
    const sse = await fetch(http.url, { method: 'POST', headers, body: JSON.stringify(batch) });
    t.is(sse.headers.get('content-type'), 'text/event-stream');
    const events = (await sse.text())
      .split('\n\n')
      .filter((e) => e.trim())
      .map(
        (e) =>
          JSON.parse(
            e
              .split('\n')
              .find((l) => l.startsWith('data: '))!
              .slice(6),
          ) as Record<string, unknown>,
      );
    t.is(events.filter((e) => e.method === 'notifications/progress').length, 3);
    t.deepEqual(
      events.filter((e) => !('method' in e)).map((e) => e.id),
      ['b1', 'b2'],
    );
    const json = await fetch(http.url, {
      method: 'POST',
      headers: { ...headers, accept: 'application/json' },
      body: JSON.stringify(batch.map((m) => ({ ...m, id: `${m.id}j` }))),
    });
    t.is(json.headers.get('content-type'), 'application/json');
    t.deepEqual(
      ((await json.json()) as Array<{ id: string }>).map((a) => a.id),
      ['b1j', 'b2j'],
    );
    t.is((await http.stop()).code, 0);
  },
);

test.serial("HTTP: a notification recorded after an answer goes to the session's GET stream when the client opened one", async (t) => {
  const changed = { method: 'notifications/tools/list_changed' };
  const path = cassetteOf(tempDir(t), 'after.cassette.json', [
    {
      revision: '2025-11-25',
      pairs: [
        [init(0, '2025-11-25'), initAnswer('2025-11-25')],
        [{ method: 'notifications/initialized' }, {}],
        [{ id: 1, method: 'tools/call', params: { name: 'install', arguments: {} } }, said('installed'), [changed]],
      ],
    },
  ]);
  const http = await startListening(t, serveArgs(path, ['--listen', '0']));
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const open = async () => {
    const res = await fetch(http.url, {
      method: 'POST',
      headers: base,
      body: JSON.stringify({ jsonrpc: '2.0', ...init(0, '2025-11-25') }),
    });
    await res.text();
    return { ...base, 'mcp-session-id': res.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-11-25' };
  };
  const install = (headers: Record<string, string>, id: number) =>
    fetch(http.url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'install', arguments: {} } }),
    });

  // With a GET stream: the answer alone on the POST, the notification on the GET stream.
  const withGet = await open();
  const get = await fetch(http.url, {
    method: 'GET',
    headers: { accept: 'text/event-stream', 'mcp-session-id': withGet['mcp-session-id'] },
  });
  t.is(get.status, 200);
  const reader = get.body!.getReader();
  const answer = await install(withGet, 7);
  t.like(await answer.json(), { id: 7, result: { content: [{ text: 'installed' }] } });
  let streamed = '';
  while (!streamed.includes('\n\n')) streamed += new TextDecoder().decode((await reader.read()).value);
  t.like(JSON.parse(streamed.split('data: ')[1]!.split('\n')[0]!), changed);
  await reader.cancel();

  // Without one, a JSON answer is all the client gets, as from a real server with no stream open.
  const withoutGet = await open();
  const plain = await install(withoutGet, 8);
  t.is(plain.headers.get('content-type'), 'application/json');
  t.like(await plain.json(), { id: 8, result: { content: [{ text: 'installed' }] } });
  t.is((await http.stop()).code, 0);
});
