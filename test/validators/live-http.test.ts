import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { validateSessions } from '../../validators/validate-sessions.js';
import { RULES } from '../../validators/rules/index.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { waitForOutput } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};

test('live validation of Streamable HTTP: alerts while traffic flows, verdicts stored with the final session ids and seqs', async (t) => {
  const dir = tempDir(t);
  // A 2026-07-28 server that forgets resultType and serverInfo, mints a session id, and sends
  // progress for a token the client never asked for, and streams without X-Accel-Buffering: no.
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const id = (JSON.parse(body) as { id: number }).id;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 'nope' });
      res.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } })}\n\n`,
      );
      res.end(`data: ${JSON.stringify({ jsonrpc: '2.0', id, result: { tools: [], ttlMs: 0, cacheScope: 'private' } })}\n\n`);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const cassettePath = join(dir, 'live-http.cassette.json');
  const proxy = await startHttpRecorder(t, `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`, cassettePath, [
    '--log-level',
    'info',
    '--fail-on',
    'error',
  ]);
  // The alert comes while the proxy runs, so it is waited for before the stop: on a starved
  // machine a stop right after the traffic cut the validator off while it still loaded (the
  // cassette write then judged every message, and no alert line was printed; seen at load 12).
  const alerted = waitForOutput(proxy.child.stderr!, (s) => s.includes('ERROR ENV-RESULTTYPE-PRESENT'));
  for (const id of [1, 2]) {
    const res = await request(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: META } }),
    });
    t.regex(await res.body.text(), /"tools":\[\]/, 'the client gets the answer unchanged');
  }
  await alerted;
  const { cassette, result } = await proxy.stop();
  t.is(result.code, 1, '--fail-on error tripped');
  // The line names the session, as the cassette does (the server's Mcp-Session-Id groups both exchanges).
  t.regex(
    result.stderr,
    new RegExp(`ERROR ENV-RESULTTYPE-PRESENT \\(session ${cassette.sessions[0]!.id} message #3 S>C /result/resultType\\)`),
  );
  t.is(cassette.sessions.length, 1);
  const stored = cassette.sessions.flatMap((s) => s.violations ?? []);
  // SEC-LOCAL-HTTP-OPEN: the upstream is on 127.0.0.1 and answers without any Authorization.
  t.deepEqual([...new Set(stored.map((v) => v.rule))].sort(), [
    'ENV-RESULTTYPE-PRESENT',
    'ENV-SERVERINFO',
    'HTTP-NO-SESSION',
    'HTTP-XACCEL',
    'PROG-ACTIVE-ONLY',
    'SEC-LOCAL-HTTP-OPEN',
  ]);
  // Live verdicts carry the cassette's session ids and message numbers: the offline validator agrees.
  const offline = validateSessions(cassette.sessions, { rules: RULES });
  const key = (v: { rule: string; session: string; seq: number; path: string }) => `${v.session}#${v.seq}${v.path} ${v.rule}`;
  t.deepEqual(stored.map(key).sort(), offline.map(key).sort());
});

test('live validation judges whole exchanges too (status and headers, bodies or not) exactly as the cassette does', async (t) => {
  const dir = tempDir(t);
  // A 2026-07-28 server that answers a bad token with 403 error="invalid_token" and no body,
  // accepts a notification with 200 instead of 202, and keeps a stream open after its response.
  const upstream = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id?: number; method: string };
      if (msg.id === undefined) return void res.writeHead(200).end();
      if (msg.method === 'tools/list') {
        res.writeHead(403, {
          'www-authenticate':
            'Bearer error="invalid_token", scope="tools:read", resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource"',
        });
        return void res.end();
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' });
      res.write(
        `data: ${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { resultType: 'complete', content: [], _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } } } })}\n\n`,
      );
      setTimeout(() => res.end(), 2500);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const proxy = await startHttpRecorder(
    t,
    `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`,
    join(dir, 'exchanges.cassette.json'),
    ['--log-level', 'info'],
  );
  const post = async (method: string, body: object, extra: Record<string, string> = {}) => {
    const res = await request(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        authorization: 'Bearer t0ken',
        ...extra,
      },
      body: JSON.stringify({ jsonrpc: '2.0', method, ...body }),
    });
    await res.body.text();
    return res.statusCode;
  };
  t.is(await post('tools/list', { id: 1, params: { _meta: META } }), 403);
  t.is(await post('notifications/initialized', {}), 200);
  await post('tools/call', { id: 2, params: { name: 'add', arguments: {}, _meta: META } }, { 'mcp-name': 'add' });
  const { cassette, result } = await proxy.stop();
  t.regex(result.stderr, /AUTH-STATUS-MAP/, 'alerted live');
  const stored = cassette.sessions.flatMap((s) => s.violations ?? []);
  const offline = validateSessions(cassette.sessions, { rules: RULES });
  const key = (v: { rule: string; session: string; seq: number; path: string }) => `${v.session}#${v.seq}${v.path} ${v.rule}`;
  t.deepEqual(stored.map(key).sort(), offline.map(key).sort());
  // HTTP-NO-CLIENT-NOTIF: notifications/initialized has no place on 2026-07-28 HTTP.
  t.deepEqual([...new Set(stored.map((v) => v.rule))].sort(), [
    'AUTH-STATUS-MAP',
    'HTTP-NO-CLIENT-NOTIF',
    'HTTP-NOTIF-202',
    'HTTP-SSE-END',
  ]);
  for (const v of stored.filter((x) => x.rule !== 'HTTP-NO-CLIENT-NOTIF'))
    t.is(v.seq, 1, `${v.rule} points at the exchange's first message`);
});
