import test from 'ava';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyCassette, type Cassette } from '../../lib/cassette/cassette.js';
import { foldSessions } from '../../lib/cassette/fold.js';
import { JournalWriter, JOURNAL_FORMAT, openJournal } from '../../lib/cassette/journal.js';
import { loadCassette, stringifyCassette } from '../../lib/cassette/store.js';
import { writeCassetteFile } from '../../lib/cassette/write.js';
import { writeIndented, writeJsonString } from '../../lib/framing/json-emit.js';
import { JsonScanner } from '../../lib/framing/json-scan.js';
import { SpillFile } from '../../lib/framing/spill.js';
import { classify, messageBytes } from '../../lib/message.js';
import { root } from '../helpers/paths.js';

/** Every frame of the example cassettes: real traffic of both eras. */
function corpus(): string[] {
  const dir = join(root, 'cassettes', 'examples');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cassette.json'))
    .flatMap((f) => loadCassette(join(dir, f)).sessions.flatMap((s) => s.messages.map((m) => messageBytes(m).toString('utf8'))));
}

/** Frames that exercise every branch of the grammar and of the canonical check. */
const EDGES = [
  '',
  ' ',
  '{}',
  '[]',
  '[ ]',
  '{ }',
  'null',
  'true',
  'false',
  'nul',
  'truex',
  '0',
  '-0',
  '01',
  '1.',
  '.5',
  '1.5',
  '1e5',
  '1E5',
  '1e+5',
  '-1.25e-7',
  '12345678901234567890',
  '1e400',
  '"a"',
  '"\\u0041"',
  '"\\u001f"',
  '"\\u001F"',
  '"\\u0008"',
  '"\\b\\f\\n\\r\\t\\"\\\\"',
  '"\\/"',
  '"\\x"',
  '"\\u12"',
  '"tab\there"',
  '"\ud83d\ude00 é ✓"',
  '"\\ud83d\\ude00"',
  '"\\ud800"',
  '{"a":1,"a":2}',
  '{"b":1,"1":2}',
  '{"__proto__":1}',
  '{"a":1,}',
  '[1,]',
  '[,1]',
  '{"a"}',
  '{"a":}',
  '{"a" : 1}',
  '{"a":1} ',
  ' {"a":1}',
  '{"a":1}\r',
  '{"a":1}x',
  '{"a":1}{}',
  '\ufeff{}',
  '[[[[[]]]]]',
  '{"a":{"b":[1,{"c":[]},{}]}}',
  '[1,[2,[3]],{"x":"y"}]',
  '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","method":"notifications/x"}',
  '{"jsonrpc":"2.0","id":1,"result":{}}',
  '{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":"m"}}',
  '{"jsonrpc":"1.0","id":1,"method":"ping"}',
  '{"jsonrpc":"2.0","id":1,"method":5}',
  '{"jsonrpc":"2.0","method":"x","method":7}',
  '{"jsonrpc":"2.0","jsonrpc":"1"}',
  '{"jsonrpc":"2\\u002e0","id":1,"result":1}',
  '{"jsonrpc":"2.0","id":1}',
  '{"jsonrpc":"2.0","params":{"method":"x","id":1}}',
  '[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
  '"x"',
  '42',
  '{"k\\"ey":"v\\u0000"}',
];

