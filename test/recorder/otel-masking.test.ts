import test, { type ExecutionContext } from 'ava';
import { join } from 'node:path';
import { metricAttributes, ListedNames, OTEL_OTHER } from '../../lib/telemetry/metric-attributes.js';
import type { McpSpanData } from '../../lib/telemetry/spans.js';
import { filesHolding } from '../helpers/capture.js';
import { receivedHistograms, receivedSpans, startOtlpReceiver } from '../helpers/otlp.js';
import { everythingServer, node } from '../helpers/paths.js';
import { spawnTracked } from '../helpers/proc.js';
import { PipeTransport, v2Client } from '../helpers/real-server.js';
import { recordArgs, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

/**
 * `record --otel --include-payloads` with credentials planted where a span carries traffic: tool
 * arguments, tool results, resource URIs, and the server's error message that repeats a URI. A
 * real recording (the official v2 client, server-everything over stdio) sends its spans to a real
 * OTLP/HTTP receiver; none of the credentials reaches it, and each span still carries the masked
 * shape (`Bearer [REDACTED]`, `alice:[REDACTED]@`, `api_key=[REDACTED]`).
 */
const AWS = 'AKIAPLANTED0KEY12345';
const GITHUB = 'ghp_PlantedGithubToken0123456789';
const BEARER = 'Bearer b3arerT0ken.Planted-abcdefgh1234';
const URL_WITH_SECRETS = 'https://alice:S3cretPassw0rd@example.com/data?api_key=QueryKey123456&page=2';
const URL_MASKED = 'https://alice:[REDACTED]@example.com/data?api_key=[REDACTED]&page=2';
/** What no byte sent to the receiver (or written to disk) may hold. */
const NEEDLES = ['PLANTED0KEY', 'PlantedGithubToken', 'b3arerT0ken', 'S3cretPassw0rd', 'QueryKey123456', 'diary-entry-7'];

/** `record --otel --include-payloads <extra> -- server-everything`, its spans to a real OTLP
 * receiver, and the v2 client connected through it. */
async function recordOtel(t: ExecutionContext, extra: string[]) {
  const receiver = await startOtlpReceiver(t);
  const dir = tempDir(t);
  const path = join(dir, 'otel.cassette.json');
  const child = spawnTracked(t, node, recordArgs(path, [node, everythingServer, 'stdio'], ['--otel', '--include-payloads', ...extra]), {
    cwd: dir,
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url },
  });
  const client = v2Client();
  await client.connect(new PipeTransport(child));
  return { receiver, dir, path, child, client };
}

test('record --otel --include-payloads: credentials in tool arguments, results, resource URIs and error messages never reach the OTLP receiver; spans carry them masked', async (t) => {
  const { receiver, dir, path, child, client } = await recordOtel(t, ['--redact-path', '/params/arguments/note']);
  const message = `${AWS} ${GITHUB} ${BEARER} ${URL_WITH_SECRETS}`;
  const resources = [URL_WITH_SECRETS, `demo://resource/dynamic/text/x?token=${GITHUB}#id_token=${AWS}`];
  try {
    await client.listTools();
    const echoed = await client.callTool({ name: 'echo', arguments: { message, note: 'my diary-entry-7' } });
    t.deepEqual(echoed.content, [{ type: 'text', text: `Echo: ${message}` }], 'the client gets every byte as sent');
    for (const uri of resources) await t.throwsAsync(client.readResource({ uri }), undefined, `no such resource: ${uri}`);
    // Tool names the server never listed: spans keep them, metrics do not.
    for (let i = 0; i < 3; i++)
      t.true((await client.callTool({ name: `made-up-${i}`, arguments: {} }).catch(() => ({ isError: true }))).isError);
  } finally {
    await client.close();
  }
  t.is(child.exitCode, 0);
  await waitForSessions(path, 1);
  await receiver.until(
    (posts) =>
      receivedSpans(posts).filter((s) => s.attributes['mcp.method.name'] === 'resources/read').length === 2 &&
      receivedHistograms(posts).some((h) => h.name === 'mcp.client.operation.duration'),
  );
  const sent = Buffer.concat(receiver.posts.map((p) => p.body)).toString('latin1');
  t.deepEqual(
    NEEDLES.filter((n) => sent.includes(n)),
    [],
    'no credential in any byte sent to the receiver',
  );
  t.deepEqual(filesHolding(dir, NEEDLES), [], 'nor in any file the proxy wrote');

  const spans = receivedSpans(receiver.posts);
  const echo = spans.find((s) => s.name === 'tools/call echo')!;
  const shown = `[REDACTED] [REDACTED] Bearer [REDACTED] ${URL_MASKED}`;
  t.deepEqual(JSON.parse(String(echo.attributes['gen_ai.tool.call.arguments'])), { message: shown, note: '[REDACTED]' });
  t.deepEqual(JSON.parse(String(echo.attributes['gen_ai.tool.call.result'])), { content: [{ type: 'text', text: `Echo: ${shown}` }] });
  const reads = spans.filter((s) => s.attributes['mcp.method.name'] === 'resources/read');
  t.deepEqual(
    reads.map((s) => s.attributes['mcp.resource.uri']),
    [URL_MASKED, 'demo://resource/dynamic/text/x?token=[REDACTED]#id_token=[REDACTED]'],
  );
  for (const s of reads) {
    t.is(s.name, `resources/read ${s.attributes['mcp.resource.uri']}`, 'the span name has the masked URI');
    t.is(s.status.code, 2, 'an error span');
  }
  t.true(
    reads.some((s) => s.status.message.includes('[REDACTED]')),
    `the server's error message repeats the URI, masked: ${reads.map((s) => s.status.message).join(' | ')}`,
  );
  // The duration histogram: tool names the server listed, the rest one `_OTHER`.
  const points = receivedHistograms(receiver.posts)
    .filter((h) => h.name === 'mcp.client.operation.duration')
    .flatMap((h) => h.points);
  const tools = new Set(points.map((p) => p.attributes['gen_ai.tool.name']).filter((v) => v !== undefined));
  t.deepEqual([...tools].sort(), [OTEL_OTHER, 'echo']);
  t.deepEqual(spans.filter((s) => String(s.name).startsWith('tools/call made-up-')).length, 3, 'each made-up tool still has its span');
});

