import test from 'ava';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { OPERATION_BUCKETS } from '../../recorder/otel/otel-sdk.js';
import { checkSpan, SPAN_KIND_CLIENT, SPAN_KIND_SERVER } from '../helpers/otlp-conventions.js';
import { receivedHistograms, receivedSpans, spansOf, startOtlpReceiver, type DecodedSpan } from '../helpers/otlp.js';
import { checkAgainstTraffic, epochMs, expectedSpans } from '../helpers/span-oracle.js';
import { startTappedUpstream } from '../helpers/http-taps.js';
import { byteTap, cli, everythingServer, node } from '../helpers/paths.js';
import { collect, delay, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { line, readCassette, recordArgs, startRecorder, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { closedPort, logged, PipeTransport, v2Client } from '../helpers/real-server.js';
import { runV1HttpScenario } from '../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../servers/v1-http-server.js';

const run = promisify(execFile);

/** The host's span the client propagates, as an instrumented host would (W3C Trace Context). */
const HOST_TRACE = '0af7651916cd43dd8448eb211c80319c';
const HOST_SPAN = 'b7ad6b7169203331';
const TRACEPARENT = `00-${HOST_TRACE}-${HOST_SPAN}-01`;

/** How far a live span's times may be from its messages' times in the cassette: both are taken
 * as the frame crosses the proxy, at different points of its path (about a millisecond apart,
 * some tens on a cold start or a busy machine). */
const LIVE_TOLERANCE_MS = 250;

/** What the conventions say of every span, and what this recording must have produced. */
function checkRecorded(t: import('ava').ExecutionContext, spans: DecodedSpan[], transport: 'stdio' | 'http'): DecodedSpan {
  for (const s of spans) checkSpan(t, s, transport);
  t.true(spans.every((s) => s.resource['service.name'] === 'mcp-proxy-under-test' && s.resource['deployment.environment'] === 'test'));
  const call = spans.find((s) => s.name === 'tools/call echo' || s.name === 'tools/call add');
  t.truthy(call, `a tools/call span among ${spans.map((s) => s.name).join(', ')}`);
  // The span joins the host's trace as a child of the host's span.
  t.is(call!.traceId, HOST_TRACE);
  t.is(call!.parentSpanId, HOST_SPAN);
  t.is(call!.kind, SPAN_KIND_CLIENT);
  t.is(call!.attributes['gen_ai.operation.name'], 'execute_tool');
  t.true(spans.some((s) => s.attributes['mcp.method.name'] === 'initialize'));
  return call!;
}

test('record --otel over stdio: a real server and a real SDK client whose tools/call carries a traceparent; OTLP/protobuf spans and histograms as the conventions say, the same spans export makes', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const dir = tempDir(t);
  const path = join(dir, 'otel.cassette.json');
  // The official v2 client over the proxy's pipes, closed the way a patient host closes (stdin
  // ends, we wait for the exit): the SDK's own transport kills a proxy that takes its time.
  const child = spawnTracked(t, node, recordArgs(path, [node, everythingServer, 'stdio'], ['--otel', '--include-payloads']), {
    cwd: dir,
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_SERVICE_NAME: 'mcp-proxy-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
    },
  });
  const client = v2Client();
  await client.connect(new PipeTransport(child));
  const called = { before: 0, after: 0 };
  try {
    await client.listTools();
    called.before = Date.now();
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' }, _meta: { traceparent: TRACEPARENT } });
    called.after = Date.now();
    t.deepEqual(result.content, [{ type: 'text', text: 'Echo: hello' }]);
  } finally {
    await client.close();
  }
  t.is(child.exitCode, 0);
  const cassette = await waitForSessions(path, 1);
  await receiver.until((posts) => receivedSpans(posts).some((s) => s.name === 'tools/call echo') && receivedHistograms(posts).length > 0);
  t.true(receiver.posts.filter((p) => p.path === '/v1/traces').every((p) => p.contentType === 'application/x-protobuf'));
  const spans = receivedSpans(receiver.posts);
  const call = checkRecorded(t, spans, 'stdio');
  t.is(call.attributes['mcp.protocol.version'], cassette.sessions[0]!.protocol.revision);
  // The live validator's verdict rides on the span of the message it judged: server-everything's
  // get-env says explicitly that it takes no parameters (TOOLS-NOPARAM, info) in tools/list.
  const stored = (cassette.sessions[0]!.violations ?? []).filter((v) => v.rule === 'TOOLS-NOPARAM');
  t.true(stored.length > 0, 'the recording has the verdict the span should carry');
  // (The client may list again after a list_changed: the verdicts are on the answer they judged.)
  const lists = spans.filter((s) => s.attributes['mcp.method.name'] === 'tools/list');
  const events = lists.flatMap((s) => s.events).filter((e) => e.attributes['mcp_cassette.rule.id'] === 'TOOLS-NOPARAM');
  t.deepEqual(
    events.map((e) => [e.name, e.attributes['mcp_cassette.severity'], e.attributes['mcp_cassette.message']]),
    stored.map((v) => ['mcp_cassette.violation', 'info', v.message]),
    JSON.stringify(lists.map((s) => s.events)),
  );
  t.deepEqual(JSON.parse(String(call.attributes['gen_ai.tool.call.arguments'])), { message: 'hello' });
  // The spans are the ones the traffic makes (names, kinds, attributes, parents), each timed by
  // the messages that opened and closed it; the tools/call one within the client's own call.
  const expected = expectedSpans(cassette.sessions[0]!, { payloads: true });
  checkAgainstTraffic(t, spans, expected, LIVE_TOLERANCE_MS);
  t.true(
    epochMs(call.startTimeUnixNano) >= called.before && epochMs(call.endTimeUnixNano) <= called.after,
    `tools/call span ${call.startTimeUnixNano}..${call.endTimeUnixNano} within the client's call ${called.before}..${called.after}`,
  );
  // export makes them from the cassette, at the recorded times (held against the traffic too,
  // not against the live spans).
  const { stdout } = await run(node, [cli, 'export', path, '--format', 'otlp-json', '--include-payloads']);
  const exported = stdout
    .split('\n')
    .filter(Boolean)
    .flatMap((l) => spansOf(JSON.parse(l) as Record<string, unknown>, true));
  checkAgainstTraffic(t, exported, expected, 0.001);
  // The conventions' duration histogram with their bucket boundaries, one point per method.
  const histograms = receivedHistograms(receiver.posts).filter((h) => h.name === 'mcp.client.operation.duration');
  t.true(histograms.length > 0);
  for (const h of histograms) {
    t.is(h.unit, 's');
    for (const p of h.points) t.deepEqual(p.explicitBounds, OPERATION_BUCKETS);
  }
  const points = histograms.flatMap((h) => h.points);
  const callPoint = points.find((p) => p.attributes['mcp.method.name'] === 'tools/call');
  t.is(callPoint?.attributes['gen_ai.tool.name'], 'echo');
  t.is(callPoint?.attributes['network.transport'], 'pipe');
  t.is(callPoint?.attributes['jsonrpc.request.id'], undefined, 'no per-request attributes on metrics');
});

