/**
 * A host's budget (issue 28): the recorder exits with its server, nothing the host does loses a
 * session (stdin end, SIGTERM, SIGKILL at any moment), verdicts come while the session is open,
 * and the server's whole process tree ends with the session. Real processes and pipes; real SDK
 * clients where the host's behaviour is what is tested.
 */
import test, { type ExecutionContext } from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { channelBytes, line, readCassette, recordArgs, startRecorder } from '../helpers/recording.js';
import { cli, node, rawServer } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { defectServer } from '../helpers/view.js';
import { RULES } from '../../validators/rules/index.js';
import { tempDir } from '../helpers/tmp.js';

const run = promisify(execFile);
const journals = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.journal'));
const v1Init = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'lifecycle-test', version: '1.0.0' } };

/** What `validate` finds offline, as comparable keys (rule, seq, path). */
async function offlineVerdicts(cassette: string): Promise<string[]> {
  const r = await run(node, [cli, 'validate', '--format', 'json', cassette]).catch((e: { stdout: string }) => e);
  const out = JSON.parse(r.stdout) as { violations: { rule: string; seq: number; path?: string }[] };
  return out.violations.map((v) => `${v.rule} #${v.seq} ${v.path ?? ''}`).sort();
}

function storedVerdicts(s: RecordedSession): string[] {
  return (s.violations ?? []).map((v) => `${v.rule} #${v.seq} ${v.path ?? ''}`).sort();
}

/** Whether a process is gone (or a zombie nobody waits for: a killed one reparented to init). */
function gone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

async function eventually(ok: () => boolean, ms = 10_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!ok() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return ok();
}

test('the v1 SDK close sequence: the proxy ends with its server, the session is in the cassette when read, live verdicts equal offline', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'v1.cassette.json');
  const transport = new StdioClientTransport({
    command: node,
    args: recordArgs(cassette, [node, defectServer, 'stdio', '--defect', 'output-schema']),
    stderr: 'pipe',
    cwd: dir,
  });
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'lifecycle-v1', version: '1.0.0' }, { capabilities: {} });
  await client.connect(transport);
  const proxyPid = transport.pid!;
  try {
    const tools = await client.listTools();
    t.true(tools.tools.some((x) => x.name === 'lookup'));
    // The v1 client checks structuredContent against the outputSchema itself and refuses it: the
    // server's defect, which the proxy alerts on while the session is still open.
    await t.throwsAsync(client.callTool({ name: 'lookup', arguments: { what: 'apples' } }));
    await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    await waitForOutput(transport.stderr as unknown as NodeJS.ReadableStream, () => stderr.includes('TOOLS-OUTPUT-CONFORM'), 30_000);
  } finally {
    // stdin ends; SIGTERM would follow 2 s later, SIGKILL 2 s after that.
    await client.close();
  }
  t.true(await eventually(() => gone(proxyPid)), 'the proxy is gone');
  const s = readCassette(cassette).sessions;
  t.is(s.length, 1);
  t.like(s[0]!.end, { reason: 'exit', exitCode: 0, initiatedBy: 'host-eof' });
  t.deepEqual(
    s[0]!.messages
      .filter((m) => m.direction === 'client-to-server' && m.kind === 'request')
      .map((m) => (m.json as { method: string }).method),
    ['initialize', 'tools/list', 'tools/call', 'tools/call'],
  );
  t.true(storedVerdicts(s[0]!).some((v) => v.startsWith('TOOLS-OUTPUT-CONFORM')));
  t.deepEqual(storedVerdicts(s[0]!), await offlineVerdicts(cassette));
});

test("a short session's alerts all come live, while the host still has it open", async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'short.cassette.json');
  const proxy = startRecorder(t, cassette, [node, defectServer, 'stdio', '--defect', 'output-schema'], { extra: ['--log-level', 'warn'] });
  let stderr = '';
  proxy.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: v1Init }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
  proxy.stdin!.write(line({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }));
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lookup', arguments: { what: 'x' } } }));
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {} } }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":4'));
  // Every violation of these messages is alerted before the host closes the session (no
  // message of this session may wait for its end to be judged).
  await waitForOutput(proxy.stderr!, () => stderr.includes('TOOLS-OUTPUT-CONFORM'), 30_000);
  const live = [...stderr.matchAll(/"rule":"([A-Z0-9-]+)","severity":"[a-z]+","session":"[^"]+","seq":(\d+)/g)].map(
    (m) => `${m[1]} #${m[2]}`,
  );
  const done = collect(proxy);
  proxy.stdin!.end();
  t.is((await done).code, 0);
  const s = readCassette(cassette).sessions[0]!;
  const offline = await offlineVerdicts(cassette);
  t.deepEqual(storedVerdicts(s), offline);
  // The session-end rules are judged when it ends; every other verdict was an alert already.
  const endRules = new Set(RULES.filter((r) => 'checkSessionEnd' in r || 'checkRecording' in r).map((r) => r.id));
  const notEnd = offline.filter((v) => !endRules.has(v.split(' ')[0]!)).map((v) => v.split(' ').slice(0, 2).join(' '));
  t.true(notEnd.length > 0);
  for (const v of notEnd) t.true(live.includes(v), `${v} was alerted while the session was open`);
});

