/**
 * Issue 17: live validation at load keeps its verdicts. The same traffic recorded with 1, 2 and 3
 * validator workers (`--validate-workers`), and with a backlog bound so small that the live
 * validator sheds (MCPC_LIVE_MAX_BACKLOG), stores the same verdicts, which are also what
 * `validate` finds offline: what was shed is judged when the cassette is written.
 */
import test, { type ExecutionContext } from 'ava';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cassette } from '../../lib/cassette/cassette.js';
import type { Violation } from '../../lib/violation.js';
import { validateRecordings } from '../../validators/recording.js';
import { RULES } from '../../validators/rules/index.js';
import { validateSessions } from '../../validators/validate-sessions.js';
import { startTappedUpstream } from '../helpers/http-taps.js';
import { cli, everythingServer, node } from '../helpers/paths.js';
import { collect, delay, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { readCassette } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';
import { runV1HttpScenario } from '../peers/v1-http-client.js';
import { v1SessionfulHandler } from '../servers/v1-http-server.js';

/** A cassette's verdicts, comparable across recordings: sessions by their place, sorted. */
function verdicts(cassette: Cassette, offline = false): string[] {
  const place = new Map(cassette.sessions.map((s, i) => [s.id, i]));
  const options = { rules: RULES };
  const found: Violation[] = offline
    ? [...validateSessions(cassette.sessions, options), ...validateRecordings(cassette.sessions, options)]
    : cassette.sessions.flatMap((s) => s.violations ?? []);
  return found.map((v) => `${place.get(v.session)}#${v.seq} ${v.rule} ${v.severity} ${v.path}`).sort();
}

async function recordHttp(t: ExecutionContext, upstream: string, cassette: string, extra: string[], env: Record<string, string> = {}) {
  const child = spawnTracked(t, node, [cli, 'record', '--upstream', upstream, '--cassette', cassette, '--log-level', 'warn', ...extra], {
    env: { ...process.env, ...env },
  });
  const finished = collect(child);
  const url = (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).split('\n')[0]!.trim();
  // Several 2025 sessions of the official v1 SDK client, one after another (the same traffic in
  // every run), then 2026-07-28 stateless requests from two callers, which the 2025-only server
  // refuses (verdicts on the refusals too).
  for (let i = 0; i < 6; i++) {
    await runV1HttpScenario(url, async (client) => ({
      tools: await client.listTools(),
      add: await client.callTool({ name: 'add', arguments: { a: i, b: 1 } }),
    }));
  }
  for (const token of ['alice', 'bob', 'alice']) {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
          },
        },
      }),
    });
    await res.text();
  }
  child.kill('SIGINT');
  const result = await finished;
  return { cassette: readCassette(cassette), stderr: result.stderr };
}

test('HTTP: the same traffic recorded with 1, 2 and 3 validator workers, and shedding, stores the same verdicts as validate finds', async (t) => {
  const dir = tempDir(t);
  const upstream = await startTappedUpstream(t, v1SessionfulHandler());
  const one = await recordHttp(t, upstream.url, join(dir, 'w1.cassette.json'), []);
  const expected = verdicts(one.cassette);
  t.true(expected.length > 0, 'the traffic has verdicts to compare');
  t.deepEqual(expected, verdicts(one.cassette, true), 'one worker: live verdicts are the offline ones');
  t.true(one.cassette.sessions.length >= 8, 'six sessions and the stateless exchanges');
  for (const n of [2, 3]) {
    const run = await recordHttp(t, upstream.url, join(dir, `w${n}.cassette.json`), ['--validate-workers', String(n)]);
    t.is(run.cassette.sessions.length, one.cassette.sessions.length);
    t.deepEqual(verdicts(run.cassette), expected, `${n} workers: the same stored verdicts`);
  }
  // A backlog bound of 200 bytes: the live validator sheds at once; the cassette write judges all.
  const shed = await recordHttp(t, upstream.url, join(dir, 'shed.cassette.json'), [], { MCPC_LIVE_MAX_BACKLOG: '200' });
  t.regex(shed.stderr, /live validation fell more than .* behind the traffic and shed/);
  t.regex(shed.stderr, /live validation shed \d+ of \d+ messages; all \d+ were judged when the cassette was written/);
  t.deepEqual(verdicts(shed.cassette), expected, 'shed: the same stored verdicts, judged at write');
});

