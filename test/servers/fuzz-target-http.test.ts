/**
 * The seeded-defect server of `mcp-cassette fuzz` over Streamable HTTP (`--http`): the same
 * defects as over stdio (fuzz-target.test.ts), with the HTTP side of each (a crash or a hang
 * leaves the request without a response; -32603 is a 500 on 2026-07-28), a 2025 session, and
 * `--fixed`. Driven with raw requests (lib/raw-client/http.ts).
 */
import { once } from 'node:events';
import test from 'ava';
import { rawHttp, type RawHttpResponse } from '../../lib/raw-client/http.js';
import { hangRequestText, startFuzzTargetHttp, TRIGGERS } from '../helpers/fuzz-target.js';
import { waitForOutput } from '../helpers/proc.js';

type Json = Record<string, unknown>;
const GUARD_MS = 60_000; // a guard against a hang of the test, never a measure
const MODERN = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz-target-test', version: '1.0.0' },
};

let nextId = 0;

/** A 2026-07-28 tools/call POST with every standard header right. */
function call(url: string, name: string, args: Json, body?: string): Promise<RawHttpResponse> {
  const msg = { jsonrpc: '2.0', id: ++nextId, method: 'tools/call', params: { name, arguments: args, _meta: META } };
  return rawHttp({
    url,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': MODERN,
      'mcp-method': 'tools/call',
      'mcp-name': name,
    },
    body: body ?? msg,
    timeoutMs: GUARD_MS,
  });
}

const first = (r: RawHttpResponse): Json => (r.messages[0] ?? {}) as Json;
const textOf = (r: RawHttpResponse): string =>
  (((first(r).result as Json | undefined)?.content as Json[] | undefined)?.[0]?.text as string) ?? '';

/** Resolves once `get()` (what a stream said so far) holds `text`. */
async function until(stream: NodeJS.ReadableStream, get: () => string, text: string): Promise<void> {
  if (!get().includes(text)) await waitForOutput(stream, () => get().includes(text), GUARD_MS);
}

test('2026-07-28: defects 3-6 over HTTP: -32603 as a 500, a panic on stderr, no stdout noise, a result without content', async (t) => {
  const { url, server, stderr, stdout } = await startFuzzTargetHttp(t);
  const misuse = await call(url, 'convert_temperature', TRIGGERS[3]!.arguments);
  t.is(misuse.status, 500);
  t.deepEqual(first(misuse).error, { code: -32603, message: 'Internal error' });

  const deep = await call(url, 'inspect_json', TRIGGERS[4]!.arguments);
  t.is(deep.status, 200);
  t.is(textOf(deep), 'an object with 1 key, nested 65 levels deep');
  await until(server.stderr!, stderr, 'goroutine 1 [running]:');
  t.regex(stderr(), /^panic: runtime error: index out of range \[64\] with length 64$/m);

  const greet = await call(url, 'greet', TRIGGERS[5]!.arguments);
  t.is(textOf(greet), 'Hello, stranger!');

  const shape = await call(url, 'word_count', TRIGGERS[6]!.arguments);
  t.is(shape.status, 200);
  t.deepEqual(first(shape).result, {
    resultType: 'complete',
    summary: '13109 words, 65541 characters',
    _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'fuzz-target', version: '1.0.0' } },
  });

  const closed = once(server, 'close');
  server.kill('SIGTERM');
  await closed;
  t.is(stdout(), `${url}\n`, 'stdout holds the URL line only: the noise defect is stdio-only');
});

test('2026-07-28: 2 hang over HTTP: the request never gets a response, while later ones do', async (t) => {
  const { url, server } = await startFuzzTargetHttp(t);
  const hang = call(url, 'parity', {}, hangRequestText(++nextId, META));
  t.is(textOf(await call(url, 'parity', { n: 10 })), '10 is even');
  t.is(textOf(await call(url, 'parity', { n: 11 })), '11 is odd');
  // Until the server goes: the hung request then ends without any response.
  const closed = once(server, 'close');
  server.kill('SIGTERM');
  await closed;
  const r = await hang;
  t.is(r.status, undefined);
  t.deepEqual(r.messages, []);
  t.false(r.timedOut, 'ended by the server going, not by the guard');
});