/** Variants of a real frame that change its text but (mostly) not its value. */
function mutations(text: string): string[] {
  const out = [text];
  try {
    const v = JSON.parse(text) as unknown;
    out.push(
      JSON.stringify(v, null, 1),
      text.replaceAll('/', '\\/'),
      text.replace(/"(\w)/, '"\\u00$1'.replace('$1', '41')),
      `${text} `,
      text.slice(0, -1),
      text.replace(/:(\d+)/, ':$1.0'),
    );
  } catch {
    // text frames stay as they are
  }
  return out;
}

function scan(text: string, pieceSize: number): ReturnType<JsonScanner['end']> {
  const bytes = Buffer.from(text, 'utf8');
  const s = new JsonScanner();
  for (let i = 0; i < bytes.length; i += pieceSize) s.push(bytes.subarray(i, i + pieceSize));
  if (bytes.length === 0) s.push(bytes);
  return s.end();
}

function pieces(text: string | Buffer, size: number): Buffer[] {
  const bytes = Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8');
  const out: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

function collect(write: (sink: { write(t: string | Buffer): void }) => void): string {
  const parts: Buffer[] = [];
  write({ write: (t) => parts.push(Buffer.isBuffer(t) ? Buffer.from(t) : Buffer.from(t, 'utf8')) });
  return Buffer.concat(parts).toString('utf8');
}

test('the streaming scan agrees with JSON.parse on validity and kind, and never calls a changed frame canonical', (t) => {
  const frames = [...EDGES, ...corpus().flatMap(mutations)];
  let conservative = 0;
  for (const text of frames) {
    let parsed: { value: unknown } | undefined;
    try {
      parsed = text.trim() === '' ? undefined : { value: JSON.parse(text) as unknown };
    } catch {
      parsed = undefined;
    }
    for (const size of [1, 3, 7, 4096]) {
      const r = scan(text, size);
      t.true(r.utf8);
      if (!parsed) {
        if (r.json) t.fail(`${JSON.stringify(text)} is not JSON, the scan says it is`);
        continue;
      }
      if (!r.json) {
        t.fail(`${JSON.stringify(text.slice(0, 200))} is JSON, the scan says it is not`);
        continue;
      }
      t.is(r.json.kind, classify(parsed.value), text.slice(0, 200));
      const roundTrips = JSON.stringify(parsed.value) === text;
      if (r.json.canonical && !roundTrips) t.fail(`${JSON.stringify(text.slice(0, 200))} does not round-trip, the scan says it does`);
      if (!r.json.canonical && roundTrips && size === 1) conservative += 1;
    }
  }
  // Only the documented conservative cases (index keys, \u escapes of lone surrogates).
  t.true(conservative <= 3, `${conservative} round-tripping frames were called changed`);
  t.true(frames.length > 500, `${frames.length} frames`);
});

test('invalid UTF-8 is found whatever the split', (t) => {
  const bytes = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3]), Buffer.from('"}')]);
  for (const size of [1, 2, 5]) {
    const s = new JsonScanner();
    for (const p of pieces(bytes, size)) s.push(p);
    t.false(s.end().utf8);
  }
  const euro = Buffer.from('{"a":"€"}');
  for (const size of [1, 2]) {
    const s = new JsonScanner();
    for (const p of pieces(euro, size)) s.push(p);
    t.deepEqual(s.end(), { utf8: true, json: { kind: 'non-jsonrpc', canonical: true } });
  }
});

test("the indented writer gives stringify's layout for every frame and the same value for changed ones", (t) => {
  const frames = [...EDGES, ...corpus().flatMap(mutations)];
  for (const text of frames) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      continue;
    }
    const r = scan(text, 4096);
    for (const [size, margin] of [
      [1, 0],
      [5, 6],
      [4096, 2],
    ] as const) {
      const out = collect((sink) => writeIndented(pieces(text, size), margin, sink));
      const expected = JSON.stringify(value, null, 2).replaceAll('\n', '\n' + ' '.repeat(margin));
      if (r.json?.canonical) t.is(out, expected, text.slice(0, 200));
      else t.deepEqual(JSON.parse(out), value, text.slice(0, 200));
    }
  }
});

test('the JSON string writer is JSON.stringify of the text', (t) => {
  for (const text of [...EDGES, 'line\nbreak\u0001\u007f\u2028 "q" \\ é'].concat(corpus().slice(0, 200))) {
    for (const size of [1, 3, 4096])
      t.is(
        collect((sink) => writeJsonString(pieces(text, size), sink)),
        JSON.stringify(text),
      );
  }
});

