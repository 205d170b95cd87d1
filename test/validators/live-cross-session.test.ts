import test, { type ExecutionContext } from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { validateSessions } from '../../validators/validate-sessions.js';
import { validateRecordings } from '../../validators/recording.js';
import { RULES } from '../../validators/rules/index.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { tempDir } from '../helpers/tmp.js';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { cassetteFiles, journalsIn, readJson, startDirRecorder, until } from '../recorder/rotation/dir-helpers.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'dual', version: '1' },
};
const CROSS = ['AUTH-PRM-LOCATION', 'HTTP-ERA-DETECT', 'STATE-LIST-INVARIANT'];

/** A 2026-07-28 server whose tools/list grows with every connection, that refuses an unknown
 * version with -32022 listing only 2026-07-28, and that answers prompts/list 401 without a
 * resource_metadata challenge while serving no Protected Resource Metadata at all. */
async function crossUpstream(t: ExecutionContext): Promise<string> {
  let lists = 0;
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method === 'GET') return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      const msg = JSON.parse(body) as { id: number; method: string; params?: { _meta?: Record<string, unknown> } };
      const json = (status: number, payload: object) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, ...payload }));
      };
      const serverInfo = { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } };
      if (msg.method === 'tools/list') {
        const tools = ['echo', 'secret']
          .slice(0, ++lists)
          .map((name) => ({ name, description: name, inputSchema: { type: 'object', additionalProperties: false } }));
        return json(200, { result: { resultType: 'complete', tools, ttlMs: 0, cacheScope: 'private', _meta: serverInfo } });
      }
      if (msg.method === 'server/discover')
        return json(400, {
          error: {
            code: -32022,
            message: 'Unsupported protocol version',
            data: { supported: ['2026-07-28'], requested: msg.params?._meta?.['io.modelcontextprotocol/protocolVersion'] },
          },
        });
      if (msg.method === 'initialize')
        return json(200, {
          result: { protocolVersion: '2025-11-25', capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } },
        });
      res.writeHead(401, { 'www-authenticate': 'Bearer scope="prompts:read"' }).end();
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
}

/** The traffic that breaks each rule of CROSS once, through the proxy at `url`. */
async function crossTraffic(t: ExecutionContext, url: string): Promise<void> {
  const post = async (method: string, body: object, version = '2026-07-28') => {
    const res = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'user-agent': 'dual-client/1.0',
        'mcp-protocol-version': version,
        ...(method === 'initialize' ? {} : { 'mcp-method': method }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', method, ...body }),
    });
    await res.body.text();
    return res.statusCode;
  };
  t.is(await post('tools/list', { id: 1, params: { _meta: META } }), 200);
  t.is(await post('tools/list', { id: 2, params: { _meta: META } }), 200, 'the same question again: another list');
  t.is(
    await post(
      'server/discover',
      { id: 3, params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2027-01-01' } } },
      '2027-01-01',
    ),
    400,
  );
  t.is(
    await post(
      'initialize',
      { id: 4, params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'dual', version: '1' } } },
      '2025-11-25',
    ),
    200,
    'the client falls back anyway',
  );
  t.is(await post('prompts/list', { id: 5, params: { _meta: META } }), 401);
  for (const path of ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']) {
    const res = await request(new URL(path, url), { headers: { 'user-agent': 'dual-client/1.0' } });
    await res.body.text();
    t.is(res.statusCode, 404);
  }
}

/** Every stored cross-session verdict is what `validate` finds, and each rule of CROSS is there,
 * pointing where the catalogue says: the second answer, the initialize, the 401's request. */
