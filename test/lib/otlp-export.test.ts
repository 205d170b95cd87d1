import test from 'ava';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Cassette, RecordedSession } from '../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../lib/message.js';
import { checkSpan, SPAN_KIND_CLIENT, SPAN_KIND_SERVER } from '../helpers/otlp-conventions.js';
import { spansOf, type DecodedSpan } from '../helpers/otlp.js';
import { cli, node, root } from '../helpers/paths.js';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);
const examples = join(root, 'cassettes', 'examples');

async function exportLines(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Record<string, unknown>[]> {
  const { stdout } = await run(node, [cli, 'export', ...args, '--format', 'otlp-json'], { env: { ...process.env, ...env } });
  return stdout
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function load(name: string): Cassette {
  return JSON.parse(readFileSync(join(examples, name), 'utf8')) as Cassette;
}

/** Client requests and notifications of a session (batches aside), each of which is one span. */
function spanMessages(s: RecordedSession): RecordedMessage[] {
  return s.messages.filter((m) => m.kind === 'request' || m.kind === 'notification');
}

test('a recorded stdio session (real server-everything) exports one span per request and notification, by the conventions, violations as events', async (t) => {
  const cassette = load('server-everything.cassette.json');
  const lines = await exportLines([join(examples, 'server-everything.cassette.json')], { OTEL_SERVICE_NAME: 'proxy-a' });
  const sessions = cassette.sessions.filter((s) => spanMessages(s).length > 0);
  t.is(lines.length, sessions.length, 'one TracesData line per session');
  lines.forEach((line, i) => {
    const session = sessions[i]!;
    const spans = spansOf(line, true);
    for (const s of spans) checkSpan(t, s, 'stdio');
    t.is(spans[0]!.resource['service.name'], 'proxy-a');
    t.is(spans[0]!.scope, 'mcp-cassette');
    // One span per request (with its answer) and per notification, named for what it did.
    const expected = spanMessages(session).map((m) => (m.json as { method: string }).method);
    t.deepEqual(spans.map((s) => s.attributes['mcp.method.name']).sort(), [...expected].sort());
    for (const s of spans) {
      t.is(s.attributes['mcp.protocol.version'], session.protocol.revision);
      t.is(s.attributes['mcp.session.id'], undefined, 'stdio carries no Mcp-Session-Id');
      // The client's requests are CLIENT spans (the proxy in the client's seat), the server's SERVER.
      const sent = spanMessages(session).find(
        (m) =>
          (m.json as { id?: unknown }).id !== undefined && String((m.json as { id: unknown }).id) === s.attributes['jsonrpc.request.id'],
      );
      if (sent) t.is(s.kind, sent.direction === 'client-to-server' ? SPAN_KIND_CLIENT : SPAN_KIND_SERVER);
    }
    const violations = spans.flatMap((s) => s.events.filter((e) => e.name === 'mcp_cassette.violation'));
    t.deepEqual(
      violations
        .map(
          (e) => `${e.attributes['mcp_cassette.rule.id']} ${e.attributes['mcp_cassette.severity']} ${e.attributes['mcp_cassette.message']}`,
        )
        .sort(),
      (session.violations ?? []).map((v) => `${v.rule} ${v.severity} ${v.message}`).sort(),
    );
    const call = spans.find((s) => s.attributes['mcp.method.name'] === 'tools/call')!;
    t.is(call.attributes['gen_ai.operation.name'], 'execute_tool');
    t.is(call.attributes['gen_ai.tool.call.arguments'], undefined, 'payloads only with --include-payloads');
    // Recorded times: the tools/call span runs from its request to its answer.
    const request = session.messages.find((m) => (m.json as { method?: string } | undefined)?.method === 'tools/call')!;
    const started = BigInt(Date.parse(session.startedAt)) * 1_000_000n + BigInt(Math.round(request.t * 1e6));
    t.true(BigInt(call.startTimeUnixNano) - started < 2000n, 'start is the request time');
  });
  // The list-changed notification the server sent is an event on the request in flight as well.
  const all = lines.flatMap((l) => spansOf(l, true));
  t.true(all.some((s) => s.events.some((e) => e.name === 'notifications/tools/list_changed')));
});

test('an HTTP cassette on 2026-07-28 (real SDK server) exports tcp spans with server.address and port, and no mcp.session.id', async (t) => {
  const cassette = load('example-server-http.cassette.json');
  const lines = await exportLines([join(examples, 'example-server-http.cassette.json')]);
  const spans = lines.flatMap((l) => spansOf(l, true));
  t.true(spans.length > 0);
  const url = new URL((cassette.sessions[0]!.target as { url: string }).url);
  for (const s of spans) {
    checkSpan(t, s, 'http');
    t.is(s.attributes['mcp.session.id'], undefined);
    if (s.kind === SPAN_KIND_CLIENT) {
      t.is(s.attributes['server.address'], url.hostname);
      t.is(s.attributes['server.port'], Number(url.port));
    }
  }
});

/** A stdio session made from the real one, with what a real session may also hold: a request
 * joined to a host trace, progress, an error answer, a tool error, a secret in the arguments. */
function extended(): Cassette {
  const cassette = load('server-everything.cassette.json');
  const s = cassette.sessions[0]!;
  let seq = s.messages.at(-1)!.seq;
  let t = s.messages.at(-1)!.t;
  const add = (direction: 'client-to-server' | 'server-to-client', json: Record<string, unknown>): void => {
    const text = JSON.stringify(json);
    s.messages.push({
      seq: ++seq,
      t: (t += 5),
      direction,
      channel: direction === 'client-to-server' ? 'stdin' : 'stdout',
      kind: 'method' in json ? ('id' in json ? 'request' : 'notification') : 'error' in json ? 'error' : 'response',
      bytes: Buffer.byteLength(text),
      json,
    });
  };
  const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
  add('client-to-server', {
    jsonrpc: '2.0',
    id: 90,
    method: 'tools/call',
    params: {
      name: 'echo',
      arguments: { message: 'key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789' },
      _meta: { traceparent, progressToken: 'p1' },
    },
  });
  add('server-to-client', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2 } });
  add('server-to-client', { jsonrpc: '2.0', id: 90, result: { content: [{ type: 'text', text: 'ok' }] } });
  add('client-to-server', { jsonrpc: '2.0', id: 91, method: 'tools/call', params: { name: 'nope' } });
  add('server-to-client', { jsonrpc: '2.0', id: 91, result: { content: [{ type: 'text', text: 'unknown' }], isError: true } });
  add('client-to-server', { jsonrpc: '2.0', id: 92, method: 'prompts/get', params: { name: 'missing' } });
  add('server-to-client', { jsonrpc: '2.0', id: 92, error: { code: -32602, message: 'Prompt missing not found' } });
  s.durationMs = t + 5;
  return cassette;
}