test('writeCassetteFile writes exactly the text stringifyCassette gives', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-write-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const examples = join(root, 'cassettes', 'examples');
  for (const f of readdirSync(examples).filter((n) => n.endsWith('.cassette.json'))) {
    const cassette = loadCassette(join(examples, f));
    const path = join(dir, f);
    writeCassetteFile(path, cassette);
    t.is(readFileSync(path, 'utf8'), stringifyCassette(cassette), f);
  }
  const empty: Cassette = { ...loadCassette(join(examples, 'example-server.cassette.json')), sessions: [] };
  writeCassetteFile(join(dir, 'empty.json'), empty);
  t.is(readFileSync(join(dir, 'empty.json'), 'utf8'), stringifyCassette(empty));
  t.deepEqual(
    readdirSync(dir).filter((n) => n.endsWith('.tmp')),
    [],
    'no temporary file left behind',
  );
});

/** A stdio journal with these stdout lines, split into small chunks as a pipe would. */
function journalWith(dir: string, lines: Buffer[], chunk: number): string {
  const path = join(dir, `j-${chunk}.journal`);
  const w = new JournalWriter(
    path,
    {
      format: JOURNAL_FORMAT,
      version: 1,
      sessionId: `s-${chunk}`,
      startedAt: new Date(0).toISOString(),
      pid: 1,
      hostname: 'h',
      session: { transport: 'stdio', target: { command: ['x'], cwd: '/' }, proxy: { pid: 1, version: '0' } },
    },
    performance.now(),
  );
  const all = Buffer.concat(lines);
  for (let i = 0; i < all.length; i += chunk) w.chunk('stdout', all.subarray(i, i + chunk));
  w.event('exit', { code: 0, signal: null });
  w.close();
  return path;
}

test('a fold through the spill file writes the same cassette as a fold in memory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-spill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const big = {
    jsonrpc: '2.0',
    id: 7,
    result: {
      content: [{ type: 'text', text: 'z'.repeat(5000) + '"\\\n\u0001é' }],
      structuredContent: { n: [1, 2.5, -3e-9, true, null, {}] },
    },
  };
  const lines = [
    JSON.stringify({ jsonrpc: '2.0', id: 1, result: { ok: true } }),
    JSON.stringify(big),
    JSON.stringify(big, null, 1).replaceAll('\n', ' '), // changed layout: raw kept
    'x'.repeat(3000) + ' not JSON',
    `{"jsonrpc":"2.0","id":8,"result":{"a":1,"a":1.${'0'.repeat(2000)}}}`,
  ].map((l) => Buffer.from(l + '\n'));
  lines.push(Buffer.concat([Buffer.from('{"bin":"'), Buffer.alloc(2000, 0xff), Buffer.from('"}\n')]));
  lines.push(Buffer.from('y'.repeat(2500))); // unterminated
  for (const chunk of [977, 65536]) {
    const path = journalWith(dir, lines, chunk);
    const inMemory = await foldSessions(openJournal(path));
    const spill = new SpillFile();
    try {
      const spilled = await foldSessions(openJournal(path), { spill, spillAbove: 1000 });
      t.true(spill.size > 10_000, 'large frames went to the spill file');
      const cassette = (sessions: typeof inMemory): Cassette => ({ ...emptyCassette(), sessions });
      const a = join(dir, `memory-${chunk}.json`);
      const b = join(dir, `spilled-${chunk}.json`);
      writeFileSync(a, stringifyCassette(cassette(inMemory)));
      writeCassetteFile(b, cassette(spilled));
      t.deepEqual(JSON.parse(readFileSync(b, 'utf8')), JSON.parse(readFileSync(a, 'utf8')));
      t.deepEqual(
        spilled[0]!.messages.map((m) => m.kind),
        inMemory[0]!.messages.map((m) => m.kind),
      );
      t.deepEqual(
        spilled[0]!.messages.map((m) => 'raw' in m),
        inMemory[0]!.messages.map((m) => 'raw' in m),
      );
    } finally {
      spill.dispose();
    }
  }
});