test('2026-07-28: 1 crash and 7 side effect over HTTP: no response, exit codes 3 and 4', async (t) => {
  for (const [n, code, name] of [
    [1, 3, 'RangeError'],
    [7, 4, 'Error'],
  ] as const) {
    const { url, server, stderr } = await startFuzzTargetHttp(t);
    const exited = once(server, 'close') as Promise<[number | null, NodeJS.Signals | null]>;
    const r = await call(url, TRIGGERS[n]!.name, TRIGGERS[n]!.arguments);
    t.is(r.status, undefined, `defect ${n}: no response`);
    t.deepEqual((await exited)[0], code);
    t.regex(stderr(), new RegExp(`^${name}: ${TRIGGERS[n]!.name}`, 'm'));
  }
});

test('2026-07-28: --fixed over HTTP answers the triggers of 1-6 with isError or proper results', async (t) => {
  const { url, server, stderr } = await startFuzzTargetHttp(t, { fixed: true });
  t.is(textOf(await call(url, 'echo', TRIGGERS[1]!.arguments)), 'left\u202eright');
  const hang = await call(url, 'parity', {}, hangRequestText(++nextId, META));
  t.is((first(hang).result as Json).isError, true);
  const misuse = await call(url, 'convert_temperature', TRIGGERS[3]!.arguments);
  t.is(misuse.status, 200);
  t.is((first(misuse).result as Json).isError, true);
  t.is(textOf(await call(url, 'inspect_json', TRIGGERS[4]!.arguments)), 'an object with 1 key, nested 65 levels deep');
  t.is(textOf(await call(url, 'word_count', TRIGGERS[6]!.arguments)), '13109 words, 65541 characters');
  const closed = once(server, 'close');
  server.kill('SIGTERM');
  await closed;
  t.is(stderr(), '');
});

test('2025-11-25 over HTTP: initialize opens a numbered session, whose calls show the defects in plain results', async (t) => {
  const { url } = await startFuzzTargetHttp(t);
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await rawHttp({
    url,
    headers,
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fuzz-target-test', version: '1.0.0' } },
    },
    timeoutMs: GUARD_MS,
  });
  t.is((first(init).result as Json).protocolVersion, '2025-11-25');
  const sid = init.headers['mcp-session-id'];
  t.is(sid, 'fuzz-target-session-1', 'numbered, so a replay compares clean');
  const session = { ...headers, 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' };
  const note = await rawHttp({ url, headers: session, body: { jsonrpc: '2.0', method: 'notifications/initialized' }, timeoutMs: GUARD_MS });
  t.is(note.status, 202);
  const post = (id: number, name: string, args: Json) =>
    rawHttp({
      url,
      headers: session,
      body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
      timeoutMs: GUARD_MS,
    });
  const ok = await post(2, 'parity', { n: 2 });
  t.deepEqual(first(ok).result, { content: [{ type: 'text', text: '2 is even' }] });
  const misuse = await post(3, 'convert_temperature', TRIGGERS[3]!.arguments);
  t.is(misuse.status, 200);
  t.deepEqual(first(misuse).error, { code: -32603, message: 'Internal error' });
  const shape = await post(4, 'word_count', TRIGGERS[6]!.arguments);
  t.deepEqual(first(shape).result, { summary: '13109 words, 65541 characters' });
  // A request for the 2025 era without the session is refused; one after DELETE too.
  const bare = await rawHttp({ url, headers, body: { jsonrpc: '2.0', id: 5, method: 'tools/list' }, timeoutMs: GUARD_MS });
  t.is(bare.status, 400);
  t.is((first(bare).error as Json).code, -32602);
  t.is((await rawHttp({ url, method: 'DELETE', headers: session, timeoutMs: GUARD_MS })).status, 200);
  const gone = await post(6, 'parity', { n: 2 });
  t.is(gone.status, 404);
  t.is((first(gone).error as Json).code, -32600);
});