test('record --otel over Streamable HTTP with OTEL_EXPORTER_OTLP_PROTOCOL=http/json: a 2025 session carries mcp.session.id, server.address/port, and joins the host trace', async (t) => {
  const receiver = await startOtlpReceiver(t);
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const path = join(dir, 'http.cassette.json');
  const child = spawnTracked(t, node, [cli, 'record', '--upstream', upstream.url, '--cassette', path, '--log-level', 'warn', '--otel'], {
    env: {
      ...process.env,
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${receiver.url}/v1/metrics`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SERVICE_NAME: 'mcp-proxy-under-test',
      OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=test',
    },
  });
  const finished = collect(child);
  const url = (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  const called = { before: 0, after: 0 };
  await runV1HttpScenario(url, async (client) => ({
    add: await (async () => {
      called.before = Date.now();
      const added = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 }, _meta: { traceparent: TRACEPARENT } });
      called.after = Date.now();
      return added;
    })(),
    // The server asks the client (elicitation/create on the GET stream, answered by a POST).
    confirm: await client.callTool({ name: 'confirm', arguments: { action: 'deploy' } }),
  }));
  child.kill('SIGINT');
  await finished;
  const cassette = readCassette(path);
  await receiver.until(
    (posts) =>
      receivedSpans(posts).some((s) => s.name === 'elicitation/create') &&
      receivedHistograms(posts).some((h) => h.name === 'mcp.server.operation.duration'),
  );
  t.true(receiver.posts.filter((p) => p.path === '/v1/traces').every((p) => p.contentType.includes('application/json')));
  const spans = receivedSpans(receiver.posts);
  const call = checkRecorded(t, spans, 'http');
  const session = cassette.sessions.find((s) => s.mcpSessionId)!;
  t.is(call.attributes['mcp.session.id'], session.mcpSessionId);
  t.is(call.attributes['mcp.protocol.version'], session.protocol.revision);
  const target = new URL(upstream.url);
  t.is(call.attributes['server.address'], target.hostname);
  t.is(call.attributes['server.port'], Number(target.port));
  t.is(call.attributes['gen_ai.tool.call.arguments'], undefined, 'payloads only with --include-payloads');
  // The spans are the ones the traffic makes, each timed by its messages; tools/call within the
  // client's own call.
  const upstreamAt = { address: target.hostname, port: Number(target.port) };
  checkAgainstTraffic(
    t,
    spans,
    cassette.sessions.flatMap((s) => expectedSpans(s, { server: upstreamAt })),
    LIVE_TOLERANCE_MS,
  );
  t.true(
    epochMs(call.startTimeUnixNano) >= called.before && epochMs(call.endTimeUnixNano) <= called.after,
    `tools/call span ${call.startTimeUnixNano}..${call.endTimeUnixNano} within the client's call ${called.before}..${called.after}`,
  );
  // Every verdict the live validator stored on a message is an event on a span, once.
  const onMessages = cassette.sessions.flatMap((s) => s.violations ?? []).filter((v) => v.seq > 0);
  const verdictEvents = spans.flatMap((s) => s.events.filter((e) => e.name === 'mcp_cassette.violation'));
  t.true(onMessages.length > 0, 'the recording has verdicts on messages');
  t.deepEqual(
    verdictEvents.map((e) => `${String(e.attributes['mcp_cassette.rule.id'])} ${String(e.attributes['mcp_cassette.message'])}`).sort(),
    onMessages.map((v) => `${v.rule} ${v.message}`).sort(),
  );
  // A request the server sends is a SERVER span, timed by mcp.server.operation.duration.
  const elicit = spans.find((s) => s.name === 'elicitation/create')!;
  t.is(elicit.kind, SPAN_KIND_SERVER);
  t.is(elicit.attributes['mcp.session.id'], session.mcpSessionId);
  t.is(elicit.attributes['server.address'], undefined);
  t.true(BigInt(elicit.endTimeUnixNano) > BigInt(elicit.startTimeUnixNano), 'from the request to the client answer');
  const server = receivedHistograms(receiver.posts).filter((h) => h.name === 'mcp.server.operation.duration');
  t.deepEqual(
    server.flatMap((h) => h.points.map((p) => [p.attributes['mcp.method.name'], p.count, p.explicitBounds])),
    [['elicitation/create', 1, OPERATION_BUCKETS]],
  );
});

test('record --otel with the collector down (a closed port): traffic is forwarded byte for byte both ways and the proxy ends as usual', async (t) => {
  const dir = tempDir(t);
  const port = await closedPort(t); // nothing listens there, nor can while the test runs
  const path = join(dir, 'down.cassette.json');
  const taps = join(dir, 'taps');
  const child = startRecorder(t, path, [node, byteTap, taps, 'server', node, everythingServer, 'stdio'], {
    extra: ['--otel'],
    env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`, OTEL_BSP_SCHEDULE_DELAY: '50' },
  });
  const finished = collect(child);
  const sent = [
    line({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
    line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    line({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo', arguments: { message: 'x' }, _meta: { traceparent: TRACEPARENT } },
    }),
  ];
  child.stdin!.write(sent[0]);
  await waitForOutput(child.stdout!, (s) => s.includes('"id":0'));
  child.stdin!.write(sent[1]! + sent[2]!);
  await waitForOutput(child.stdout!, (s) => s.includes('Echo: x'));
  child.stdin!.end();
  const result = await finished;
  t.is(result.code, 0);
  const [tap] = readdirSync(taps);
  t.is(readFileSync(join(taps, tap!, 'in.bin'), 'utf8'), sent.join(''), 'the server got every byte the host sent');
  t.deepEqual(readFileSync(join(taps, tap!, 'out.bin')), result.stdout, 'the host got every byte the server wrote');
  t.is(readCassette(path).sessions.length, 1);
});

test('record --otel: the queue is bounded (OTEL_BSP_MAX_QUEUE_SIZE); spans past it while the collector hangs are dropped and counted in the summary and the metrics', async (t) => {
  const dir = tempDir(t);
  // A collector that takes the connection and never answers: the first export stays in flight.
  const sockets: Socket[] = [];
  const hanging = createServer((socket) => {
    sockets.push(socket);
    socket.resume();
  });
  hanging.listen(0, '127.0.0.1');
  await once(hanging, 'listening');
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    hanging.close();
  });
  const path = join(dir, 'queue.cassette.json');
  const child = spawnTracked(
    t,
    node,
    [cli, 'record', '-c', path, '--otel', '--metrics-listen', '0', '--log-format', 'json', '--', node, everythingServer, 'stdio'],
    {
      env: {
        ...process.env,
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(hanging.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_TIMEOUT: '600000',
        OTEL_BSP_MAX_QUEUE_SIZE: '1',
      },
    },
  );
  // Port 0: the recorder logs the address it got ("serving metrics").
  const serving = logged(child.stderr!, /"metrics":"(http:\/\/[^"]+)"/);
  const finished = collect(child);
  child.stdin!.write(
    line({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  );
  await waitForOutput(child.stdout!, (s) => s.includes('"id":0'));
  child.stdin!.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  for (let id = 1; id <= 5; id++) child.stdin!.write(line({ jsonrpc: '2.0', id, method: 'tools/list' }));
  await waitForOutput(child.stdout!, (s) => s.includes('"id":5'));
  // The first span's export hangs; of the rest, every one finds the queue full.
  const metricsUrl = (await serving)[1]!;
  let scraped = '';
  for (let i = 0; i < 200 && !/mcp_cassette_otel_spans_lost_total\{reason="queue_full"\} [1-9]/.test(scraped); i++) {
    scraped = await (await fetch(metricsUrl)).text();
    await delay(50);
  }
  const scrapedDrops = Number(/mcp_cassette_otel_spans_lost_total\{reason="queue_full"\} (\d+)/.exec(scraped)?.[1] ?? 0);
  const savedLine = waitForOutput(child.stderr!, (s) => s.includes('"msg":"session saved"'), 60_000);
  child.stdin!.end();
  await savedLine;
  // The export in flight would hang until its (long) timeout: the test ends the proxy itself.
  child.kill('SIGKILL');
  const result = await finished;
  const saved = result.stderr
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as { msg: string; otel?: { spans: number; dropped: number } })
    .find((r) => r.msg === 'session saved');
  // Every span the session's traffic makes (one per request and notification) was either queued
  // (the one in flight) or dropped.
  const all = readCassette(path).sessions.flatMap((s) => expectedSpans(s)).length;
  t.true(all >= 7);
  t.deepEqual(saved?.otel && { spans: saved.otel.spans, dropped: saved.otel.dropped }, { spans: 1, dropped: all - 1 });
  t.true(scrapedDrops >= 1 && scrapedDrops <= all - 1, `the metrics counted drops as they happened (${scrapedDrops})`);
});

test('record --otel: an OTLP protocol it cannot speak, or --include-payloads without --otel, is a usage error before the server starts', async (t) => {
  const dir = tempDir(t);
  const marker = join(dir, 'server-ran');
  const server = [node, '-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, '')`];
  const grpc = await run(node, recordArgs(join(dir, 'a.cassette.json'), server, ['--otel']), {
    env: { ...process.env, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' },
  }).catch((e: { code: number; stderr: string }) => e);
  t.is((grpc as { code: number }).code, 2);
  t.regex((grpc as { stderr: string }).stderr, /OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported by record --otel; use http\/protobuf/);
  const payloads = await run(node, recordArgs(join(dir, 'b.cassette.json'), server, ['--include-payloads'])).catch(
    (e: { code: number; stderr: string }) => e,
  );
  t.is((payloads as { code: number }).code, 2);
  t.regex((payloads as { stderr: string }).stderr, /--include-payloads .* add --otel/);
  t.false(existsSync(marker), 'the server never started');
});
