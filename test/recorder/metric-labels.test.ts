import test, { type ExecutionContext } from 'ava';
import { join } from 'node:path';
import { OTHER } from '../../lib/metrics.js';
import { OperationTimer } from '../../recorder/capture/operation-metrics.js';
import { node, rawServer } from '../helpers/paths.js';
import { collect } from '../helpers/proc.js';
import { logged } from '../helpers/real-server.js';
import { startEchoHttp } from '../helpers/capture.js';
import { journalHolds, line, startRecorder, waitForFinishers } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { until } from '../helpers/prometheus.js';
import { cassetteFiles, logLine, readJson, sample, scrape, startDirRecorder } from './rotation/dir-helpers.js';

/**
 * `--metrics-listen` in front of a hostile client: label values that come from the traffic are
 * bounded (a method the spec does not define is `other`), so no client can make the proxy (and
 * the Prometheus that scrapes it) keep a series per value it sends. Then the counters of load
 * shedding and sampling, driven by the conditions that move them. Real `record` processes (stdio
 * in front of an SDK-free server that answers every request; Streamable HTTP in front of the v2
 * SDK's echo-secrets server), scraped at their real /metrics: a plain scrape, since a Prometheus
 * server would add nothing to what these counters are checked for.
 */

/** `record --metrics-listen 0 -- raw-server`, as a host starts it; the URL of its /metrics. */
async function recordWithMetrics(t: ExecutionContext, env: NodeJS.ProcessEnv = process.env) {
  const cassette = join(tempDir(t), 'm.cassette.json');
  const child = startRecorder(t, cassette, [node, rawServer], { extra: ['--metrics-listen', '0', '--log-level', 'info'], env });
  const serving = logged(child.stderr!, /"metrics":"(http:\/\/[^"]+)"[^\n]*"msg":"serving metrics"/);
  const finished = collect(child);
  let stdout = Buffer.alloc(0);
  child.stdout!.on('data', (c: Buffer) => (stdout = Buffer.concat([stdout, c])));
  const lines = () => stdout.toString('latin1').split('\n').length - 1;
  let sent = 0;
  return {
    metrics: (await serving)[1]!,
    stdout: () => stdout,
    sentBytes: () => sent,
    /** Writes requests and waits for as many answer lines. */
    async send(requests: readonly unknown[]): Promise<void> {
      const before = lines();
      const text = requests.map(line).join('');
      sent += Buffer.byteLength(text);
      child.stdin!.write(text);
      await until(
        async () => lines() >= before + requests.length,
        () => `${lines() - before} of ${requests.length} answers`,
        110_000,
      );
    },
    async end() {
      child.stdin!.end();
      const r = await finished;
      waitForFinishers(cassette);
      return r;
    },
  };
}

/** /metrics; asked again once when a kept-alive connection the endpoint had closed fails. */
const scrapeNow = (url: string): Promise<string> => scrape(url).catch(() => scrape(url));

/** The series of the proxy's own metrics (`mcp_*`), each as its name and its labels (a
 * histogram's buckets, sum and count are one labelled series each, as Prometheus stores them). */
function mcpSeries(text: string): string[] {
  return text.split('\n').filter((l) => l.startsWith('mcp_') && !l.startsWith('mcp_cassette_build_info'));
}