test('stdio: a recording whose live validator sheds stores the verdicts of one that does not (judged at cassette write)', async (t) => {
  const dir = tempDir(t);
  const record = async (name: string, env: Record<string, string>, logFile?: string) => {
    const cassette = join(dir, `${name}.cassette.json`);
    const child = spawnTracked(
      t,
      node,
      [
        cli,
        'record',
        '--log-level',
        'warn',
        ...(logFile ? ['--log-file', logFile] : []),
        '--cassette',
        cassette,
        '--',
        node,
        everythingServer,
        'stdio',
      ],
      { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const finished = collect(child);
    // The official reference server (server-everything) and a scripted client, the same each run.
    let text = '';
    let id = 0;
    child.stdout!.on('data', (c: Buffer) => (text += c.toString('utf8')));
    const request = async (method: string, params: object = {}): Promise<void> => {
      const mine = ++id;
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id: mine, method, params })}\n`);
      while (!text.split('\n').some((line) => line.includes(`"id":${mine}`) && !line.includes(`"method"`))) await delay(5);
    };
    await request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'shed-test', version: '1.0.0' } });
    child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await request('tools/list');
    for (let i = 0; i < 40; i++) await request('tools/call', { name: 'echo', arguments: { message: `m${i}` } });
    await request('tools/call', { name: 'no-such-tool', arguments: {} });
    await request('resources/list');
    await request('prompts/list');
    child.stdin!.end();
    const result = await finished;
    return { cassette: readCassette(cassette), stderr: result.stderr };
  };
  const whole = await record('whole', {});
  const expected = verdicts(whole.cassette);
  t.true(expected.length > 0, 'the traffic has verdicts to compare');
  t.deepEqual(expected, verdicts(whole.cassette, true), 'live verdicts are the offline ones');
  t.notRegex(whole.stderr, /shed/);

  const shed = await record('shed', { MCPC_LIVE_MAX_BACKLOG: '2000' }, join(dir, 'shed.log'));
  // Whoever wrote the cassette says so: the recorder itself when that was cheap at its exit, else
  // its finisher, which appends its lines once the cassette is written.
  const judgedLine =
    /(?:live validation did not judge every message of .*|live validation shed \d+ of \d+ messages); all (\d+) were judged when the cassette was written/;
  const readLog = (): string => (existsSync(join(dir, 'shed.log')) ? readFileSync(join(dir, 'shed.log'), 'utf8') : '');
  // A guard against a finisher that never writes, not a time bound: 60 s.
  for (let i = 0; i < 2400 && !judgedLine.test(readLog()); i++) await delay(25);
  const log = readLog();
  // With a backlog bound of 2000 bytes the validator sheds once it is running; on a machine busy
  // enough that it had not even started when the session ended, it judged nothing live. Either
  // way live validation did not judge every message, which is what this test is about: the
  // cassette write judges them all and stores what a whole live run stores.
  if (!/live validation fell more than .* behind the traffic and shed/.test(log))
    t.log('the live validator had not started when the session ended: nothing was judged live, all at write');
  // The recorder exits with its server; the finisher judges every message as it writes the
  // cassette, and says so in the log.
  const m = judgedLine.exec(log);
  t.truthy(m, 'the end of the session says what was judged at write');
  t.is(Number(m![1]), shed.cassette.sessions[0]!.messages.length, 'every message judged at write');
  t.deepEqual(verdicts(shed.cassette), expected, 'the same stored verdicts');
});

test('--validate-workers takes a whole number from 1 to 64; anything else is a usage error (exit 2) that says so', async (t) => {
  for (const bad of ['0', '65', '1.5', 'two']) {
    const child = spawnTracked(t, node, [cli, 'record', '--validate-workers', bad, '--', node, '-e', '1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child);
    t.is(result.code, 2, bad);
    t.regex(result.stderr, /--validate-workers must be a whole number from 1 to 64 \(got /, bad);
    t.notRegex(result.stderr, /\n\s+at /, 'no stack trace');
  }
});
