import test from 'ava';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageBytes } from '../../lib/message.js';
import { cli, exampleServer, node, rawServer } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { channelBytes, line, readCassette, startRecorder, waitForSessions } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

const journals = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.journal'));
/** A finisher holds the cassette's lock (a `.lock` folder) while it writes. */
const finisherBusy = (dir: string) => readdirSync(dir).some((f) => f.endsWith('.lock'));

async function waitFor(ok: () => boolean, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const gone = (): boolean => {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  };
  await waitFor(gone, ms).catch(() => {});
  return gone();
}

test('argv, cwd and environment reach the server untouched; stdout carries only server bytes', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'env.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo', 'arg with spaces', '--token=s3cret', ''], {
    cwd: dir,
    env: { ...process.env, MCP_TEST_VALUE: 'héllo "quoted"', UNRELATED_SECRET: 'zzz-never-on-disk' },
  });
  const done = collect(proxy);
  proxy.stdin!.end(line({ jsonrpc: '2.0', id: 1, method: 'env' }));
  const r = await done;
  t.is(r.code, 0);
  const answer = JSON.parse(r.stdout.toString()) as { result: { argv: string[]; cwd: string; env: Record<string, string> } };
  t.deepEqual(answer.result.argv, ['echo', 'arg with spaces', '--token=s3cret', '']);
  t.is(answer.result.cwd, dir);
  t.deepEqual(answer.result.env, { MCP_TEST_VALUE: 'héllo "quoted"' });
  const s = readCassette(cassette).sessions[0]!;
  t.deepEqual((s.target as { command: string[] }).command, [node, rawServer, 'echo', 'arg with spaces', '--token=[REDACTED]', '']);
  const { messages: _traffic, ...metadata } = s;
  t.false(JSON.stringify(metadata).includes('s3cret'), 'the secret in argv is masked (the server echoing it back is traffic)');
  t.false(readFileSync(cassette, 'utf8').includes('zzz-never-on-disk'), 'environment values are never stored');
  t.regex(r.stderr, /raw-server: stdin closed/, "the server's stderr passes through");
});

test('non-JSON lines, invalid UTF-8, CRLF and a line written byte by byte pass through and are recorded exactly', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'noise.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'trailing']);
  const done = collect(proxy);
  proxy.stdin!.write('this is not JSON from the host\n');
  proxy.stdin!.end(line({ jsonrpc: '2.0', id: 7, method: 'noise' }));
  const r = await done;
  t.is(r.code, 0);
  const expected = Buffer.concat([
    Buffer.from('server starting up (not JSON)\n'),
    Buffer.from([0xff, 0xfe, 0x41, 0xc3, 0x28, 0x0a]),
    Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"crlf"}}\r\n'),
    Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"split"}}\n'),
    Buffer.from('{"jsonrpc":"2.0","id":7,"result":{"noise":true}}\n'),
    Buffer.from('{"partial":'),
  ]);
  t.true(r.stdout.equals(expected), 'the host got every byte unchanged');
  const s = readCassette(cassette).sessions[0]!;
  t.true(channelBytes(s, 'stdout').equals(expected), 'the cassette holds the same bytes');
  const out = s.messages.filter((m) => m.channel === 'stdout');
  t.deepEqual(
    out.map((m) => m.kind),
    ['text', 'text', 'notification', 'notification', 'response', 'text'],
  );
  t.truthy(out[1]!.rawBase64);
  t.is(out[2]!.raw, '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"crlf"}}\r');
  t.true(out[5]!.unterminated);
  const fromHost = s.messages.find((m) => m.channel === 'stdin');
  t.like(fromHost, { kind: 'text', raw: 'this is not JSON from the host' });
});

