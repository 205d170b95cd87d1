/**
 * The protocol around the seeded tools of test/servers/fuzz-target.ts is right, so that a
 * fuzzer's protocol mutations find nothing there: every request it cannot place (a bad envelope,
 * an unknown method, a missing or foreign `_meta`, a call before the handshake, wrong HTTP headers)
 * gets a proper JSON-RPC error, with the status 2026-07-28 gives it over HTTP. Raw clients only.
 */
import test from 'ava';
import { rawHttp } from '../../lib/raw-client/http.js';
import { RawStdioProcess } from '../../lib/raw-client/stdio.js';
import { fuzzTargetCommand, startFuzzTargetHttp } from '../helpers/fuzz-target.js';

type Json = Record<string, unknown>;
const GUARD_MS = 30_000; // a guard against a hang of the test, never a measure
const PV = 'io.modelcontextprotocol/protocolVersion';
const CAPS = 'io.modelcontextprotocol/clientCapabilities';
const META = { [PV]: '2026-07-28', [CAPS]: {} };

/** What the server answers to each raw line, in order (each line a request with an id, or not
 * JSON at all), and how it exits at stdin EOF. */
async function answers(lines: string[]): Promise<{ answers: Json[]; noise: string[]; code: number | null; stderr: string[] }> {
  const p = new RawStdioProcess({ command: fuzzTargetCommand() });
  try {
    // A last request whose answer says every line before it was handled (answers come in order).
    for (const line of lines) p.send(line);
    await p.request({ jsonrpc: '2.0', id: 'last', method: 'tools/list', params: { _meta: META } }, GUARD_MS);
    const exit = await p.close(GUARD_MS);
    return { answers: (p.received as Json[]).filter((m) => m.id !== 'last'), noise: p.noise, code: exit.code, stderr: p.stderrTail };
  } finally {
    await p.close();
  }
}

const req = (id: unknown, method: string, params?: unknown): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, ...(params !== undefined ? { params } : {}) });
const errorOf = (a: Json): Json => a.error as Json;

test('stdio: envelopes it cannot place get -32700, -32600 or -32602, with the id when it can be read', async (t) => {
  const r = await answers([
    'not json',
    '[{"jsonrpc":"2.0","id":1,"method":"tools/list"}]',
    '"a string"',
    JSON.stringify({ jsonrpc: '1.0', id: 2, method: 'tools/list', params: { _meta: META } }),
    req(null, 'tools/list', { _meta: META }),
    req(1.5, 'tools/list', { _meta: META }),
    req({ a: 1 }, 'tools/list', { _meta: META }),
    JSON.stringify({ jsonrpc: '2.0', id: 3, method: 42 }),
    req(4, 'tools/list', [1, 2]),
    req(5, 'tools/list', 'params'),
  ]);
  t.deepEqual(
    r.answers.map((a) => [a.id, errorOf(a).code]),
    [
      [null, -32700],
      [null, -32600],
      [null, -32600],
      [2, -32600],
      [null, -32600],
      [null, -32600],
      [null, -32600],
      [3, -32600],
      [4, -32602],
      [5, -32602],
    ],
  );
  t.deepEqual([r.noise, r.code, r.stderr], [[], 0, []]);
});

test('stdio 2026-07-28: missing _meta fields get -32602, another version -32022 naming the supported one', async (t) => {
  const r = await answers([
    req(1, 'tools/list'),
    req(2, 'tools/list', { _meta: { [CAPS]: {} } }),
    req(3, 'tools/list', { _meta: { [PV]: '2026-07-28' } }),
    req(4, 'tools/list', { _meta: { [PV]: 20260728, [CAPS]: {} } }),
    req(5, 'tools/list', { _meta: { [PV]: '2099-01-01', [CAPS]: {} } }),
    req(6, 'tools/list', { _meta: { [PV]: '2025-11-25', [CAPS]: {} } }),
    req(7, 'no/such/method', { _meta: META }),
    req(8, 'ping', { _meta: META }),
    req(9, 'prompts/list', { _meta: META }),
    req(10, 'tools/call', { name: 'no_such_tool', arguments: {}, _meta: META }),
    req(11, 'tools/call', { name: 7, _meta: META }),
    req(12, 'tools/call', { name: 'echo', arguments: ['hi'], _meta: META }),
  ]);
  t.deepEqual(
    r.answers.map((a) => [a.id, errorOf(a).code]),
    [
      [1, -32602],
      [2, -32602],
      [3, -32602],
      [4, -32602],
      [5, -32022],
      [6, -32022],
      [7, -32601],
      [8, -32601],
      [9, -32601],
      [10, -32602],
      [11, -32602],
      [12, -32602],
    ],
  );
  t.deepEqual(errorOf(r.answers[4]!).data, { supported: ['2026-07-28'], requested: '2099-01-01' });
  t.deepEqual([r.noise, r.code, r.stderr], [[], 0, []]);
});