test('an HTTP fold through the spill file (JSON bodies and SSE events) writes the same cassette as a fold in memory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-spill-http-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'http.journal');
  const w = new JournalWriter(
    path,
    {
      format: JOURNAL_FORMAT,
      version: 1,
      sessionId: 'h',
      startedAt: new Date(0).toISOString(),
      pid: 1,
      hostname: 'h',
      session: {
        transport: 'streamable-http',
        target: { url: 'http://127.0.0.1:1/mcp', listen: 'http://127.0.0.1:2/mcp' },
        proxy: { pid: 1, version: '0' },
      },
    },
    performance.now(),
  );
  const send = (x: number, body: string, type: string, answer: Buffer): void => {
    w.event('http-request', { x, method: 'POST', path: '/mcp', headers: { 'content-type': 'application/json' }, mcp: true }, true);
    const b = Buffer.from(body);
    for (let i = 0; i < b.length; i += 700) w.chunk('http-request', b.subarray(i, i + 700), x, true);
    w.event('http-request-end', { x });
    w.event('http-response', { x, status: 200, headers: { 'content-type': type } });
    for (let i = 0; i < answer.length; i += 900) w.chunk('http-response', answer.subarray(i, i + 900), x);
    w.event('http-end', { x, outcome: 'complete' });
  };
  const big = JSON.stringify({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'q'.repeat(6000) + '\n"é' }] } });
  send(
    1,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'big', arguments: { pad: 'p'.repeat(3000) } } }),
    'application/json',
    Buffer.from(big),
  );
  send(
    2,
    JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call' }),
    'text/event-stream',
    Buffer.from(
      `id: 9\nevent: message\ndata: ${big.replace('"id":1', '"id":2')}\n\ndata: {"jsonrpc":"2.0","method":"notifications/progress"}\n\n`,
    ),
  );
  send(
    3,
    '{"jsonrpc":"2.0","id":3,"method":"x"}',
    'text/event-stream',
    Buffer.from(`data: ${'{"a": 1, '.repeat(400)}"z":0${'}'.repeat(1)}\ndata: second line\n\n`),
  );
  w.event('stopped');
  w.close();
  const inMemory = await foldSessions(openJournal(path));
  const spill = new SpillFile();
  try {
    const spilled = await foldSessions(openJournal(path), { spill, spillAbove: 1000 });
    t.true(spill.size > 12_000, 'large bodies and events went to the spill file');
    const a = join(dir, 'memory.json');
    const b = join(dir, 'spilled.json');
    writeFileSync(a, stringifyCassette({ ...emptyCassette(), sessions: inMemory }));
    writeCassetteFile(b, { ...emptyCassette(), sessions: spilled });
    t.deepEqual(JSON.parse(readFileSync(b, 'utf8')), JSON.parse(readFileSync(a, 'utf8')));
    t.is(inMemory.flatMap((s) => s.messages).length, 7);
  } finally {
    spill.dispose();
  }
});

test('a spilled frame nested 100,000 deep is kept as text, marked tooDeep, and written byte-exact', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-spill-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const deep = `{"jsonrpc":"2.0","id":4,"result":{"v":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`;
  const path = journalWith(dir, [Buffer.from(deep + '\n')], 65536);
  const spill = new SpillFile();
  try {
    const [session] = await foldSessions(openJournal(path), { spill, spillAbove: 1000 });
    const m = session!.messages[0]!;
    t.like(m, { kind: 'response', tooDeep: true });
    t.is(m.json, undefined, 'a spilled frame is not parsed, not even its top level');
    const out = join(dir, 'deep.json');
    writeCassetteFile(out, { ...emptyCassette(), sessions: [session!] });
    const back = loadCassette(out).sessions[0]!.messages[0]!;
    t.is(back.raw, deep);
    t.true(back.tooDeep);
  } finally {
    spill.dispose();
  }
});