test('50 MB lines in both directions are forwarded intact and recorded', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'big.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const done = collect(proxy);
  const bigParams = { blob: 'y'.repeat(50 * 1024 * 1024) };
  const request = line({ jsonrpc: '2.0', id: 1, method: 'size', params: bigParams });
  // The host ends stdin once both answers are out: from EOF on, record gives the server its
  // shutdown grace (2 s) and then SIGTERM, and 50 MB through a loaded machine can take longer.
  const answered = new Promise<void>((resolve) => {
    let newlines = 0;
    const onData = (c: Buffer): void => {
      for (let i = c.indexOf(10); i !== -1; i = c.indexOf(10, i + 1)) newlines++;
      if (newlines < 2) return;
      proxy.stdout!.off('data', onData);
      resolve();
    };
    proxy.stdout!.on('data', onData);
  });
  proxy.stdin!.write(request);
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 2, method: 'big', params: { mb: 50 } }));
  await Promise.race([answered, done]);
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 0, `signal ${r.signal}; stderr: ${r.stderr}`);
  const lines = r.stdout.toString('utf8').split('\n');
  t.is(lines.length, 3);
  const size = JSON.parse(lines[0]!) as { result: { bytes: number; sha256: string } };
  t.is(size.result.sha256, createHash('sha256').update(JSON.stringify(bigParams)).digest('hex'), 'the server got the 50 MB request intact');
  const big = JSON.parse(lines[1]!) as { result: { text: string } };
  t.is(big.result.text.length, 50 * 1024 * 1024);
  const s = readCassette(cassette).sessions[0]!;
  const recordedRequest = s.messages.find((m) => m.channel === 'stdin' && (m.json as { id: number }).id === 1)!;
  t.is(recordedRequest.bytes, request.length - 1);
  const recordedAnswer = s.messages.find((m) => m.channel === 'stdout' && (m.json as { id: number }).id === 2)!;
  t.true(messageBytes(recordedAnswer).equals(Buffer.from(lines[1]!)));
});

test('a server that crashes mid-request: recorded up to the crash, proxy exits with its status', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'crash.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const done = collect(proxy);
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 2, method: 'crash' }));
  const r = await done; // stdin still open: the proxy must end because the server did
  t.is(r.code, 3);
  const s = readCassette(cassette).sessions[0]!;
  t.is(s.messages.filter((m) => m.channel === 'stdin').length, 2, 'both requests');
  t.is(s.messages.filter((m) => m.channel === 'stdout').length, 2, 'the ping answer and the progress notification');
  t.like(s.end, { reason: 'exit', exitCode: 3, signal: null });
  t.deepEqual(journals(dir), []);
});

test('host closes stdin early: answers still in flight are forwarded, then the server exits', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'early.cassette.json');
  // A grace no loaded machine runs out of: the server ends by itself once it has answered, and
  // that is the event waited for (with the default 2 s, a slow start of the server meant SIGTERM).
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo'], { extra: ['--shutdown-grace', '600000'] });
  const done = collect(proxy);
  proxy.stdin!.end(line({ jsonrpc: '2.0', id: 1, method: 'slow', params: { ms: 300 } }));
  const r = await done;
  t.is(r.code, 0);
  t.is(r.stdout.toString(), '{"jsonrpc":"2.0","id":1,"result":{"slow":true}}\n');
  t.like(readCassette(cassette).sessions[0]!.end, { exitCode: 0, initiatedBy: 'host-eof' });
});

test('a server that ignores EOF is terminated after the grace period; one that ignores SIGTERM is killed', async (t) => {
  const dir = tempDir(t);
  for (const [mode, signal] of [
    ['ignore-eof', 'SIGTERM'],
    ['ignore-term', 'SIGKILL'],
  ] as const) {
    const cassette = join(dir, `${mode}.cassette.json`);
    const proxy = startRecorder(t, cassette, [node, rawServer, mode], { extra: ['--shutdown-grace', '1000'] });
    const done = collect(proxy);
    proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
    const eofAt = Date.now();
    proxy.stdin!.end(); // the server ignores this EOF
    const r = await done;
    // The sequence the server saw: stdin closed, then SIGTERM no sooner than the grace after the
    // host's EOF (a proxy that skipped the grace would signal at once; a slow machine only makes
    // the wait longer, never shorter), then, if it ignored SIGTERM, SIGKILL.
    const term = /raw-server: (?:ignoring )?SIGTERM \(after stdin closed, at (\d+)\)/.exec(r.stderr);
    t.truthy(term, `${mode}: the server got SIGTERM after its stdin closed`);
    t.true(
      Number(term?.[1]) - eofAt >= 1000,
      `${mode}: SIGTERM came ${Number(term?.[1]) - eofAt} ms after EOF, not before the 1000 ms grace`,
    );
    t.is(r.signal, signal, `${mode}: the proxy ends the way its server ended`);
    const s = readCassette(cassette).sessions[0]!;
    t.like(s.end, { signal, initiatedBy: 'host-eof' });
    t.is(s.messages.filter((m) => m.channel === 'stdout').length, 1);
  }
});