test('a session closed before its validator started is judged by the finisher as validate judges it, a frame over 4 MB included', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'probe-like.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const done = collect(proxy);
  // Closed at once, as a probe is: the live validator never starts, and the finisher judges the
  // session, whose 5 MB answer the fold keeps in its spill file (not in memory).
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'big', params: { mb: 5 } }));
  proxy.stdin!.end(line({ jsonrpc: '2.0', id: 2, method: 'ping' }));
  t.is((await done).code, 0);
  const s = readCassette(cassette).sessions[0]!;
  t.true(
    s.messages.some((m) => m.bytes > 5 * 1024 * 1024),
    'the large answer is in the session',
  );
  const offline = await offlineVerdicts(cassette);
  t.deepEqual(storedVerdicts(s), offline);
  t.false(
    offline.some((v) => v.startsWith('ENV-JSONRPC20')),
    offline.join('\n'),
  );
});

/** A small seeded generator: the kill points differ by seed, and a failure names its seed. */
function prng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

const SEED = Number(process.env.MCPC_KILL_SEED ?? 28);

test(`SIGKILL at random points of a session (seed ${SEED}): every session is in the cassette when read, with every forwarded byte, and stored verdicts equal offline`, async (t) => {
  const random = prng(SEED);
  for (let round = 0; round < 6; round++) {
    const dir = tempDir(t);
    const cassette = join(dir, 'killed.cassette.json');
    const proxy = startRecorder(t, cassette, [node, defectServer, 'stdio', '--defect', 'output-schema']);
    let received = Buffer.alloc(0);
    proxy.stdout!.on('data', (d: Buffer) => (received = Buffer.concat([received, d])));
    const done = collect(proxy);
    const steps = [
      line({ jsonrpc: '2.0', id: 1, method: 'initialize', params: v1Init }),
      line({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      line({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
      line({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'lookup', arguments: { what: 'x' } } }),
      line({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'echo', arguments: { text: 'y'.repeat(200_000) } } }),
      line({ jsonrpc: '2.0', id: 5, method: 'ping' }),
    ];
    // Kill after k steps: 0 (before any message), mid-session, or once stdin has ended (the exit).
    const k = Math.floor(random() * (steps.length + 2));
    const waitMs = Math.floor(random() * 40);
    for (let i = 0; i < Math.min(k, steps.length); i++) {
      proxy.stdin!.write(steps[i]!);
      const id = /"id":(\d+)/.exec(steps[i]!)?.[1];
      if (id) await waitForOutput(proxy.stdout!, () => received.includes(`"id":${id},`));
    }
    if (k > steps.length) proxy.stdin!.end();
    await new Promise((r) => setTimeout(r, waitMs));
    proxy.kill('SIGKILL');
    await done;
    if (journals(dir).length === 0 && !existsSync(cassette)) {
      // Killed before its journal was open: then nothing was forwarded either.
      t.is(received.length, 0, `round ${round} (k=${k}): nothing forwarded without a journal`);
      continue;
    }
    // A reader settles what the killed recorder left (no `recover`).
    const shown = await collect(spawnTracked(t, node, [cli, 'show', '--json', cassette]));
    t.is(shown.code, 0, `round ${round} (k=${k}): ${shown.stderr}`);
    const c = readCassette(cassette);
    t.is(c.sessions.length, 1, `round ${round} (k=${k})`);
    const s = c.sessions[0]!;
    const recorded = channelBytes(s, 'stdout');
    t.true(recorded.subarray(0, received.length).equals(received), `round ${round} (k=${k}): every byte the host got is in the cassette`);
    t.deepEqual(storedVerdicts(s), await offlineVerdicts(cassette), `round ${round} (k=${k})`);
    t.deepEqual(journals(dir), []);
  }
});

test('a journal cut mid-frame by a kill is folded with the cut frame said, never a crash', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'torn.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const done = collect(proxy);
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping', params: { pad: 'z'.repeat(500) } }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
  proxy.kill('SIGKILL');
  await done;
  const [journal] = journals(dir);
  t.truthy(journal);
  // The kill landed inside the write of the last chunk: its record is cut 100 bytes short.
  const path = join(dir, journal!);
  truncateSync(path, readFileSync(path).length - 100);
  const shown = await collect(spawnTracked(t, node, [cli, 'show', cassette]));
  t.is(shown.code, 0, shown.stderr);
  t.regex(
    shown.stderr,
    /torn\.cassette\.json: added 1 session .*the last frame on stdout \(\d+ bytes\) was cut short when the recorder was killed/,
  );
  const s = readCassette(cassette).sessions[0]!;
  t.like(s.end, { reason: 'recovered', torn: true });
  const last = s.messages.filter((m) => m.channel === 'stdout').at(-1)!;
  t.true(last.unterminated);
  t.true((last.raw ?? '').startsWith('{"jsonrpc":"2.0","id":1'));

  // A journal that is not one at all is said and kept, and the read goes on.
  writeFileSync(join(dir, '.torn.cassette.json.garbage.journal'), 'not a journal\n');
  const again = await collect(spawnTracked(t, node, [cli, 'show', cassette]));
  t.is(again.code, 0, again.stderr);
  t.regex(again.stderr, /a journal could not be added \(journal .*garbage\.journal cannot be read: the header line is not JSON\)/);
  t.true(existsSync(join(dir, '.torn.cassette.json.garbage.journal')));
});

test("two recorders on one cassette, one killed mid-session: neither loses the other's session", async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'shared.cassette.json');
  const a = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const b = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const doneA = collect(a);
  const doneB = collect(b);
  a.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping', params: { who: 'a' } }));
  b.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping', params: { who: 'b' } }));
  await Promise.all([waitForOutput(a.stdout!, (s) => s.includes('"id":1')), waitForOutput(b.stdout!, (s) => s.includes('"id":1'))]);
  a.kill('SIGKILL');
  b.stdin!.end();
  await Promise.all([doneA, doneB]);
  // b's finisher also settles what a's recorder left; a reader would too.
  await collect(spawnTracked(t, node, [cli, 'show', cassette]));
  const c = readCassette(cassette);
  const who = c.sessions.map((s) => (s.messages.find((m) => m.channel === 'stdin')!.json as { params: { who: string } }).params.who).sort();
  t.deepEqual(who, ['a', 'b']);
  t.deepEqual(c.sessions.map((s) => s.end?.reason).sort(), ['exit', 'recovered']);
});

