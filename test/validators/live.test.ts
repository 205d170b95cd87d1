import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { rawServer, node } from '../helpers/paths.js';
import { collect, waitForOutput } from '../helpers/proc.js';
import { line, readCassette, startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { logRecords, startWebhook } from '../helpers/webhook.js';

test('live alerts while a misbehaving stdio server runs: webhook, exec, summary, --fail-on; the client still gets every byte', async (t) => {
  const dir = tempDir(t);
  const received: { text: string; violation: { rule: string } }[] = [];
  // The alerts come while the session runs: it ends once the webhook has the two expected ones.
  // Ending it at once left, on a starved machine, the alerts still in flight when the proxy's
  // bounded exit stopped waiting for them (counted as undelivered; seen at load 13-15).
  let alerted: () => void = () => {};
  const bothAlerted = new Promise<void>((r) => (alerted = r));
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as (typeof received)[number]);
      res.writeHead(204).end();
      const rules = new Set(received.map((x) => x.violation.rule));
      if (rules.has('STDIO-STDOUT-CLEAN') && rules.has('ENV-UTF8')) alerted();
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => hook.close());
  const webhook = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/alerts`;
  const execOut = join(dir, 'exec.jsonl');
  const cassette = join(dir, 'live.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'trailing'], {
    extra: ['--log-level', 'info', '--fail-on', 'error', '--alert-webhook', webhook, '--alert-exec', `cat >> '${execOut}'`],
  });
  const done = collect(proxy);
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 7, method: 'noise' }));
  await bothAlerted;
  // …and the exec sink has them too (a shell started per alert: slower than the webhook).
  const execHas = (): boolean => {
    const text = existsSync(execOut) ? readFileSync(execOut, 'utf8') : '';
    return text.includes('"STDIO-STDOUT-CLEAN"') && text.includes('"ENV-UTF8"');
  };
  while (!execHas()) await new Promise((r) => setTimeout(r, 50));
  proxy.stdin!.end();
  const r = await done;
  const expectedStdout = Buffer.concat([
    Buffer.from('server starting up (not JSON)\n'),
    Buffer.from([0xff, 0xfe, 0x41, 0xc3, 0x28, 0x0a]),
    Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"crlf"}}\r\n'),
    Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"split"}}\n'),
    Buffer.from('{"jsonrpc":"2.0","id":7,"result":{"noise":true}}\n'),
    Buffer.from('{"partial":'),
  ]);
  t.true(r.stdout.equals(expectedStdout), 'forwarding is untouched by validation');
  t.is(r.code, 1, '--fail-on error: the server exited 0 but errors were seen');
  t.regex(r.stderr, /"msg":"ERROR STDIO-STDOUT-CLEAN \(message #\d+ S>C\): non-MCP output on stdout/);
  t.regex(r.stderr, /"msg":"spec violations seen in this session:\\n\s+\d+\s+error\s+STDIO-STDOUT-CLEAN/);
  const rules = new Set(received.map((x) => x.violation.rule));
  t.true(rules.has('STDIO-STDOUT-CLEAN') && rules.has('ENV-UTF8'), 'the webhook got the alerts');
  t.true(
    received.every((x) => x.text.startsWith('mcp-cassette: ERROR ')),
    'with a Slack-compatible text',
  );
  const execLines = readFileSync(execOut, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { rule: string });
  t.deepEqual(execLines.map((x) => x.rule).sort(), received.map((x) => x.violation.rule).sort(), 'the exec sink got the same alerts');

  const s = readCassette(cassette).sessions[0]!;
  t.true((s.violations ?? []).length >= 3, 'violations are stored with the session');
  t.deepEqual(s.violations, validateSession(s, { rules: RULES }), 'live verdicts equal offline verdicts, message numbers included');
});

test('--no-validate records without judging; a clean exit stays 0', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'off.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo'], { extra: ['--no-validate', '--fail-on', 'error'] });
  const done = collect(proxy);
  proxy.stdin!.end('not json\n' + line({ jsonrpc: '2.0', id: 1, method: 'noise' }));
  const r = await done;
  t.is(r.code, 0);
  t.is(readCassette(cassette).sessions[0]!.violations, undefined);
  t.false(/spec violations/.test(r.stderr));
});

test('a stdio line past the live size limit is recorded, not judged live (a warning names it); later messages keep their seq', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'big-live.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'trailing'], { extra: ['--log-level', 'info'] });
  const done = collect(proxy);
  // 9 MB: above the live limit (8 MB). The server writes it in pipe-sized chunks, most of which
  // the proxy hands to the validator by size only.
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'big', params: { mb: 9 } }));
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 2, method: 'noise' }));
  // The warning comes from the live validator while the session is open (it starts after the
  // server's first answer; a session closed before then is judged only when written).
  await waitForOutput(proxy.stderr!, (s) => s.includes('too large to validate live'), 30_000);
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 0);
  const s = readCassette(cassette).sessions[0]!;
  const big = s.messages.find((m) => m.bytes > 8 * 1024 * 1024)!;
  t.is((big.json as { result: { text: string } }).result.text.length, 9 * 1024 * 1024, 'the cassette holds the whole line');
  t.true(
    r.stdout.includes(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(9 * 1024 * 1024) } }) + '\n')),
    'forwarded intact',
  );
  t.true(r.stderr.includes(`message #${big.seq} (${big.bytes} bytes) is too large to validate live; it is recorded as is`));
  const offline = validateSession(s, { rules: RULES }).filter((v) => v.seq !== big.seq);
  t.true(
    offline.some((v) => v.rule === 'STDIO-STDOUT-CLEAN' && v.seq > big.seq),
    'the noise after the large line is judged',
  );
  t.deepEqual(
    s.violations?.filter((v) => v.seq !== big.seq),
    offline,
    'live verdicts of the other messages equal offline verdicts, seqs included',
  );
});