test('10,000 distinct methods a client makes up add one "other" series per metric, not 10,000: counted, timed, none of them a label', async (t) => {
  const proxy = await recordWithMetrics(t);
  await proxy.send([{ jsonrpc: '2.0', id: 0, method: 'tools/list' }]);
  let before = '';
  await until(
    async () => (before = await scrapeNow(proxy.metrics)).includes('mcp_method_name="tools/list"'),
    () => 'the first request never reached the metrics',
  );
  const N = 10_000;
  const bogus = Array.from({ length: N }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: `bogus/m${i}-${'x'.repeat(i % 7)}` }));
  for (let i = 0; i < N; i += 1000) await proxy.send(bogus.slice(i, i + 1000));
  const counted = `mcp_cassette_requests_total{mcp_method_name="${OTHER}",sender="client"}`;
  const timed = `mcp_client_operation_duration_seconds_count{mcp_method_name="${OTHER}",error_type="",network_transport="pipe"}`;
  let after = '';
  await until(
    async () => sample((after = await scrapeNow(proxy.metrics)), timed) === N,
    () => `${N} never timed as other`,
    110_000,
  );
  t.is(sample(after, counted), N, 'each counted, as other');
  t.is(sample(after, timed), N, 'each timed, as other');
  t.false(after.includes('bogus/'), 'no made-up method is a label value');
  const added = mcpSeries(after).filter((s) => !mcpSeries(before).some((b) => b.split(' ')[0] === s.split(' ')[0]));
  // requests_total{other}, and the duration histogram's 16 buckets, +Inf, sum and count for other.
  t.true(added.length <= 20, `series added: ${added.length}\n${added.slice(0, 30).join('\n')}`);
  t.is(sample(after, 'mcp_cassette_requests_total{mcp_method_name="tools/list",sender="client"}'), 1, 'a spec method keeps its own label');
  const r = await proxy.end();
  t.is(r.code, 0, r.stderr);
});

test('error_type is a JSON-RPC reserved error code or "other": a server cannot make a series per code either', (t) => {
  const seen: Record<string, string>[] = [];
  const timer = new OperationTimer(
    { enabled: true, count() {}, set() {}, observe: (_name, _value, labels) => void seen.push(labels ?? {}) },
    'stdio',
  );
  const codes: unknown[] = [-32601, -32002, -32000, -32768, -31999, -32769, 404, 'E_FAIL', 1.5, null];
  codes.forEach((code, i) => {
    timer.frame('client-to-server', { jsonrpc: '2.0', id: i, method: `made/up${i}` }, 0);
    timer.frame('server-to-client', { jsonrpc: '2.0', id: i, error: { code, message: 'no' } }, 1);
  });
  timer.frame('client-to-server', { jsonrpc: '2.0', id: 'ok', method: 'tools/call' }, 0);
  timer.frame('server-to-client', { jsonrpc: '2.0', id: 'ok', result: { content: [], isError: true } }, 1);
  t.deepEqual(
    seen.map((l) => [l.mcp_method_name, l.error_type]),
    [
      ...['-32601', '-32002', '-32000', '-32768', OTHER, OTHER, OTHER, OTHER, OTHER, OTHER].map((e) => [OTHER, e]),
      ['tools/call', 'tool_error'],
    ],
  );
});

test('mcp_cassette_work_shed_total{what="bytes"}: every byte the live validator shed, as it sheds, equal to the traffic forwarded both ways', async (t) => {
  // A backlog bound of one byte: the live validator sheds on the first chunk, so none of the
  // traffic is judged live and all of it is counted as shed (the cassette write judges it).
  const proxy = await recordWithMetrics(t, { ...process.env, MCPC_LIVE_MAX_BACKLOG: '1' });
  await proxy.send([{ jsonrpc: '2.0', id: 1, method: 'tools/list' }]);
  await proxy.send(
    Array.from({ length: 20 }, (_, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'x', n: i } })),
  );
  const series = 'mcp_cassette_work_shed_total{what="bytes"}';
  const forwarded = () => proxy.sentBytes() + proxy.stdout().length;
  let text = '';
  await until(
    async () => (sample((text = await scrapeNow(proxy.metrics)), series) ?? 0) >= forwarded(),
    () => `shed bytes: ${text}`,
  );
  t.is(sample(text, series), forwarded(), 'stdin and stdout bytes, exactly (the server wrote nothing on stderr)');
  // One more request: its bytes, both ways, are added to the counter as they cross.
  const at = forwarded();
  await proxy.send([{ jsonrpc: '2.0', id: 99, method: 'ping' }]);
  const grown = forwarded() - at;
  await until(
    async () => (sample((text = await scrapeNow(proxy.metrics)), series) ?? 0) >= at + grown,
    () => `shed bytes: ${text}`,
  );
  t.is(sample(text, series), at + grown);
  const r = await proxy.end();
  t.is(r.code, 0, r.stderr);
  t.regex(r.stderr, /live validation fell more than .* behind the traffic and shed/);
});