function sameAsOffline(t: ExecutionContext, cassette: Cassette): void {
  const stored = cassette.sessions.flatMap((s) => s.violations ?? []);
  const offline = [...validateSessions(cassette.sessions, { rules: RULES }), ...validateRecordings(cassette.sessions, { rules: RULES })];
  const key = (v: { rule: string; session: string; seq: number; path: string }) => `${v.session}#${v.seq}${v.path} ${v.rule}`;
  t.deepEqual(stored.map(key).sort(), offline.map(key).sort(), 'live verdicts equal offline verdicts, session ids and seqs included');
  t.deepEqual([...new Set(stored.map((v) => v.rule))].filter((r) => CROSS.includes(r)).sort(), CROSS);
  const at = (rule: string) => stored.find((v) => v.rule === rule)!;
  const sessionOf = (method: string) =>
    cassette.sessions.filter((s) => (s.messages[0]?.json as { method?: string } | undefined)?.method === method);
  t.is(at('STATE-LIST-INVARIANT').session, sessionOf('tools/list')[1]!.id);
  t.is(at('HTTP-ERA-DETECT').session, sessionOf('initialize')[0]!.id);
  t.is(at('AUTH-PRM-LOCATION').session, sessionOf('prompts/list')[0]!.id);
}

test('live validation of a Streamable HTTP run compares its sessions, exactly as the cassette does', async (t) => {
  const dir = tempDir(t);
  const proxy = await startHttpRecorder(t, await crossUpstream(t), join(dir, 'cross.cassette.json'), ['--log-level', 'info']);
  await crossTraffic(t, proxy.url);
  const { cassette, result } = await proxy.stop();
  for (const rule of CROSS) t.regex(result.stderr, new RegExp(rule), `${rule} alerted live`);
  sameAsOffline(t, cassette);
});

test('with --cassette-dir the sessions are compared as each cassette is written: the same verdicts, stored and summed in the log', async (t) => {
  const dir = join(tempDir(t), 'cassettes');
  const proxy = await startDirRecorder(t, await crossUpstream(t), dir);
  await crossTraffic(t, proxy.url);
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  await until(() => journalsIn(dir).length === 0, 'the fold');
  const files = cassetteFiles(dir);
  t.is(files.length, 1);
  sameAsOffline(t, readJson(files[0]!));
  const written = end.stderr
    .split('\n')
    .filter((l) => l.includes('while the cassette was written'))
    .map((l) => JSON.parse(l) as { summary: { rule: string }[] })[0];
  t.truthy(written, end.stderr);
  t.deepEqual(
    written!.summary
      .map((r) => r.rule)
      .filter((r) => CROSS.includes(r))
      .sort(),
    CROSS,
  );
});

// Serial: the live verdicts come from a worker the recorder waits for a bounded time when it
// stops; recorders running side by side on a busy machine can starve it.
test.serial('stateless exchanges share the server context of their caller only: one server, two tokens, two tool lists', async (t) => {
  const dir = tempDir(t);
  // A 2026-07-28 server that lists its tools in one order to token B, and to token A first in
  // the other order, then in B's: only A's second list breaks the order A was shown.
  const seen = new Map<string, number>();
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number };
      const who = req.headers.authorization ?? '';
      const n = (seen.get(who) ?? 0) + 1;
      seen.set(who, n);
      const names = who === 'Bearer token-a' && n === 1 ? ['echo', 'extra'] : ['extra', 'echo'];
      const tools = names.map((name) => ({ name, description: name, inputSchema: { type: 'object', additionalProperties: false } }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          jsonrpc: '2.0',
          id: msg.id,
          result: {
            resultType: 'complete',
            tools,
            ttlMs: 0,
            cacheScope: 'private',
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } },
          },
        }),
      );
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const path = join(dir, 'callers.cassette.json');
  const proxy = await startHttpRecorder(t, `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`, path, [
    '--log-level',
    'info',
  ]);
  const list = async (id: number, token: string) => {
    const res = await request(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: META } }),
    });
    await res.body.text();
  };
  await list(1, 'token-a');
  await list(2, 'token-b');
  await list(3, 'token-a');
  const { cassette } = await proxy.stop();
  const raw = readFileSync(path, 'utf8');
  t.false(raw.includes('token-a') || raw.includes('token-b'), 'the tokens never reach the cassette');
  const callers = cassette.sessions.map((s) => s.exchanges![0]!.caller);
  t.true(callers.every((c) => typeof c === 'string' && c.length === 16));
  t.is(callers[0], callers[2], 'one token, one caller');
  t.not(callers[0], callers[1], 'two tokens, two callers');
  const stored = cassette.sessions.flatMap((s) => s.violations ?? []).filter((v) => v.rule === 'TOOLS-LIST-ORDER');
  const offline = validateSessions(cassette.sessions, { rules: RULES }).filter((v) => v.rule === 'TOOLS-LIST-ORDER');
  const key = (v: { rule: string; session: string; seq: number; path: string }) => `${v.session}#${v.seq}${v.path} ${v.rule}`;
  t.deepEqual(stored.map(key), offline.map(key), 'live verdicts equal offline verdicts');
  // Token A's second list is compared with token A's first, never with token B's (which one
  // shared context would have reported instead).
  t.is(offline.length, 1);
  t.like(offline[0], { session: cassette.sessions[2]!.id, seq: 2, path: '/result/tools' });
  t.regex(offline[0]!.message, new RegExp(`the answer of HTTP exchange ${cassette.sessions[0]!.exchanges![0]!.id}`));
});

