import test from 'ava';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { request } from 'undici';
import { validateSessions } from '../../validators/validate-sessions.js';
import { RULES } from '../../validators/rules/index.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { tempDir } from '../helpers/tmp.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
};
const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } };
const b64 = (v: object): string => Buffer.from(JSON.stringify(v)).toString('base64url');
/** A JWT access token (the signature is never checked, by anyone here). */
const JWT = `${b64({ alg: 'RS256', typ: 'at+jwt' })}.${b64({ iss: 'https://idp.example.net', aud: ['https://mcp.example.com/mcp'], sub: 'user-1', email: 'ada@example.com', scope: 'mcp:tools' })}.c2lnbmF0dXJlLXRvcHNlY3JldA`;

test("a real recording keeps the Protected Resource Metadata and a JWT's iss and aud, and judges them live as offline", async (t) => {
  const dir = tempDir(t);
  // A 2026-07-28 server whose metadata names no authorization server, and that ends a tools/call
  // stream unanswered after a retry hint (the 2025 polling pattern).
  const prm = JSON.stringify({ resource: 'http://127.0.0.1/mcp', scopes_supported: ['mcp:tools'] });
  const upstream = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/oauth-protected-resource/mcp') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(prm);
    }
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const msg = JSON.parse(body) as { id: number; method: string };
      if (msg.method === 'tools/list') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return void res.end(
          JSON.stringify({
            jsonrpc: '2.0',
            id: msg.id,
            result: { resultType: 'complete', _meta: SERVER_INFO, tools: [], ttlMs: 0, cacheScope: 'private' },
          }),
        );
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'x-accel-buffering': 'no' });
      res.end('id: e1\nretry: 1000\ndata:\n\n');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => upstream.close());
  const cassettePath = join(dir, 'auth.cassette.json');
  const proxy = await startHttpRecorder(t, `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`, cassettePath, [
    '--log-level',
    'info',
  ]);

  const wellKnown = await request(new URL('/.well-known/oauth-protected-resource/mcp', proxy.url));
  t.is(await wellKnown.body.text(), prm, 'the client gets the document unchanged');
  const post = async (method: string, id: number, params: object, extra: Record<string, string> = {}) => {
    const res = await request(proxy.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': method,
        authorization: `Bearer ${JWT}`,
        ...extra,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
    });
    return res.body.text();
  };
  await post('tools/list', 1, {});
  await post('tools/call', 2, { name: 'slow', arguments: {} }, { 'mcp-name': 'slow' });
  const { cassette, result } = await proxy.stop();
  t.regex(result.stderr, /AUTH-PRM-AS/, 'alerted live');

  const exchanges = cassette.sessions.flatMap((s) => s.exchanges ?? []);
  const metadata = exchanges.find((x) => x.path === '/.well-known/oauth-protected-resource/mcp')!;
  t.is(metadata.responseBody, prm, 'the metadata document is kept');
  const list = exchanges.find((x) => x.mcp && x.id !== metadata.id)!;
  t.deepEqual(list.tokenClaims, { iss: 'https://idp.example.net', aud: ['https://mcp.example.com/mcp'] }, 'only iss and aud of the token');
  t.is(list.requestHeaders.authorization, 'Bearer [REDACTED]');
  const text = readFileSync(cassettePath, 'utf8');
  t.false(
    text.includes('ada@example.com') || text.includes(JWT.split('.')[1]!) || text.includes('c2lnbmF0dXJl'),
    'no other claim and no token part reaches disk',
  );

  // The verdicts stored live are the ones the cassette gives offline (for the rules tested here).
  const mine = new Set(['AUTH-PRM-AS', 'HTTP-NO-RESUME', 'AUTH-OWN-AS-ONLY']);
  const key = (v: { rule: string; session: string; seq: number; path: string }) => `${v.session}#${v.seq}${v.path} ${v.rule}`;
  const stored = cassette.sessions.flatMap((s) => s.violations ?? []).filter((v) => mine.has(v.rule));
  const offline = validateSessions(cassette.sessions, { rules: RULES }).filter((v) => mine.has(v.rule));
  t.deepEqual(stored.map(key).sort(), offline.map(key).sort());
  // The metadata has no message to point at (seq 0); the server at 127.0.0.1 has no known public
  // name, so the token's audience is not judged.
  t.deepEqual(stored.map((v) => `${v.rule} #${v.seq}`).sort(), ['AUTH-PRM-AS #0', 'HTTP-NO-RESUME #1']);
});
