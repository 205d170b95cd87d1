import test, { type ExecutionContext } from 'ava';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { loadCassette, stringifyCassette } from '../../lib/cassette/store.js';
import { replayCassette, type ReplayResult } from '../../replay/index.js';
import { learnFrom } from '../../replay/calibrate.js';
import { normalise, parseIgnore, patternsFor } from '../../replay/normalise.js';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { waitForSessions } from '../helpers/recording.js';
import { tempDir, removeDir } from '../helpers/tmp.js';

// A cassette of test/servers/volatile-target.ts: a 2025 and a 2026-07-28 session (plus the v2
// client's server/discover probe), each listing the tools and calling get_env (volatile: worker id and
// nonce), add, describe and count (stable; count with progress and log messages).
const server = join(root, 'dist', 'test', 'servers', 'volatile-target.js');
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-calibrate-'));
const recorded = join(dir, 'volatile.cassette.json');

/** One client session through the recorder: over stdio (`record -- server`), or to a recording proxy's URL. */
async function recordSession(mode: 'legacy' | 'pin', proxyUrl?: string): Promise<void> {
  const client = new Client(
    { name: 'calibrate-test-client', version: '1.0.0' },
    { versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : 'legacy' } },
  );
  let transport: Transport;
  if (proxyUrl) {
    transport = new StreamableHTTPClientTransport(new URL(proxyUrl));
  } else {
    const stdio = new StdioClientTransport({
      command: node,
      args: [cli, 'record', '--log-level', 'warn', '--cassette', recorded, '--', node, server],
      stderr: 'pipe',
    });
    stdio.stderr?.on('data', () => {});
    transport = stdio;
  }
  await client.connect(transport);
  try {
    await client.listTools();
    await client.callTool({ name: 'get_env', arguments: {} });
    await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    await client.callTool({ name: 'describe', arguments: {} });
    await client.callTool({ name: 'count', arguments: {} }, { onprogress: () => {} });
  } finally {
    await client.close();
  }
}

test.before(async () => {
  await recordSession('legacy');
  await waitForSessions(recorded, 1);
  await recordSession('pin');
  await waitForSessions(recorded, 2);
});
test.after.always(() => removeDir(dir));

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;
const ajv = new Ajv2020({ allErrors: true, strict: true });
addFormats(ajv);
const validateReport = ajv.compile(JSON.parse(readFileSync(join(root, 'replay', 'replay-report.schema.json'), 'utf8')) as object);

function copy(t: ExecutionContext): string {
  const to = join(tempDir(t), 'c.cassette.json');
  copyFileSync(recorded, to);
  return to;
}

async function replay(t: ExecutionContext, args: string[], cwd = root) {
  const done = await collect(spawnTracked(t, node, [cli, 'replay', ...args], { cwd }));
  return { ...done, stdout: done.stdout.toString('utf8') };
}

/** Replays with a JSON report; returns the exit code, the console text and the (schema-checked) report. */
async function replayWithReport(
  t: ExecutionContext,
  args: string[],
  cwd = root,
): Promise<{ code: number | null; stdout: string; stderr: string; report: ReplayResult }> {
  const file = join(tempDir(t), 'report.json');
  // Before the server command (and after the cassette: --report takes every word up to the next option).
  const end = args.indexOf('--');
  const r = await replay(t, [...args.slice(0, end), '--report', `json=${file}`, ...args.slice(end)], cwd);
  const report = JSON.parse(readFileSync(file, 'utf8')) as ReplayResult;
  t.true(validateReport(report), ajv.errorsText(validateReport.errors));
  return { ...r, report };
}

const differencesOf = (r: ReplayResult, name: string) =>
  r.sessions.flatMap((s) => s.interactions.filter((i) => i.name === name).flatMap((i) => i.differences));
const target = ['--', node, server];
const changed = ['--', node, server, '--regression', 'add-changed'];