test.serial('overlapping stateless exchanges are judged in the order they completed, live as offline', async (t) => {
  const dir = tempDir(t);
  // A 2026-07-28 server that holds its second tools/list answer (which adds `x`) until it has
  // answered a call of `x`, made meanwhile, with an isError result: when that answer came, `x`
  // was not a listed tool (TOOLS-ERR-PROTOCOL).
  let listed = 0;
  let heldArrived!: () => void;
  const arrived = new Promise<void>((r) => (heldArrived = r));
  let callAnswered!: () => void;
  const answered = new Promise<void>((r) => (callAnswered = r));
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string };
      const answer = (result: object) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            result: { resultType: 'complete', ...result, _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } } },
          }),
        );
      };
      if (msg.method === 'tools/call') {
        res.on('finish', callAnswered);
        return answer({ content: [{ type: 'text', text: 'no such tool' }], isError: true });
      }
      const names = ++listed === 1 ? ['echo'] : ['echo', 'x'];
      const list = () =>
        answer({
          tools: names.map((name) => ({ name, inputSchema: { type: 'object', additionalProperties: false } })),
          ttlMs: 0,
          cacheScope: 'private',
        });
      if (listed === 1) return list();
      heldArrived();
      void answered.then(list);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const proxy = await startHttpRecorder(
    t,
    `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`,
    join(dir, 'overlap.cassette.json'),
    ['--log-level', 'info'],
  );
  const post = async (id: number, method: string, params: object = {}) => {
    const res = await request(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        authorization: 'Bearer t',
        ...(method === 'tools/call' ? { 'mcp-name': 'x' } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
    });
    await res.body.text();
  };
  await post(1, 'tools/list');
  const held = post(2, 'tools/list');
  await arrived;
  await post(3, 'tools/call', { name: 'x', arguments: {} });
  await held;
  const { cassette } = await proxy.stop();
  const mine = new Set(['TOOLS-ERR-PROTOCOL']);
  const key = (v: { rule: string; session: string; seq: number; path: string }) => `${v.session}#${v.seq}${v.path} ${v.rule}`;
  const stored = cassette.sessions.flatMap((s) => s.violations ?? []).filter((v) => mine.has(v.rule));
  const offline = validateSessions(cassette.sessions, { rules: RULES }).filter((v) => mine.has(v.rule));
  t.deepEqual(stored.map(key).sort(), offline.map(key).sort(), 'live verdicts equal offline verdicts');
  const sessionOf = (id: number) => cassette.sessions.find((s) => (s.messages[0]?.json as { id?: number } | undefined)?.id === id)!.id;
  t.deepEqual(offline.map(key), [`${sessionOf(3)}#2/result/isError TOOLS-ERR-PROTOCOL`]);
});