test('SIGTERM and SIGINT are forwarded to the server and the cassette is still written', async (t) => {
  const dir = tempDir(t);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    const cassette = join(dir, `${signal}.cassette.json`);
    const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
    const done = collect(proxy);
    proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
    proxy.kill(signal);
    const r = await done;
    if (signal === 'SIGINT') {
      t.is(r.code, 130, 'the raw server exits 130 on SIGINT and the proxy passes that on');
      t.regex(r.stderr, /raw-server: got SIGINT/);
    } else {
      t.is(r.signal, 'SIGTERM');
    }
    const s = readCassette(cassette).sessions[0]!;
    t.is(s.messages.filter((m) => m.channel !== 'stderr').length, 2);
    t.like(s.end, { initiatedBy: 'proxy-signal' });
  }
});

test('a server that cannot be started: one clear line on stderr, non-zero exit, nothing written', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'nope.cassette.json');
  const proxy = startRecorder(t, cassette, ['/no/such/mcp-server', '--flag']);
  proxy.stdin!.end();
  const r = await collect(proxy);
  t.is(r.code, 127);
  t.is(r.stdout.length, 0);
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('mcp-cassette:'));
  t.is(lines.length, 1);
  t.regex(lines[0]!, /cannot start the server "\/no\/such\/mcp-server" \(command not found\)/);
  t.false(existsSync(cassette));
  t.deepEqual(journals(dir), []);
});

test('record without a server command is a usage error', async (t) => {
  const r = await collect(spawnTracked(t, node, [cli, 'record', '--cassette', 'x.cassette.json', '--']));
  t.is(r.code, 2);
  t.regex(r.stderr, /record needs the server command after `--`/);
});

test('SIGKILL of the proxy: recover restores every forwarded message, and so does the next record', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'killed.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  for (let i = 1; i <= 5; i++) proxy.stdin!.write(line({ jsonrpc: '2.0', id: i, method: 'ping', params: { i } }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":5'));
  proxy.kill('SIGKILL');
  await collect(proxy);
  t.is(journals(dir).length, 1, 'the journal survived');
  t.false(existsSync(cassette));

  const recovered = await collect(spawnTracked(t, node, [cli, 'recover', cassette]));
  t.is(recovered.code, 0, recovered.stderr);
  t.regex(recovered.stdout.toString(), /recovered session .* \(10 messages/);
  const s = readCassette(cassette).sessions[0]!;
  t.is(s.end?.reason, 'recovered');
  t.deepEqual(
    s.messages.filter((m) => m.channel === 'stdout').map((m) => (m.json as { id: number }).id),
    [1, 2, 3, 4, 5],
  );
  t.deepEqual(journals(dir), []);

  // The same through the next `record` on that cassette.
  const second = startRecorder(t, cassette, [node, rawServer, 'echo']);
  second.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await waitForOutput(second.stdout!, (s) => s.includes('"id":1'));
  second.kill('SIGKILL');
  await collect(second);
  const third = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const done = collect(third);
  third.stdin!.end(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await done;
  const c = readCassette(cassette);
  t.is(c.sessions.length, 3);
  t.is(c.sessions.filter((x) => x.end?.reason === 'recovered').length, 2);
  t.deepEqual(journals(dir), []);
});

test('recover leaves the journal of a recorder that is still running alone', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'live.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
  const r = await collect(spawnTracked(t, node, [cli, 'recover', cassette]));
  t.is(r.code, 0);
  t.regex(r.stderr, /still running/);
  t.is(journals(dir).length, 1);
  const done = collect(proxy);
  proxy.stdin!.end();
  await done;
  t.is(readCassette(cassette).sessions[0]!.end?.reason, 'exit');
});