test('stdio 2025: initialize settles 2025-06-18 or 2025-11-25 (anything else gets 2025-11-25), once; modern requests stay modern', async (t) => {
  const init = (id: number, version: unknown) =>
    req(id, 'initialize', { protocolVersion: version, capabilities: {}, clientInfo: { name: 'x', version: '1' } });
  for (const [offer, got] of [
    ['2025-06-18', '2025-06-18'],
    ['2025-11-25', '2025-11-25'],
    ['2024-11-05', '2025-11-25'],
    ['2099-01-01', '2025-11-25'],
  ]) {
    const r = await answers([init(1, offer), init(2, offer), req(3, 'ping'), req(4, 'tools/list', { _meta: META }), req(5, 'nope')]);
    t.is((r.answers[0]!.result as Json).protocolVersion, got, `offered ${offer}`);
    t.deepEqual((r.answers[0]!.result as Json).serverInfo, { name: 'fuzz-target', version: '1.0.0' });
    t.is(errorOf(r.answers[1]!).code, -32600, 'a second initialize is refused');
    t.deepEqual(r.answers[2]!.result, {}, 'ping, a 2025 method');
    t.is((r.answers[3]!.result as Json).resultType, 'complete', 'a request with the modern _meta is served as 2026-07-28');
    t.is(errorOf(r.answers[4]!).code, -32601);
  }
  const bad = await answers([req(1, 'initialize', { capabilities: {} }), req(2, 'initialize', { protocolVersion: '2025-11-25' })]);
  t.deepEqual(
    bad.answers.map((a) => errorOf(a).code),
    [-32602, -32602],
  );
});

test('stdio: notifications, responses and cancellations get no answer', async (t) => {
  const r = await answers([
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }),
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/unknown' }),
    JSON.stringify({ jsonrpc: '2.0', id: 9, result: {} }),
  ]);
  t.deepEqual(r.answers, []);
});

test('HTTP 2026-07-28: the standard headers are checked (-32020, 400), errors carry their status, GET is 405, a foreign Origin 403', async (t) => {
  const { url } = await startFuzzTargetHttp(t);
  const headers = (method: string, extra: Record<string, string> = {}): Record<string, string> => ({
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': method,
    ...extra,
  });
  const post = async (h: Record<string, string>, body: unknown): Promise<[number | undefined, unknown]> => {
    const r = await rawHttp({ url, headers: h, body, timeoutMs: GUARD_MS });
    const m = r.messages[0] as Json | undefined;
    return [r.status, m ? ((m.error as Json | undefined)?.code ?? 'result') : r.text];
  };
  const list = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } };
  const echo = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' }, _meta: META } };
  const b64 = (s: string) => `=?base64?${Buffer.from(s).toString('base64')}?=`;
  t.deepEqual(await post(headers('tools/list'), list), [200, 'result']);
  t.deepEqual(await post(headers('prompts/list'), list), [400, -32020], 'Mcp-Method mismatch');
  const noVersion = headers('tools/list');
  delete noVersion['mcp-protocol-version'];
  t.deepEqual(await post(noVersion, list), [400, -32020], 'no MCP-Protocol-Version');
  t.deepEqual(await post(headers('tools/list', { 'mcp-protocol-version': '2025-11-25' }), list), [400, -32020]);
  t.deepEqual(await post(headers('tools/call'), echo), [400, -32020], 'no Mcp-Name');
  t.deepEqual(await post(headers('tools/call', { 'mcp-name': 'greet' }), echo), [400, -32020], 'Mcp-Name mismatch');
  t.deepEqual(await post(headers('tools/call', { 'mcp-name': 'echo' }), echo), [200, 'result']);
  t.deepEqual(await post(headers('tools/call', { 'mcp-name': b64('echo') }), echo), [200, 'result'], 'a base64 Mcp-Name');
  t.deepEqual(await post(headers('nope'), { ...list, method: 'nope' }), [404, -32601]);
  t.deepEqual(await post(headers('tools/list'), { ...list, params: {} }), [400, -32602]);
  const future = { ...list, params: { _meta: { ...META, [PV]: '2099-01-01' } } };
  t.deepEqual(await post(headers('tools/list', { 'mcp-protocol-version': '2099-01-01' }), future), [400, -32022]);
  t.deepEqual(await post(headers('tools/list'), 'not json'), [400, -32700]);
  t.deepEqual(await post(headers('tools/list'), [list]), [400, -32600]);
  const notification = await rawHttp({
    url,
    headers: headers('notifications/cancelled'),
    body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    timeoutMs: GUARD_MS,
  });
  t.is(notification.status, 202);
  t.is((await rawHttp({ url, method: 'GET', headers: { accept: 'text/event-stream' }, timeoutMs: GUARD_MS })).status, 405);
  t.is(
    (await rawHttp({ url, headers: headers('tools/list', { origin: 'http://evil.example' }), body: list, timeoutMs: GUARD_MS })).status,
    403,
  );
  t.deepEqual(await post(headers('tools/list', { origin: new URL(url).origin }), list), [200, 'result']);
  t.is((await rawHttp({ url: new URL('/other', url).href, headers: headers('tools/list'), body: list, timeoutMs: GUARD_MS })).status, 404);
});