/** A launcher like `npx -y <package>`: it runs the real server as its child, with the same
 * pipes, and leaves it be when the host's stdin ends; the server ignores stdin's end (and,
 * with `stubborn`, SIGTERM too). Their pids go to `pids`. */
function launcher(dir: string, stubborn: boolean): string[] {
  const server = join(dir, 'server.cjs');
  writeFileSync(
    server,
    `require('fs').appendFileSync(${JSON.stringify(join(dir, 'pids'))}, process.pid + '\\n');
${stubborn ? "process.on('SIGTERM', () => {});" : ''}
process.stdin.on('data', (d) => { for (const l of String(d).split('\\n').filter(Boolean)) { const m = JSON.parse(l); if (m.id !== undefined) process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: {} }) + '\\n'); } });
process.stdin.on('end', () => {}); setInterval(() => {}, 1000);`,
  );
  const launch = join(dir, 'launch.cjs');
  writeFileSync(
    launch,
    `require('fs').appendFileSync(${JSON.stringify(join(dir, 'pids'))}, process.pid + '\\n');
const c = require('child_process').spawn(process.execPath, [${JSON.stringify(server)}], { stdio: 'inherit' });
c.on('exit', (code) => process.exit(code ?? 1));`,
  );
  return [node, launch];
}

for (const stubborn of [false, true]) {
  test(`the server's whole process tree ends with the session (a launcher's child that ignores stdin's end${stubborn ? ' and SIGTERM' : ''})`, async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'tree.cassette.json');
    const proxy = startRecorder(t, cassette, launcher(dir, stubborn), { extra: ['--shutdown-grace', '300'] });
    const done = collect(proxy);
    proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
    await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
    const pids = readFileSync(join(dir, 'pids'), 'utf8').trim().split('\n').map(Number);
    t.is(pids.length, 2, 'the launcher and its server');
    proxy.stdin!.end();
    await done;
    for (const pid of pids) t.true(await eventually(() => gone(pid)), `process ${pid} of the server's tree is gone`);
    const s = readCassette(cassette).sessions;
    t.is(s.length, 1);
    t.is(s[0]!.messages.filter((m) => m.channel === 'stdout').length, 1);
  });
}

test('SIGTERM twice and then SIGKILL, as a hurried host sends them: the session is there when read', async (t: ExecutionContext) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'signals.cassette.json');
  const proxy = startRecorder(t, cassette, [node, rawServer, 'echo']);
  const done = collect(proxy);
  proxy.stdin!.write(line({ jsonrpc: '2.0', id: 1, method: 'ping' }));
  await waitForOutput(proxy.stdout!, (s) => s.includes('"id":1'));
  proxy.kill('SIGTERM');
  proxy.kill('SIGTERM');
  setTimeout(() => proxy.kill('SIGKILL'), 5).unref();
  await done;
  const shown = await collect(spawnTracked(t, node, [cli, 'show', '--json', cassette]));
  t.is(shown.code, 0, shown.stderr);
  const s = readCassette(cassette).sessions;
  t.is(s.length, 1);
  t.deepEqual(
    s[0]!.messages.filter((m) => m.channel === 'stdout').map((m) => (m.json as { id: number }).id),
    [1],
  );
});