test("without calibration, a replay against the very build that recorded it reports get_env's worker id and nonce (exit 1, as changed output)", async (t) => {
  const r = await replayWithReport(t, [recorded, ...target]);
  t.is(r.code, 1, r.stdout + r.stderr);
  const paths = differencesOf(r.report, 'get_env')
    .map((d) => d.path)
    .sort();
  t.deepEqual([...new Set(paths)], ['/result/content/0/text', '/result/structuredContent/nonce', '/result/structuredContent/worker']);
  t.true(differencesOf(r.report, 'get_env').every((d) => d.kind === 'output-changed' && d.verdict === 'changed'));
  t.is(r.report.outcome, 'changed');
  t.deepEqual(differencesOf(r.report, 'add'), []);
  t.is(r.report.summary.volatileSkipped, 0);
});

test('replay --calibrate stores token templates per interaction; later replays pass, twice, skipping only those tokens for get_env; --update keeps them', async (t) => {
  const cassette = copy(t);
  const before = readFileSync(cassette, 'utf8');
  const cal = await replayWithReport(t, ['--calibrate', cassette, ...target]);
  t.is(cal.code, 0, cal.stdout + cal.stderr);
  t.regex(cal.stdout, /calibrate .*c\.cassette\.json against .*: 2 runs/);
  // It prints what it learned: each template, with the literal text around the holes.
  t.regex(cal.stdout, /#\d+ tools\/call get_env:\n {4}\/result\/content\/0\/text = "worker \{\{int\}\}, nonce \{\{alnum\}\}"/);
  t.regex(cal.stdout, / {4}\/result\/structuredContent\/nonce = "\{\{alnum\}\}"/);
  t.regex(cal.stdout, / {4}\/result\/structuredContent\/worker = "\{\{number\}\}"/);
  t.regex(
    cal.stdout,
    /calibrated .*: 6 volatile values in 2 interactions; later replays skip only their varying tokens, for those interactions only/,
  );
  t.notRegex(cal.stdout, /NOT VOLATILITY/);
  t.is(cal.report.calibration?.written, true);
  t.is(cal.report.calibration?.runs, 2);

  // The documented field: per session id, per request index, method, name and paths.
  const after = loadCassette(cassette);
  const calibration = after.calibration!;
  t.is(calibration.version, 2);
  t.is(calibration.runs, 2);
  t.false(Number.isNaN(Date.parse(calibration.calibratedAt)));
  const calling = after.sessions.filter((s) =>
    s.messages.some((m) => m.kind === 'request' && JSON.stringify(m.json).includes('"get_env"')),
  );
  t.is(calling.length, 2);
  t.deepEqual(Object.keys(calibration.sessions).sort(), calling.map((s) => s.id).sort());
  for (const s of calling) {
    const entries = Object.entries(calibration.sessions[s.id]!);
    t.is(entries.length, 1, 'only get_env is volatile');
    const [index, entry] = entries[0]!;
    t.deepEqual(entry, {
      method: 'tools/call',
      name: 'get_env',
      paths: [],
      templates: {
        '/result/content/0/text': 'worker {{int}}, nonce {{alnum}}',
        '/result/structuredContent/nonce': '{{alnum}}',
        '/result/structuredContent/worker': '{{number}}',
      },
    });
    // The key is the request's index among the session's client requests.
    const requests = s.messages.filter((m) => m.direction === 'client-to-server' && m.kind === 'request');
    t.is((requests[Number(index) - 1]!.json as { params: { name: string } }).params.name, 'get_env');
  }
  // The sessions are kept byte for byte; only the field is new.
  const { calibration: _c, ...rest } = after;
  t.is(stringifyCassette(rest as Cassette), before);
  t.is(
    readFileSync(cassette, 'utf8'),
    stringifyCassette({ format: after.format, version: after.version, calibration, sessions: after.sessions }),
    'the field sits before the sessions',
  );

  for (const run of [1, 2]) {
    const r = await replayWithReport(t, [cassette, ...target]);
    t.is(r.code, 0, `run ${run}: ${r.stdout}`);
    t.regex(r.stdout, /0 breaking, 0 changed, 0 warning, 0 compatible/);
    t.regex(r.stdout, /^6 volatile values skipped, as calibrated \(--calibrate\)$/m);
    t.is(r.report.summary.volatileSkipped, 6);
    const getEnv = r.report.sessions.flatMap((s) => s.interactions.filter((i) => i.name === 'get_env'));
    t.deepEqual(
      getEnv.map((i) => [i.outcome, i.volatileSkipped]),
      [
        ['same', 3],
        ['same', 3],
      ],
    );
  }

  // A real change in the same cassette is still reported, also at a path calibrated for get_env
  // (describe's nonce): the paths belong to get_env's interaction only.
  const regressed = await replayWithReport(t, [cassette, ...changed]);
  t.is(regressed.code, 1, regressed.stdout);
  t.deepEqual(differencesOf(regressed.report, 'get_env'), []);
  t.deepEqual(
    differencesOf(regressed.report, 'add')
      .map((d) => `${d.kind} ${d.path}`)
      .sort(),
    [
      'output-changed /result/content/0/text',
      'output-changed /result/structuredContent/sum',
      'output-changed /result/content/0/text',
      'output-changed /result/structuredContent/sum',
    ].sort(),
  );
  t.deepEqual(
    differencesOf(regressed.report, 'describe').map((d) => `${d.kind} ${d.path} ${String(d.live)}`),
    ['output-changed /result/structuredContent/nonce changed', 'output-changed /result/structuredContent/nonce changed'],
  );

  // --update re-records both sessions (they changed) and keeps the calibration, under the same keys.
  const updated = await replay(t, [cassette, '--update', ...changed]);
  t.is(updated.code, 0, updated.stdout + updated.stderr);
  t.regex(updated.stdout, /re-recorded sessions 1, 3/);
  t.deepEqual(loadCassette(cassette).calibration, calibration);
  const again = await replayWithReport(t, [cassette, ...changed]);
  t.is(again.code, 0, again.stdout);
  t.is(again.report.summary.volatileSkipped, 6);
});

test('replayCassette({ calibrate }) says what it stored; a change that is not volatility is called out and never stored', async (t) => {
  const cassette = copy(t);
  const r = await replayCassette(cassette, {
    command: [node, server, '--regression', 'describe-removed'],
    calibrate: 1,
    config: false,
    timeoutMs: 5000,
  });
  t.true(validateReport(JSON.parse(JSON.stringify(r))), ajv.errorsText(validateReport.errors));
  t.is(r.calibration!.written, true);
  t.is(r.calibration!.runs, 1);
  t.deepEqual(
    r.calibration!.sessions.map((s) => s.index),
    [1, 3],
    "the sessions that call get_env (2 is the client's discover probe)",
  );
  t.true(r.calibration!.notVolatile.some((n) => n.kind === 'tool-removed' && n.method === 'tools/list'));
  const stored = loadCassette(cassette).calibration!;
  t.is(stored.runs, 1);
  // Only get_env taught anything: the tools/list that lost a tool stored nothing.
  t.deepEqual(
    Object.values(stored.sessions).flatMap((entries) => Object.values(entries).map((e) => `${e.method} ${e.name ?? ''}`)),
    ['tools/call get_env', 'tools/call get_env'],
  );

  const cli_ = await replay(t, ['--calibrate', '1', copy(t), '--', node, server, '--regression', 'describe-removed']);
  t.is(cli_.code, 0, cli_.stdout + cli_.stderr);
  t.regex(
    cli_.stdout,
    /NOT VOLATILITY \(not stored\): .*is the target the build that recorded the cassette, started from the same state \(--reset <command>\)\?/,
  );
  t.regex(cli_.stdout, /session 1 #\d+ tools\/list: tool-removed: tool "describe" was removed/);
});

test('a live value that no longer fits its calibrated template: both texts are shown, with the template named', async (t) => {
  const cassette = copy(t);
  const cal = await replay(t, ['--calibrate', cassette, ...target]);
  t.is(cal.code, 0, cal.stdout);
  // Narrow one stored template to the recorded nonce itself: the recording fits it, no live run can.
  const loaded = loadCassette(cassette);
  const [sessionId, entries] = Object.entries(loaded.calibration!.sessions)[0]!;
  const [index, entry] = Object.entries(entries)[0]!;
  const session = loaded.sessions.find((s) => s.id === sessionId)!;
  const answer = JSON.stringify(session.messages.map((m) => m.json));
  const nonce = /nonce (n[0-9a-z]+)/.exec(answer)![1]!;
  entry.templates!['/result/content/0/text'] = `worker {{int}}, nonce ${nonce}`;
  writeFileSync(
    cassette,
    stringifyCassette({
      ...loaded,
      calibration: { ...loaded.calibration!, sessions: { ...loaded.calibration!.sessions, [sessionId]: { ...entries, [index]: entry } } },
    }),
  );
  const r = await replayWithReport(t, [cassette, ...target]);
  t.is(r.code, 1, r.stdout);
  const d = differencesOf(r.report, 'get_env').find((x) => x.path === '/result/content/0/text')!;
  t.truthy(d, r.stdout);
  t.regex(String(d.recorded), new RegExp(`^worker \\d+, nonce ${nonce}$`));
  t.regex(String(d.live), /^worker \d+, nonce n[0-9a-z]+$/);
  t.regex(d.message, new RegExp(`one side no longer fits the calibrated template "worker \\{\\{int\\}\\}, nonce ${nonce}"`));
});

test('--calibrate refuses another build (its handshake names another version): exit 2, one line, nothing stored; --force learns anyway', async (t) => {
  const cassette = copy(t);
  const before = readFileSync(cassette, 'utf8');
  const other = ['--', node, server, '--server-version', '1.0.1'];
  const refused = await replay(t, ['--calibrate', cassette, ...other]);
  t.is(refused.code, 2, refused.stdout + refused.stderr);
  t.is(refused.stdout, '');
  t.is(
    refused.stderr.trim(),
    'mcp-cassette: calibration refused: the server answers as volatile-target 1.0.1, the cassette was recorded from volatile-target 1.0.0; calibrate against the build that recorded the cassette (or pass --force to learn from this one anyway). Nothing was stored.',
  );
  t.is(readFileSync(cassette, 'utf8'), before);
  const forced = await replay(t, ['--calibrate', '--force', cassette, ...other]);
  t.is(forced.code, 0, forced.stdout + forced.stderr);
  t.truthy(loadCassette(cassette).calibration);
  // --force means nothing without --calibrate: a usage error, not a silent no-op.
  const stray = await replay(t, ['--force', cassette, ...target]);
  t.is(stray.code, 2);
  t.regex(stray.stderr, /--force only applies to --calibrate/);
});

test('--reset runs before every calibration run and before a replay; a failing one stops with exit 2 and its stderr', async (t) => {
  const cassette = copy(t);
  const log = join(tempDir(t), 'resets.log');
  const reset = `${JSON.stringify(node)} -e "require('fs').appendFileSync(process.argv[1], 'reset\\n')" ${JSON.stringify(log)}`;
  const cal = await replay(t, ['--calibrate', '3', '--reset', reset, cassette, ...target]);
  t.is(cal.code, 0, cal.stdout + cal.stderr);
  t.is(readFileSync(log, 'utf8'), 'reset\nreset\nreset\n');
  const plain = await replay(t, ['--reset', reset, cassette, ...target]);
  t.is(plain.code, 0, plain.stdout + plain.stderr);
  t.is(readFileSync(log, 'utf8'), 'reset\nreset\nreset\nreset\n');
  const failing = await replay(t, [
    '--calibrate',
    '--reset',
    `${JSON.stringify(node)} -e "console.error('fixture missing'); process.exit(3)"`,
    cassette,
    ...target,
  ]);
  t.is(failing.code, 2);
  t.regex(failing.stderr, /--reset ".*" failed \(it exited with 3: fixture missing\); fix the command/);
});

test('--calibrate: exit 2 and nothing written when the replay cannot run; a bad run count is a usage error', async (t) => {
  const cassette = copy(t);
  const before = readFileSync(cassette, 'utf8');
  const r = await replay(t, [cassette, '--calibrate', '--', 'no-such-mcp-server-binary']);
  t.is(r.code, 2, r.stdout + r.stderr);
  t.regex(r.stdout, /not calibrated: run 1 of 2 could not finish .*nothing was written/);
  t.is(readFileSync(cassette, 'utf8'), before);
  for (const bad of ['0', 'x']) {
    const u = await replay(t, [cassette, `--calibrate=${bad}`, ...target]);
    t.is(u.code, 2);
    t.regex(u.stderr, /--calibrate takes a number of runs, at least 1 \(default 2\)/);
  }
  const both = await replay(t, [cassette, '--calibrate', '--update', ...target]);
  t.is(both.code, 2);
  t.regex(both.stderr, /--calibrate and --update do not combine/);
  t.is(readFileSync(cassette, 'utf8'), before);
});

test('what calibration learns: templates for strings, "{{number}}" for numbers, scalar keys that come and go; never a list that grew, a flag or a type change', (t) => {
  t.deepEqual(
    learnFrom({ result: { text: 'started PID 1685 in 9 steps', n: 1, o: { k: 1 } } }, [
      { result: { text: 'started PID 1702 in 9 steps', n: 2, o: { k: 1, extra: 'x' } } },
      { result: { text: 'started PID 1733 in 9 steps', n: 3, o: { k: 1 } } },
    ]),
    {
      entry: { paths: ['/result/o/extra'], templates: { '/result/text': 'started PID {{int}} in 9 steps', '/result/n': '{{number}}' } },
      refused: [],
    },
  );
  // A path that is no volatility is refused; the rest of the request is still learned.
  t.deepEqual(learnFrom({ result: { list: [1, 2], n: 1 } }, [{ result: { list: [1, 2, 3], n: 2 } }]), {
    entry: { paths: [], templates: { '/result/n': '{{number}}' } },
    refused: ['/result/list: items came and went (a state that grows, not volatility: use --reset)'],
  });
  t.deepEqual(learnFrom({ result: { ok: true } }, [{ result: { ok: false } }]).refused, [
    '/result/ok: boolean became boolean (a flag, not a volatile value)',
  ]);
  t.deepEqual(learnFrom({ result: { v: '1' } }, [{ result: { v: 1 } }]).refused, ['/result/v: string became number']);
  t.deepEqual(learnFrom({ result: { o: {} } }, [{ result: { o: { k: { deep: 1 } } } }]).refused, [
    '/result/o/k: a field appeared with an object in it',
  ]);
  // A sentence that changed is not volatility, however the rest of the text stays.
  const url = learnFrom({ result: { text: 'Page URL: https://a.test/next\nTitle: Next' } }, [
    { result: { text: 'Page URL: about:blank\nTitle: Next' } },
  ]);
  t.deepEqual(url.entry, { paths: [] });
  t.regex(url.refused[0]!, /^\/result\/text: more than a token changed/);
  // Two runs that agree with each other and not with the recording: another build or environment,
  // even where the change is one token (a typo fixed), so nothing is learned.
  const typo = learnFrom({ result: { text: 'fix teh typo' } }, [
    { result: { text: 'fix the typo' } },
    { result: { text: 'fix the typo' } },
  ]);
  t.deepEqual(typo.entry, { paths: [] });
  t.deepEqual(typo.refused, [
    '/result/text: the runs agree and the recording differs ("fix teh typo" → "fix the typo"): a change of build, state or environment, not volatility',
  ]);
  // ... while a token that varies between the runs is learned, and the recording must match it.
  const pid = learnFrom({ result: { text: 'worker 7 ok' } }, [{ result: { text: 'worker 8 ok' } }, { result: { text: 'worker 9 ok' } }]);
  t.deepEqual(pid, { entry: { paths: [], templates: { '/result/text': 'worker {{int}} ok' } }, refused: [] });
  const drift = learnFrom({ result: { text: 'worker 7 fine' } }, [
    { result: { text: 'worker 8 ok' } },
    { result: { text: 'worker 9 ok' } },
  ]);
  t.deepEqual(drift.entry, { paths: [] });
  t.regex(drift.refused[0]!, /the runs agree and the recording differs/);
});

test('ignore grammar: one part is global (a pointer may hold spaces), two scope to a method, three to a method and a name', (t) => {
  t.like(parseIgnore('/result/my key'), { segments: ['result', 'my key'], method: undefined });
  t.like(parseIgnore('timestamp'), { segments: ['**', 'timestamp'], method: undefined });
  t.like(parseIgnore('tools/call /result/x'), { segments: ['result', 'x'], method: 'tools/call', name: undefined });
  t.like(parseIgnore(' resources/read  file:///tmp/a.txt /result/contents/0/text '), {
    segments: ['result', 'contents', '0', 'text'],
    method: 'resources/read',
    name: 'file:///tmp/a.txt',
  });
  const all = ['/result/a', 'tools/call /result/b', 'tools/call get_env /result/c', 'prompts/get greet /result/d'].map(parseIgnore);
  t.deepEqual(
    patternsFor(all, 'tools/call', 'get_env').map((p) => p.source),
    ['/result/a', 'tools/call /result/b', 'tools/call get_env /result/c'],
  );
  t.deepEqual(
    patternsFor(all, 'tools/call', 'add').map((p) => p.source),
    ['/result/a', 'tools/call /result/b'],
  );
  t.deepEqual(
    patternsFor(all, 'initialize').map((p) => p.source),
    ['/result/a'],
  );
  t.deepEqual(normalise({ result: { a: 1, b: 2, c: 3 } }, patternsFor(all, 'tools/call', 'add')), { result: { c: 3 } });
});

test("scoped --ignore: only the named tool's path is ignored; a global one hides the same path everywhere", async (t) => {
  const getEnv = ['--ignore', 'tools/call get_env /result/content/0/text', '--ignore', 'tools/call get_env /result/structuredContent/*'];
  const plain = await replay(t, [recorded, ...getEnv, ...target]);
  t.is(plain.code, 0, plain.stdout);
  const scoped = await replayWithReport(t, [recorded, ...getEnv, ...changed]);
  t.is(scoped.code, 1);
  t.deepEqual(differencesOf(scoped.report, 'get_env'), []);
  t.is(differencesOf(scoped.report, 'describe').length, 2, "describe's nonce is still compared");
  t.is(differencesOf(scoped.report, 'add').length, 4);
  // Scoped to the method only: every tools/call; tools/list and initialize are still compared.
  const method = await replayWithReport(t, [recorded, '--ignore', 'tools/call /result', ...changed]);
  t.is(method.code, 0, method.stdout);
  // The global form hides the same paths in every interaction (the real changes too).
  const global = await replay(t, [recorded, '--ignore', '/result/content/0/text', '--ignore', '/result/structuredContent', ...changed]);
  t.is(global.code, 0, global.stdout);
});

test('scoped --ignore reaches the progress notifications of its request; one scoped to a notification method, those notifications', async (t) => {
  const pidInProgress = ['--', node, server, '--regression', 'progress-pid'];
  const plain = await replayWithReport(t, ['--strict', recorded, ...pidInProgress]);
  t.is(plain.code, 1, plain.stdout);
  t.deepEqual([...new Set(differencesOf(plain.report, 'count').map((d) => d.kind))], ['progress-changed']);
  t.true(
    plain.report.sessions.some((s) =>
      s.interactions.some((i) =>
        i.differences.some((d) => d.kind === 'notifications-changed' && d.message.startsWith('notifications/message')),
      ),
    ),
  );
  // get_env's own volatility is not what this test is about.
  const logs = ['--ignore', 'notifications/message /data', '--ignore', 'tools/call get_env /result'];
  for (const spec of ['tools/call count /message', 'notifications/progress count /message', 'notifications/progress /message']) {
    const r = await replay(t, ['--strict', recorded, '--ignore', spec, ...logs, ...pidInProgress]);
    t.is(r.code, 0, `${spec}: ${r.stdout}`);
  }
  const elsewhere = await replayWithReport(t, [
    '--strict',
    recorded,
    '--ignore',
    'tools/call add /message',
    '--ignore',
    'notifications/progress add /message',
    ...logs,
    ...pidInProgress,
  ]);
  t.is(elsewhere.code, 1, "scoped to another tool: count's progress is still compared");
  t.deepEqual([...new Set(differencesOf(elsewhere.report, 'count').map((d) => d.kind))], ['progress-changed']);
});

test('scoped ignores in mcp-cassette.config.json: strings and { method, name, paths }; bad entries name their path', async (t) => {
  const cwd = tempDir(t);
  const config = join(cwd, 'mcp-cassette.config.json');
  writeFileSync(
    config,
    JSON.stringify({
      replay: {
        ignore: ['tools/call get_env /result/content/0/text'],
        cassettes: {
          '**/*.cassette.json': {
            ignore: [
              { method: 'tools/call', name: 'get_env', paths: ['/result/structuredContent/worker', '/result/structuredContent/nonce'] },
            ],
          },
        },
      },
    }),
  );
  const plain = await replay(t, [recorded, ...target], cwd);
  t.is(plain.code, 0, plain.stdout + plain.stderr);
  const regressed = await replayWithReport(t, [recorded, ...changed], cwd);
  t.is(regressed.code, 1);
  t.is(differencesOf(regressed.report, 'describe').length, 2);

  writeFileSync(config, JSON.stringify({ replay: { ignore: ['/ok', 'tools/call get_env text'] } }));
  const badString = await replay(t, [recorded, ...target], cwd);
  t.is(badString.code, 2);
  t.regex(
    badString.stderr,
    /mcp-cassette\.config\.json is invalid: \/replay\/ignore\/1 "tools\/call get_env text" is not an ignore pattern: its pattern "text" does not start with \/; use "<pattern>", "<method> <pattern>" or "<method> <name> <pattern>"/,
  );
  writeFileSync(config, JSON.stringify({ replay: { cassettes: { 'x/*.json': { ignore: [{ method: 'tools/call', path: '/result' }] } } } }));
  const badObject = await replay(t, [recorded, ...target], cwd);
  t.is(badObject.code, 2);
  t.regex(badObject.stderr, /mcp-cassette\.config\.json is invalid: .*\/replay\/cassettes\/x~1\*\.json\/ignore\/0 must/);
});

test('scoped --ignore with bad syntax: exit 2 showing the right form', async (t) => {
  for (const [spec, problem] of [
    ['tools/call get_env text', /its pattern "text" does not start with \//],
    ['tools/call get_env extra /result', /it has 4 parts; a scoped ignore has at most 3/],
  ] as const) {
    const r = await replay(t, [recorded, '--ignore', spec, ...target]);
    t.is(r.code, 2, r.stdout);
    t.regex(r.stderr, problem);
    t.regex(
      r.stderr,
      /use "<pattern>", "<method> <pattern>" or "<method> <name> <pattern>", e\.g\. --ignore "tools\/call get_env \/result\/content\/\*\/text"/,
    );
  }
});

/** Starts the volatile target over Streamable HTTP; resolves its URL. */
async function startHttp(t: ExecutionContext): Promise<string> {
  const child = spawnTracked(t, node, [server, '--http']);
  child.stderr?.on('data', () => {});
  return (await waitForOutput(child.stdout!, (s) => s.includes('\n'))).trim();
}

test('--calibrate over --url: the templates are learned and stored, and later replays over HTTP pass, skipping their tokens', async (t) => {
  const cassette = join(tempDir(t), 'http.cassette.json');
  const proxy = spawnTracked(t, node, [cli, 'record', '--log-level', 'warn', '--upstream', await startHttp(t), '--cassette', cassette]);
  proxy.stderr?.on('data', () => {});
  const proxyUrl = (await waitForOutput(proxy.stdout!, (s) => s.includes('\n'))).trim();
  await recordSession('legacy', proxyUrl);
  const closed = new Promise((r) => proxy.on('close', r));
  proxy.kill('SIGINT');
  await closed;
  await waitForSessions(cassette, 1);

  const live = await startHttp(t);
  const plain = await replay(t, [cassette, '--url', live]);
  t.is(plain.code, 1, plain.stdout);
  const cal = await replay(t, ['--calibrate', '--url', live, cassette]);
  t.is(cal.code, 0, cal.stdout + cal.stderr);
  t.regex(cal.stdout, /#\d+ tools\/call get_env:\n {4}\/result\/content\/0\/text = "worker \{\{int\}\}, nonce \{\{alnum\}\}"/);
  const stored = Object.values(loadCassette(cassette).calibration!.sessions).flatMap((s) => Object.values(s));
  t.deepEqual(
    stored.map((e) => e.name),
    ['get_env'],
  );
  for (const run of [1, 2]) {
    const r = await replay(t, [cassette, '--url', live]);
    t.is(r.code, 0, `run ${run}: ${r.stdout}`);
    t.regex(r.stdout, /^3 volatile values skipped/m);
  }
});
