import test, { type ExecutionContext } from 'ava';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { echoSecretsServer, PLANTED, recordStdio, startEchoHttp } from '../helpers/capture.js';
import { cli, node } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { PROMETHEUS_HINT, prometheusBinary, startPrometheus, until } from '../helpers/prometheus.js';
import { logged, v2Client } from '../helpers/real-server.js';
import { readCassette, startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

/**
 * `--metrics-listen`: a real Prometheus scrapes the recording proxy (in front of a real v2 SDK
 * server, driven by the v2 client) and the test reads the proxy's series back through
 * Prometheus's HTTP API, as an operator's dashboard would.
 */
const withPrometheus = prometheusBinary ? test : test.skip;
if (!prometheusBinary) console.log(`# ${PROMETHEUS_HINT}`);

/** The pino line with this message in a recorder's stderr (JSON lines), or undefined. */
function logLine(stderr: string, msg: string): Record<string, string> | undefined {
  for (const l of stderr.split('\n')) {
    try {
      const o = JSON.parse(l) as Record<string, string>;
      if (o.msg === msg) return o;
    } catch {
      // not a log line, or one not written whole yet
    }
  }
  return undefined;
}

/** `record --upstream` with `--metrics-listen 127.0.0.1:0`: the URL of /metrics is read from the
 * recorder's log ("serving metrics", written before it prints its own URL). */
async function startMetricsRecorder(t: ExecutionContext, upstream: string, cassette: string) {
  const child = spawnTracked(t, node, [
    cli,
    'record',
    '--upstream',
    upstream,
    '--cassette',
    cassette,
    '--log-level',
    'info',
    '--metrics-listen',
    '127.0.0.1:0',
  ]);
  const serving = logged(child.stderr!, /"metrics":"(http:\/\/[^"]+)"[^\n]*"msg":"serving metrics"/);
  const finished = collect(child);
  const url = (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  return {
    url,
    metrics: (await serving)[1]!,
    async stop() {
      child.kill('SIGINT');
      const result = await finished;
      return { cassette: readCassette(cassette), result };
    },
  };
}

const value = (r: { value: [number, string] }[]): number => (r.length === 0 ? 0 : Number(r[0]!.value[1]));

withPrometheus(
  'Prometheus scrapes the HTTP proxy: request counts and durations by method, recorded bytes, redactions, violations, process metrics',
  async (t) => {
    const dir = tempDir(t);
    const upstream = await startEchoHttp(t);
    const recorder = await startMetricsRecorder(t, upstream, join(dir, 'm.cassette.json'));
    const prometheus = await startPrometheus(t, new URL(recorder.metrics).host);
    const client = v2Client();
    await client.connect(new StreamableHTTPClientTransport(new URL(recorder.url)));
    for (let i = 0; i < 3; i++) await client.callTool({ name: 'add', arguments: { a: i, b: 1 } });
    await client.callTool({ name: 'echo', arguments: { text: PLANTED.sk.text } });
    // A request without a tool name: the server refuses it, the live validator flags it.
    await fetch(recorder.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 99, method: 'tools/call', params: {} }),
    }).then((r) => r.text());
    await client.close();

    const calls = 'mcp_cassette_requests_total{job="mcp-cassette",mcp_method_name="tools/call",sender="client"}';
    await until(
      async () => value(await prometheus.query(calls)) >= 5 && value(await prometheus.query('sum(mcp_cassette_violations_total)')) > 0,
      () => 'Prometheus never saw the requests and violations',
    );
    t.is(value(await prometheus.query(calls)), 5, 'five tools/call requests crossed the proxy');
    const durations = await prometheus.query(
      'mcp_client_operation_duration_seconds_count{mcp_method_name="tools/call",network_transport="tcp"}',
    );
    t.is(
      durations.reduce((n, r) => n + Number(r.value[1]), 0),
      5,
      'each was timed, by method',
    );
    t.true(value(await prometheus.query('mcp_client_operation_duration_seconds_sum{mcp_method_name="tools/call",error_type=""}')) > 0);
    t.is(
      value(await prometheus.query('mcp_client_operation_duration_seconds_count{mcp_method_name="initialize"}')),
      1,
      'the handshake too',
    );
    t.true(value(await prometheus.query('mcp_cassette_recorded_bytes_total{channel="http"}')) > 0);
    t.true(value(await prometheus.query('mcp_cassette_recorded_messages_total{channel="http"}')) >= 10);
    t.true(
      value(await prometheus.query('mcp_cassette_redacted_values_total{by="secret"}')) >= 2,
      'the planted key, in the request and the answer',
    );
    t.true(value(await prometheus.query('process_resident_memory_bytes{job="mcp-cassette"}')) > 0, "the proxy's process metrics");
    t.is(value(await prometheus.query('up{job="mcp-cassette"}')), 1);
    const violations = await prometheus.query('mcp_cassette_violations_total');
    t.true(violations.length > 0);
    for (const v of violations) t.truthy(v.metric.rule && v.metric.severity, 'by rule and severity');

    const { cassette, result } = await recorder.stop();
    t.is(result.code, 0, result.stderr);
    const recorded = cassette.sessions.flatMap((s) => s.violations ?? []);
    for (const v of violations) {
      const n = recorded.filter((r) => r.rule === v.metric.rule && r.severity === v.metric.severity).length;
      t.true(n >= Number(v.value[1]), `${v.metric.rule}: the cassette holds every violation counted (${n} >= ${v.value[1]})`);
    }
  },
);