test('traceparent joins the host trace; progress is an event; error.type from the JSON-RPC code or tool_error; payloads redacted with --include-payloads', async (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'extended.cassette.json');
  writeFileSync(path, JSON.stringify(extended()));
  const out = join(dir, 'traces.jsonl');
  await run(node, [cli, 'export', path, '--format', 'otlp-json', '--include-payloads', '--output', out]);
  const spans = readFileSync(out, 'utf8')
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => spansOf(JSON.parse(l) as Record<string, unknown>, true));
  for (const s of spans) checkSpan(t, s, 'stdio');
  const byId = (id: string): DecodedSpan => spans.find((s) => s.attributes['jsonrpc.request.id'] === id)!;
  const joined = byId('90');
  t.is(joined.name, 'tools/call echo');
  t.is(joined.traceId, '4bf92f3577b34da6a3ce929d0e0e4736');
  t.is(joined.parentSpanId, '00f067aa0ba902b7');
  t.deepEqual(
    joined.events.map((e) => [e.name, e.attributes['mcp_cassette.progress'], e.attributes['mcp_cassette.total']]),
    [['notifications/progress', 1, 2]],
  );
  const args = String(joined.attributes['gen_ai.tool.call.arguments']);
  t.true(args.startsWith('{"message":"key '), args);
  t.false(args.includes('sk-ant-api03'), 'the key is masked');
  t.deepEqual(JSON.parse(String(joined.attributes['gen_ai.tool.call.result'])), { content: [{ type: 'text', text: 'ok' }] });
  const toolError = byId('91');
  t.is(toolError.attributes['error.type'], 'tool_error');
  t.is(toolError.attributes['rpc.response.status_code'], undefined);
  t.is(toolError.attributes['gen_ai.tool.call.result'], undefined, 'a result only when the call succeeded');
  const rpcError = byId('92');
  t.is(rpcError.name, 'prompts/get missing');
  t.is(rpcError.attributes['gen_ai.prompt.name'], 'missing');
  t.is(rpcError.attributes['error.type'], '-32602');
  t.is(rpcError.attributes['rpc.response.status_code'], '-32602');
  t.deepEqual(rpcError.status, { code: 2, message: 'Prompt missing not found' });
  // Without a traceparent a session's spans share one trace, the same on every export.
  const again = await exportLines([path]);
  t.is(spansOf(again[0]!, true).find((s) => s.attributes['jsonrpc.request.id'] === '0')!.traceId, byId('0').traceId);
});

test('export: a missing or unknown --format is a usage error that names the formats', async (t) => {
  const file = join(examples, 'example-server.cassette.json');
  const none = await run(node, [cli, 'export', file]).catch((e: { code: number; stderr: string }) => e);
  t.is((none as { code: number }).code, 2);
  t.regex((none as { stderr: string }).stderr, /export needs --format; one of .*otlp-json/);
  const bad = await run(node, [cli, 'export', file, '--format', 'zipkin']).catch((e: { code: number; stderr: string }) => e);
  t.is((bad as { code: number }).code, 2);
  t.regex((bad as { stderr: string }).stderr, /--format "zipkin" is not an export format; use one of .*otlp-json/);
});