test('the duration metrics bound every value that comes from the traffic; the span keeps it', (t) => {
  const names = new ListedNames();
  names.listed('tools/list', { tools: [{ name: 'echo' }, { name: 42 }, null] });
  names.listed('prompts/list', { prompts: [{ name: 'greet' }] });
  const span = (attributes: McpSpanData['attributes']): McpSpanData => ({
    name: 'x',
    kind: 'client',
    start: 0,
    end: 1,
    attributes,
    events: [],
    request: true,
  });
  const bounded = metricAttributes(
    span({
      'mcp.method.name': 'bogus/method',
      'gen_ai.tool.name': 'not-listed',
      'gen_ai.prompt.name': 'greet',
      'mcp.protocol.version': '1999-01-01',
      'error.type': '12345',
      'rpc.response.status_code': '12345',
      'jsonrpc.request.id': '7',
      'mcp.resource.uri': 'file:///x',
      'network.transport': 'pipe',
    }),
    names,
  );
  t.deepEqual(bounded, {
    'mcp.method.name': OTEL_OTHER,
    'gen_ai.tool.name': OTEL_OTHER,
    'gen_ai.prompt.name': 'greet',
    'mcp.protocol.version': OTEL_OTHER,
    'error.type': OTEL_OTHER,
    'rpc.response.status_code': OTEL_OTHER,
    'network.transport': 'pipe',
  });
  const known = metricAttributes(
    span({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'echo', 'mcp.protocol.version': '2025-11-25', 'error.type': '-32602' }),
    names,
  );
  t.deepEqual(known, {
    'mcp.method.name': 'tools/call',
    'gen_ai.tool.name': 'echo',
    'mcp.protocol.version': '2025-11-25',
    'error.type': '-32602',
  });
  const many = new ListedNames();
  many.listed('tools/list', { tools: Array.from({ length: 5000 }, (_, i) => ({ name: `t${i}` })) });
  t.is(many.tools.size, 1000, 'a server listing more names than that: the first 1000 only');
});

test('record --otel --include-payloads --capture metadata: spans carry what the cassette keeps, so no argument or result value reaches the receiver', async (t) => {
  const { receiver, dir, path, child, client } = await recordOtel(t, ['--capture', 'metadata']);
  const words = 'a-customer-name-kept-private';
  try {
    const echoed = await client.callTool({ name: 'echo', arguments: { message: words } });
    t.deepEqual(echoed.content, [{ type: 'text', text: `Echo: ${words}` }]);
  } finally {
    await client.close();
  }
  t.is(child.exitCode, 0);
  await waitForSessions(path, 1);
  await receiver.until((posts) => receivedSpans(posts).some((s) => s.name === 'tools/call echo'));
  t.false(
    Buffer.concat(receiver.posts.map((p) => p.body))
      .toString('latin1')
      .includes(words),
    'the value is in no byte sent',
  );
  t.deepEqual(filesHolding(dir, [words]), [], 'nor on disk');
  const echo = receivedSpans(receiver.posts).find((s) => s.name === 'tools/call echo')!;
  t.is(echo.attributes['gen_ai.tool.call.arguments'], undefined, 'metadata keeps no arguments');
  t.is(echo.attributes['gen_ai.tool.name'], 'echo', 'what names the operation stays');
  t.false(String(echo.attributes['gen_ai.tool.call.result']).includes('Echo'), 'nor the result text');
});
