import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { LEGACY_INIT, rawServe, serveArgs, startListening } from './helpers.js';

// serve over several revisions and sessions: initialize answered with the requested revision, the
// eras kept apart, recorded notifications and batches where they were recorded (stdio and HTTP).
const examples = join(root, 'cassettes', 'examples');
const example = join(examples, 'example-server.cassette.json');
const MODERN = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'someone-else', version: '9' },
};

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