test('a finding repeated on several tools and resources: one alert at the webhook, and the summary names each distinct subject', async (t) => {
  const dir = tempDir(t);
  const hook = await startWebhook(t, (r, h) => h.answer(r, 204));
  const cassette = join(dir, 'subjects.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo'], { extra: ['--log-level', 'info', '--alert-webhook', hook.url] });
  const done = collect(proxy);
  // The echo server answers each 2026-07-28 request with {"echo": params}: no resultType, and a
  // tools/call result without content, on every call.
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
  };
  const calls = [
    ['tools/call', { name: 'alpha', arguments: {} }],
    ['tools/call', { name: 'beta', arguments: {} }],
    ['tools/call', { name: 'alpha', arguments: {} }],
    ['resources/read', { uri: 'file:///notes.txt' }],
  ] as const;
  proxy.stdin!.write(
    calls.map(([method, params], i) => line({ jsonrpc: '2.0', id: i + 1, method, params: { ...params, _meta: meta } })).join(''),
  );
  // Six distinct findings (rule and place): the session ends once the webhook has all six.
  await hook.until(() => hook.answered === 6);
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 0);
  const summary = logRecords(r.stderr).find((x) => x.summary)?.summary as { rule: string; count: number; subjects?: string[] }[];
  const row = (rule: string) => summary.find((x) => x.rule === rule);
  t.deepEqual(row('TOOLS-CALL-SHAPE'), { rule: 'TOOLS-CALL-SHAPE', severity: 'error', count: 3, subjects: ['alpha', 'beta'] });
  t.deepEqual(row('ENV-RESULTTYPE-PRESENT'), {
    rule: 'ENV-RESULTTYPE-PRESENT',
    severity: 'error',
    count: 4,
    subjects: ['alpha', 'beta', 'file:///notes.txt'],
  });
  t.regex(r.stderr, /\s3  error    TOOLS-CALL-SHAPE  \(alpha, beta\)/, 'the summary line names them');
  // Repeats are counted, not sent: one alert per rule and place, pointing at the first answer.
  const s = readCassette(cassette).sessions[0]!;
  const sent = hook.requests.map((q) => `${q.alert.violation.rule} #${q.alert.violation.seq} ${q.alert.violation.path}`);
  t.is(
    hook.requests.length,
    new Set(s.violations!.map((v) => `${v.rule} ${v.path}`)).size,
    `one alert per rule and place: ${sent.join(', ')}`,
  );
  const firstAnswer = s.messages.find((m) => m.direction === 'server-to-client')!.seq;
  const shape = hook.requests.filter((q) => q.alert.violation.rule === 'TOOLS-CALL-SHAPE');
  t.deepEqual(
    shape.map((q) => [q.alert.violation.seq, q.alert.violation.path]),
    [[firstAnswer, '/result/content']],
  );
  t.is(s.violations!.filter((v) => v.rule === 'TOOLS-CALL-SHAPE').length, 3, 'the cassette keeps every violation');
});
