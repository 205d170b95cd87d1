import test, { type ExecutionContext } from 'ava';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { byteTap, cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked, waitForOutput } from '../helpers/proc.js';
import { assertTransparent, readCassette, recordArgs, waitForFinishers, waitForSessions } from '../helpers/recording.js';
import { startTappedUpstream, tappedFetch } from '../helpers/http-taps.js';
import { startHttpRecorder } from '../helpers/http-recorder.js';
import { tempDir } from '../helpers/tmp.js';
import { messageBytes } from '../../lib/message.js';
import type { Cassette } from '../../lib/cassette/cassette.js';
import { answer, deepText } from '../servers/deep-server.js';

/**
 * A peer that answers with JSON nested 100,000 levels deep (far past the 256 every walk stops
 * at) never costs the session: the bytes pass unchanged both ways, the cassette is saved with
 * the frame byte-exact, and every command that reads it works.
 */
const deepServer = join(root, 'dist', 'test', 'servers', 'deep-server.js');
const WHERE = ['result', 'error-data', 'meta', 'params'] as const;

/** The client's side of a session, as lines: the handshake, then a call whose own params are
 * deep (so both directions carry a too-deep frame). */
const clientLines =
  [
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"deep","arguments":{"v":${deepText('asked')}}}}`,
  ].join('\n') + '\n';

async function run(t: ExecutionContext, args: string[], input?: string) {
  const child = spawnTracked(t, node, args);
  const done = collect(child);
  child.stdin!.end(input ?? '');
  return done;
}

/** Records one session through byte taps on both sides of the proxy. */
async function recordDeep(t: ExecutionContext, where: string, lines = clientLines, last = '"id":3,') {
  const dir = tempDir(t);
  const cassette = join(dir, `${where}.cassette.json`);
  const taps = join(dir, 'taps');
  const child = spawnTracked(t, node, [
    byteTap,
    taps,
    'client',
    node,
    ...recordArgs(cassette, [node, byteTap, taps, 'server', node, deepServer, where]),
  ]);
  const done = collect(child);
  // EOF only once the last answer is through: a host that hangs up at once leaves a slow server
  // (on a loaded machine) only the shutdown grace to answer in.
  child.stdin!.write(lines);
  await waitForOutput(child.stdout!, (s) => s.includes(last), 60_000);
  child.stdin!.end();
  const r = await done;
  t.is(r.code, 0, `${String(r.signal)} ${r.stderr}`);
  waitForFinishers(cassette); // a large journal is the recorder's finisher's to write
  return { dir, cassette, taps, clientOut: r.stdout };
}

for (const where of WHERE) {
  test(`deep JSON in ${where}: recorded byte-exact, validated, shown, replayed and served`, async (t) => {
    const { cassette, taps, clientOut } = await recordDeep(t, where);
    const c = await waitForSessions(cassette, 1);
    assertTransparent(t, taps, c);
    const deep = c.sessions[0]!.messages.filter((m) => m.tooDeep);
    t.deepEqual(
      deep.map((m) => m.direction).sort(),
      ['client-to-server', 'server-to-client'],
      'the deep request and the deep server frame are marked',
    );
    for (const m of deep) {
      t.is(typeof m.raw, 'string');
      t.is(messageBytes(m).length, m.bytes);
    }
    const answerFrame = deep.find((m) => m.direction === 'server-to-client')!;
    t.like(
      answerFrame.json,
      where === 'params' ? { jsonrpc: '2.0', method: 'notifications/message' } : { jsonrpc: '2.0', id: 3 },
      'json keeps the top-level scalars',
    );

    for (const format of ['text', 'json'] as const) {
      const v = await run(t, [cli, 'validate', '--format', format, cassette]);
      t.is(v.code, 0, `validate --format ${format} exits 0 (only infos): ${v.stderr}`);
      t.regex(v.stdout.toString(), /PROXY-SCHEMA-BOUNDS/);
      t.regex(v.stdout.toString(), /not judged, too deep/);
    }
    const show = await run(t, [cli, 'show', cassette]);
    t.is(show.code, 0, show.stderr);
    const messages = await run(t, [cli, 'show', '--messages', cassette]);
    t.is(messages.code, 0, messages.stderr);
    t.regex(messages.stdout.toString(), /\[\[\[\[/);

    const same = await run(t, [cli, 'replay', cassette, '--', node, deepServer, where]);
    t.is(same.code, 0, `replay against the same server passes: ${same.stdout.toString()}${same.stderr}`);
    const other = await run(t, [cli, 'replay', cassette, '--', node, deepServer, where, 'elsewhere']);
    if (where !== 'params') {
      t.is(other.code, 1, other.stderr);
      t.regex(other.stdout.toString(), /too-deep-changed/);
    } else {
      // A changed notification is a warning (notifications-changed), judged on its text: the
      // leaf 100,000 levels down differs, nothing above it.
      t.is(other.code, 0, other.stderr);
      t.regex(other.stdout.toString(), /notifications-changed.*notifications\/message: content changed/);
    }
    if (where === 'result') {
      // --update takes the live deep answer as it came; the next replay against that build passes.
      const updated = join(tempDir(t), 'updated.cassette.json');
      writeFileSync(updated, readFileSync(cassette));
      const u = await run(t, [cli, 'replay', updated, '--update', '--', node, deepServer, where, 'elsewhere']);
      t.is(u.code, 0, u.stderr);
      const answer = readCassette(updated).sessions[0]!.messages.find((m) => m.tooDeep && m.direction === 'server-to-client')!;
      t.true(answer.raw!.includes(deepText('elsewhere')));
      const again = await run(t, [cli, 'replay', updated, '--', node, deepServer, where, 'elsewhere']);
      t.is(again.code, 0, again.stdout.toString());
    }

    const served = await run(t, [cli, 'serve', cassette], clientLines);
    t.is(served.code, 0, served.stderr);
    t.true(served.stdout.equals(clientOut), 'serve answers with the recorded bytes, matching the deep request by its text');
    const otherAsk = clientLines.replace(deepText('asked'), deepText('something else'));
    const unmatched = await run(t, [cli, 'serve', cassette], otherAsk);
    t.false(
      unmatched.stdout.includes(Buffer.from(deepText('bottom'))),
      'a different deep request is not answered with the recorded deep answer',
    );
  });
}

test('a request whose id is nested 100,000 deep: recorded byte-exact, validated, shown and served', async (t) => {
  const lines =
    clientLines.split('\n').slice(0, 3).join('\n') +
    `\n{"jsonrpc":"2.0","id":${deepText('id')},"method":"tools/call","params":{"name":"deep"}}\n`;
  const { cassette, taps, clientOut } = await recordDeep(t, 'result', lines, '"id":null,');
  const c = await waitForSessions(cassette, 1);
  assertTransparent(t, taps, c);
  const deep = c.sessions[0]!.messages.filter((m) => m.tooDeep);
  t.is(deep.length, 1);
  t.like(deep[0]!.json, { jsonrpc: '2.0', method: 'tools/call' }, 'the deep id is not in json; the frame is in raw');
  const v = await run(t, [cli, 'validate', '--format', 'json', cassette]);
  t.is(v.code, 0, v.stderr);
  t.regex(v.stdout.toString(), /not judged, too deep/);
  t.is((await run(t, [cli, 'show', '--messages', cassette])).code, 0);
  const served = await run(t, [cli, 'serve', cassette], lines);
  t.is(served.code, 0, served.stderr);
  // The handshake is answered as recorded; the deep-id request has no id serve could answer with.
  const handshake = clientOut.subarray(0, clientOut.lastIndexOf('{"jsonrpc"'));
  t.true(served.stdout.subarray(0, handshake.length).equals(handshake), 'the handshake is answered as recorded');
});

test('probe runs to its report against a server that answers 100,000 deep', async (t) => {
  const { cassette } = await recordDeep(t, 'result');
  const p = await run(t, [cli, 'probe', cassette, '--', node, deepServer, 'result']);
  t.not(p.code, 70, p.stderr);
  t.notRegex(p.stderr, /Maximum call stack/);
  t.regex(p.stdout.toString(), /\d+ passed, \d+ failed/);
});

test('recover folds a journal that holds a deep frame', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'killed.cassette.json');
  const child = spawnTracked(t, node, recordArgs(cassette, [node, deepServer, 'result']));
  child.stdin!.write(clientLines);
  // Once the whole deep answer came through (to its newline: its first bytes arrive long before
  // its last), the proxy dies without folding; it journals each chunk before forwarding the next.
  await waitForOutput(
    child.stdout!,
    (s) => {
      const at = s.indexOf('"id":3,');
      return at >= 0 && s.indexOf('\n', at) >= 0;
    },
    60_000,
  );
  child.kill('SIGKILL');
  if (child.exitCode === null && child.signalCode === null) await once(child, 'close');
  t.true(
    readdirSync(dir).some((f) => f.endsWith('.journal')),
    'the journal is left behind',
  );
  const r = await run(t, [cli, 'recover', cassette]);
  t.is(r.code, 0, r.stderr);
  const c = readCassette(cassette);
  const deep = c.sessions[0]!.messages.filter((m) => m.tooDeep);
  t.is(deep.length, 2);
  t.true(deep.some((m) => m.raw!.includes(deepText('bottom'))));
});

test('a cassette written by hand with a deep json value is marked when read, and validates', async (t) => {
  const { cassette } = await recordDeep(t, 'result');
  // The frame as an older writer would have kept it: only `json`, deep (the file text is put
  // together around a placeholder: JSON.stringify cannot write the value).
  const c = JSON.parse(readFileSync(cassette, 'utf8')) as Cassette;
  const m = c.sessions[0]!.messages.find((x) => x.tooDeep && x.direction === 'server-to-client')!;
  const raw = m.raw!;
  m.json = '__DEEP__';
  delete m.raw;
  delete m.tooDeep;
  const path = join(tempDir(t), 'hand.cassette.json');
  writeFileSync(path, JSON.stringify(c, null, 2).replace('"__DEEP__"', raw));
  const read = readCassette(path);
  const back = read.sessions[0]!.messages.find((x) => x.seq === m.seq)!;
  t.true(back.tooDeep);
  t.is(back.raw, raw, 'the text is rebuilt without the built-in stringify');
  const v = await run(t, [cli, 'validate', path]);
  t.is(v.code, 0, v.stderr);
});

for (const sse of [false, true]) {
  test(`HTTP ${sse ? 'SSE' : 'JSON'} answer nested 100,000 deep: forwarded byte-exact and saved`, async (t) => {
    const upstream = await startTappedUpstream(t, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; method?: string };
        if (msg.id === undefined) return void res.writeHead(202).end();
        const lines = answer(msg, 'result');
        if (sse) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          for (const l of lines) res.write(`event: message\ndata: ${l}\n\n`);
          res.end();
        } else res.writeHead(200, { 'content-type': 'application/json' }).end(lines.at(-1));
      });
    });
    const cassette = join(tempDir(t), 'http.cassette.json');
    const proxy = await startHttpRecorder(t, upstream.url, cassette);
    const client = tappedFetch();
    const body = clientLines.split('\n')[3]!;
    const res = await client.fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body,
    });
    const got = Buffer.from(await res.arrayBuffer());
    t.true(got.equals(upstream.exchanges[0]!.responseBody), 'the client got exactly what the upstream wrote');
    t.true(Buffer.from(body).equals(upstream.exchanges[0]!.requestBody), 'the upstream got exactly what the client sent');
    const { cassette: c, result } = await proxy.stop();
    t.not(result.code, 70, result.stderr);
    const frames = c.sessions.flatMap((s) => s.messages);
    const deep = frames.filter((m) => m.tooDeep);
    t.is(deep.length, 2, 'the request and the answer are both marked');
    t.true(deep.some((m) => m.raw === body));
    t.true(deep.some((m) => m.raw === answer({ id: 3, method: 'tools/call' }, 'result')[0]));
  });
}