test('stdio: /metrics and /healthz on 127.0.0.1 while the session runs; durations by method over the pipe', async (t) => {
  const dir = tempDir(t);
  let text = '';
  let health = '';
  // Port 0: the recorder logs the address it got ("serving metrics", at info).
  const r = await recordStdio(
    t,
    join(dir, 's.cassette.json'),
    ['--metrics-listen', '0', '--log-level', 'info'],
    async (client, stderr = () => '') => {
      await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } });
      await client.listTools();
      let metrics = '';
      await until(
        async () => (metrics = logLine(stderr(), 'serving metrics')?.metrics ?? '') !== '',
        () => `no "serving metrics" line in ${stderr()}`,
      );
      const port = new URL(metrics).port;
      await until(
        async () => (text = await (await fetch(metrics)).text()).includes('mcp_method_name="tools/list"'),
        () => `no tools/list in ${text}`,
      );
      health = await (await fetch(`http://127.0.0.1:${port}/healthz`)).text();
    },
  );
  t.is(r.code, 0, r.stderr);
  t.is(health, 'ok\n');
  t.regex(text, /mcp_client_operation_duration_seconds_count\{mcp_method_name="tools\/call",error_type="",network_transport="pipe"\} 1/);
  t.regex(text, /mcp_cassette_requests_total\{mcp_method_name="tools\/list",sender="client"\} 1/);
  t.regex(text, /mcp_cassette_recorded_messages_total\{channel="stdout"\} \d+/);
  t.regex(text, /mcp_cassette_build_info\{version="[^"]+",network_transport="pipe"\} 1/);
  t.regex(text, /process_cpu_seconds_total/);
});

test('--metrics-listen on an address in use: HTTP mode fails at start with MCPC_LISTEN_FAILED naming the option', async (t) => {
  const dir = tempDir(t);
  const { createServer } = await import('node:net');
  const busy = createServer().listen(0, '127.0.0.1');
  t.teardown(() => busy.close());
  await once(busy, 'listening');
  const { port } = busy.address() as AddressInfo;
  const child = startRecorder(t, join(dir, 'x.cassette.json'), [], {
    extra: ['--upstream', 'http://127.0.0.1:9/mcp', '--metrics-listen', `127.0.0.1:${port}`],
  });
  const r = await collect(child);
  t.is(r.code, 2);
  t.regex(r.stderr, /cannot listen on 127\.0\.0\.1:\d+: the address is already in use.*--metrics-listen/);
});

test('--metrics-listen that is no address is a usage error', async (t) => {
  const child = startRecorder(t, join(tempDir(t), 'x.cassette.json'), [node, echoSecretsServer], {
    extra: ['--metrics-listen', 'nowhere'],
  });
  const r = await collect(child);
  t.is(r.code, 2);
  t.regex(r.stderr, /--metrics-listen "nowhere" must be host:port or a port/);
});