test('concurrent recorders into one cassette keep every session', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'shared.cassette.json');
  const n = 6;
  const proxies = Array.from({ length: n }, () => startRecorder(t, cassette, [node, rawServer, 'echo']));
  const done = proxies.map((p) => collect(p));
  proxies.forEach((p, i) => {
    p.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping', params: { proxy: i } }));
  });
  await Promise.all(proxies.map((p) => waitForOutput(p.stdout!, (s) => s.includes('"id":1'))));
  proxies.forEach((p) => p.stdin!.end()); // all finish at the same moment
  const results = await Promise.all(done);
  t.deepEqual(
    results.map((r) => r.code),
    Array(n).fill(0),
  );
  const c = await waitForSessions(cassette, n);
  t.is(c.sessions.length, n);
  const seen = c.sessions
    .map((s) => (s.messages.find((m) => m.channel === 'stdin')!.json as { params: { proxy: number } }).params.proxy)
    .sort();
  t.deepEqual(
    seen,
    Array.from({ length: n }, (_, i) => i),
  );
});

test('a corrupt cassette is refused at the start: one line that names the fix, exit 2, the server ended, nothing written', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'corrupt.cassette.json');
  writeFileSync(cassette, '{ this is not a cassette');
  const pidFile = join(dir, 'server.pid');
  const proxy = startRecorder(t, cassette, [
    node,
    '-e',
    `require('fs').writeFileSync(${JSON.stringify(pidFile)}, String(process.pid)); setInterval(() => {}, 1000)`,
  ]);
  const r = await collect(proxy);
  t.is(r.code, 2);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0]!, /corrupt\.cassette\.json cannot take a new session: it is not valid JSON/);
  t.true(lines[0]!.includes(`mv ${cassette} ${cassette}.broken`), lines[0]);
  t.is(readFileSync(cassette, 'utf8'), '{ this is not a cassette');
  t.deepEqual(journals(dir), []);
  // The server the bin had already spawned is gone (when it got as far as saying who it is). If it
  // was ended before its first line ran there is no pid to look for; a server left running either
  // way names this test's directory, and tempDir's teardown fails the test for it.
  if (existsSync(pidFile)) t.true(await goneWithin(Number(readFileSync(pidFile, 'utf8')), 5000), 'the server was ended');
  else t.log('the server was ended before it wrote its pid: the directory teardown checks that nothing of it is left');
});

test('a cassette broken during the session: the journal is kept, every read says why and adds it once the file is moved aside', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'later.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const done = collect(proxy);
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
  writeFileSync(cassette, '{ broken by hand'); // after the start check
  proxy.stdin!.end();
  const r = await done;
  t.is(r.code, 0, "the proxy ends as its server did; the cassette write is the finisher's");
  t.is(r.stdout.toString(), '{"jsonrpc":"2.0","id":1,"result":{"echo":null}}\n');
  await waitFor(() => journals(dir).length === 1 && !finisherBusy(dir));

  const show = await collect(spawnTracked(t, node, [cli, 'show', cassette]));
  t.is(show.code, 2);
  t.regex(
    show.stderr,
    /left in journals could not be added \(cassette .* is not valid JSON.*\); they are kept, and any read adds them once the cassette is fixed or moved aside/,
  );
  t.is(readFileSync(cassette, 'utf8'), '{ broken by hand');
  t.is(journals(dir).length, 1, 'the journal is kept');

  const stillBroken = await collect(spawnTracked(t, node, [cli, 'recover', cassette]));
  t.is(stillBroken.code, 2);
  t.is(journals(dir).length, 1, 'recover refuses to touch the corrupt file and keeps the journal');

  rmSync(cassette); // the user moves the broken file away
  const shown = await collect(spawnTracked(t, node, [cli, 'show', cassette]));
  t.is(shown.code, 0, shown.stderr);
  t.regex(shown.stderr, /later\.cassette\.json: added 1 session that its recorder left in a journal/);
  t.is(readCassette(cassette).sessions[0]!.messages.filter((m) => m.channel === 'stdout').length, 1);
  t.is(readCassette(cassette).sessions[0]!.end?.reason, 'exit');
  t.deepEqual(journals(dir), []);
});

test('discover → -32601 → initialize on the same pipe (in-place probing) is one session', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'inplace.cassette.json');
  const proxy = startRecorder(t, cassette, [node, exampleServer, 'stdio-legacy']);
  const done = collect(proxy);
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  };
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('-32601'));
  proxy.stdin!.write(
    line({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  );
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
  proxy.stdin!.end(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  const r = await done;
  t.is(r.code, 0);
  const s = readCassette(cassette).sessions[0]!;
  t.like(s.protocol, { revision: '2025-11-25', era: 'legacy', negotiation: 'initialize', discover: { errorCode: -32601 } });
  t.like(s.clientInfo, { name: 'raw' });
});