/** One stateless exchange with the echo-secrets server through the proxy: a tools/call. */
async function call(url: string, id: number, args: unknown): Promise<string> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'add', arguments: args } }),
  });
  return res.text();
}

/** `record --upstream --cassette-dir --rotate-sessions 1 --metrics-listen 0 <extra>`: every
 * exchange (a session of its own on stateless HTTP) is folded, and sampled, once the next one
 * begins. Sends `clean` good calls, then `bad` ones (arguments that are no object: a verdict at
 * error), then one more call that closes the last cassette; /metrics once every fold is counted. */
async function sampledRun(t: ExecutionContext, upstream: string, extra: string[], clean: number, bad: number) {
  const dir = join(tempDir(t), 'series');
  const proxy = await startDirRecorder(t, upstream, dir, ['--rotate-sessions', '1', '--metrics-listen', '0', ...extra]);
  await until(
    async () => logLine(proxy.stderr(), 'serving metrics') !== undefined,
    () => 'no metrics address',
  );
  const metrics = String(logLine(proxy.stderr(), 'serving metrics')!.metrics);
  for (let i = 0; i < clean; i++) t.regex(await call(proxy.url, i, { a: i, b: 1 }), /"text":"\d+"/);
  for (let i = 0; i < bad; i++) {
    t.regex(await call(proxy.url, 100 + i, 'one'), /"error"/);
    await journalHolds(dir, '"severity":"error"'); // the live verdict is in its exchange's journal
  }
  await call(proxy.url, 999, { a: 0, b: 0 }); // begins the last cassette, which stays open
  const folded = clean + bad;
  const kept = (text: string, reason: string) => sample(text, `mcp_cassette_sessions_kept_total{reason="${reason}"}`) ?? 0;
  let text = '';
  await until(
    async () => {
      text = await scrapeNow(metrics).catch((err: Error) => {
        throw new Error(`${err.message}; the proxy said:\n${proxy.stderr()}`);
      });
      return kept(text, 'sampled') + kept(text, 'violation') + (sample(text, 'mcp_cassette_sessions_sampled_out_total') ?? 0) >= folded;
    },
    () => `not every fold counted:\n${text}`,
  );
  const end = await proxy.stop();
  t.is(end.code, 0, end.stderr);
  return { dir, text, kept: (reason: string) => kept(text, reason) };
}

test('--sample: sessions_kept_total by reason, sessions_sampled_out_total and messages_sampled_out_total count exactly what each fold kept and left out', async (t) => {
  const upstream = await startEchoHttp(t);
  const [all, none] = await Promise.all([
    sampledRun(t, upstream, ['--sample', '1'], 5, 0),
    sampledRun(t, upstream, ['--sample', '0', '--keep-violations', 'error'], 6, 1),
  ]);
  // --sample 1: the five exchanges folded while the proxy ran are kept, by the sample.
  t.is(all.kept('sampled'), 5, all.text);
  t.is(all.kept('violation'), 0);
  t.is(sample(all.text, 'mcp_cassette_sessions_sampled_out_total'), 0, 'nothing left out');
  t.is(sample(all.text, 'mcp_cassette_messages_sampled_out_total'), 0);
  const stored = cassetteFiles(all.dir).flatMap((f) => readJson(f).sessions);
  t.is(stored.length, 6, 'the five, and the last one written at the end');
  t.true(
    stored.every((s) => s.messages.length === 2),
    'an exchange is two messages: the request and its answer',
  );
  // --sample 0: the exchange with the error is kept for it; the six clean ones are left out.
  t.is(none.kept('violation'), 1, none.text);
  t.is(none.kept('sampled'), 0);
  t.is(sample(none.text, 'mcp_cassette_sessions_sampled_out_total'), 6);
  t.is(sample(none.text, 'mcp_cassette_messages_sampled_out_total'), 12);
  const left = cassetteFiles(none.dir).flatMap((f) => readJson(f).sessions);
  t.is(left.length, 1, 'on disk: only the exchange with the error');
  t.true((left[0]!.violations ?? []).some((v) => v.severity === 'error'));
});
