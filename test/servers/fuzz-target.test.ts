/**
 * The seeded-defect server of `mcp-cassette fuzz` over stdio (test/servers/fuzz-target.ts): each
 * defect does exactly what DEFECTS says on its trigger, in both eras, and nothing on the values
 * just short of it; `--fixed` and `--fix` remove them; the server exits on stdin EOF. Driven with
 * raw requests (lib/raw-client/stdio.ts), so nothing fixes a message up on its way.
 */
import test, { type ExecutionContext } from 'ava';
import { RawStdioProcess } from '../../lib/raw-client/stdio.js';
import { fuzzTargetCommand, hangRequestText, nested, TRIGGERS, type FuzzTargetOptions } from '../helpers/fuzz-target.js';
import { DEFECTS } from '../servers/fuzz-target-tools.js';

type Json = Record<string, unknown>;
type Era = '2025-11-25' | '2026-07-28';
const ERAS: Era[] = ['2025-11-25', '2026-07-28'];
const GUARD_MS = 30_000; // a guard against a hang of the test, never a measure

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'fuzz-target-test', version: '1.0.0' },
};

/** A server process in `era` (2025-11-25: after the handshake), stopped when the test ends. */
async function open(t: ExecutionContext, era: Era, options: FuzzTargetOptions = {}): Promise<Session> {
  const p = new RawStdioProcess({ command: fuzzTargetCommand(options) });
  t.teardown(() => p.close());
  const s = new Session(p, era);
  if (era === '2025-11-25') {
    const init = await p.request(
      {
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: era, capabilities: {}, clientInfo: { name: 'fuzz-target-test', version: '1.0.0' } },
      },
      GUARD_MS,
    );
    t.is((init.response?.result as Json | undefined)?.protocolVersion, era);
    p.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }
  return s;
}

class Session {
  #id = 0;
  constructor(
    readonly p: RawStdioProcess,
    readonly era: Era,
  ) {}

  nextId(): number {
    return ++this.#id;
  }

  params(params: Json): Json {
    return this.era === '2026-07-28' ? { ...params, _meta: META } : params;
  }

  async call(name: string, args: Json): Promise<{ response?: Json; gone?: string }> {
    const ex = await this.p.request(
      { jsonrpc: '2.0', id: this.nextId(), method: 'tools/call', params: this.params({ name, arguments: args }) },
      GUARD_MS,
    );
    if (ex.timedOut) throw new Error(`no answer to ${name} within the guard`);
    return ex;
  }
}

const resultOf = (r: { response?: Json }): Json => r.response?.result as Json;
const textOf = (r: { response?: Json }): string => ((resultOf(r)?.content as Json[] | undefined)?.[0]?.text as string) ?? '';

/** Ends the process by closing stdin, and says how it exited and what it left on stderr. */
async function finish(s: Session): Promise<{ code: number | null; stderr: string }> {
  const exit = await s.p.close(GUARD_MS);
  return { code: exit.code, stderr: s.p.stderrTail.join('\n') };
}

test('DEFECTS lists the seven defects of issue 34, one tool each, numbered 1-7', (t) => {
  t.deepEqual(
    DEFECTS.map((d) => [d.n, d.name, d.tool]),
    [
      [1, 'crash', 'echo'],
      [2, 'hang', 'parity'],
      [3, 'error-misuse', 'convert_temperature'],
      [4, 'stderr-panic', 'inspect_json'],
      [5, 'stdout-noise', 'greet'],
      [6, 'result-shape', 'word_count'],
      [7, 'side-effect', 'delete_everything'],
    ],
  );
});

for (const era of ERAS) {
  test(`${era}: tools/list lists every tool with a closed JSON Schema input, readOnlyHint on all but delete_everything`, async (t) => {
    const s = await open(t, era);
    const ex = await s.p.request({ jsonrpc: '2.0', id: s.nextId(), method: 'tools/list', params: s.params({}) }, GUARD_MS);
    const tools = resultOf(ex).tools as Json[];
    t.deepEqual(
      tools.map((tool) => tool.name),
      DEFECTS.map((d) => d.tool),
    );
    for (const tool of tools) {
      const schema = tool.inputSchema as Json;
      t.is(schema.type, 'object', `${String(tool.name)}: an object schema`);
      t.is(schema.additionalProperties, false, `${String(tool.name)}: no other arguments`);
      const hint = (tool.annotations as Json).readOnlyHint;
      t.is(hint, tool.name === 'delete_everything' ? undefined : true, `${String(tool.name)}: readOnlyHint`);
    }
    t.is(resultOf(ex).resultType, era === '2026-07-28' ? 'complete' : undefined);
  });

  test(`${era}: valid calls get their results, invalid arguments an isError result`, async (t) => {
    const s = await open(t, era);
    t.is(textOf(await s.call('echo', { text: 'hi' })), 'hi');
    t.is(textOf(await s.call('parity', { n: 7 })), '7 is odd');
    t.is(textOf(await s.call('convert_temperature', { celsius: 100, to: 'fahrenheit' })), '100 °C is 212 °F');
    t.is(textOf(await s.call('convert_temperature', { celsius: 0, to: 'kelvin' })), '0 °C is 273.15 K');
    t.is(textOf(await s.call('inspect_json', { document: { a: [1, { b: 2 }] } })), 'an object with 1 key, nested 3 levels deep');
    t.is(textOf(await s.call('greet', { name: 'Ada' })), 'Hello, Ada!');
    t.is(textOf(await s.call('word_count', { text: 'one two  three' })), '3 words, 14 characters');
    const invalid: Array<[string, Json]> = [
      ['echo', {}],
      ['echo', { text: 5 }],
      ['echo', { text: 'x', extra: 1 }],
      ['parity', { n: 1.5 }],
      ['convert_temperature', { celsius: '20', to: 'kelvin' }],
      ['convert_temperature', { celsius: 20, to: 7 }],
      ['inspect_json', { document: [1, 2] }],
      ['greet', { name: null }],
      ['word_count', { text: ['a'] }],
    ];
    for (const [name, args] of invalid) {
      const r = await s.call(name, args);
      t.is(resultOf(r)?.isError, true, `${name} ${JSON.stringify(args)}: an isError result`);
      t.true(textOf(r).startsWith(`Invalid arguments for ${name}: `), textOf(r));
    }
    t.deepEqual(s.p.noise, []);
    t.deepEqual(await finish(s), { code: 0, stderr: '' });
  });

  test(`${era}: 1 crash: a string with U+202E in echo's text is an uncaught RangeError and exit code 3`, async (t) => {
    const s = await open(t, era);
    // The same character elsewhere is no trigger.
    t.is(textOf(await s.call('greet', { name: 'x\u202ey' })), 'Hello, x\u202ey!');
    const r = await s.call('echo', TRIGGERS[1]!.arguments);
    t.is(r.response, undefined);
    t.regex(r.gone ?? '', /exited with code 3/);
    const { code, stderr } = await finish(s);
    t.is(code, 3);
    t.regex(stderr, /^RangeError: echo: cannot lay out text with a right-to-left override \(U\+202E\)$/m);
    t.regex(stderr, /^ {4}at /m, 'with its stack');
    t.regex(stderr, /^Node\.js v\d+/m, "in Node's own words");
    t.notRegex(stderr, /panic:/);
  });

  test(`${era}: 2 hang: parity of 9007199254740993 is never answered, while the next call is`, async (t) => {
    const s = await open(t, era);
    t.is(textOf(await s.call('parity', { n: Number.MAX_SAFE_INTEGER })), '9007199254740991 is odd');
    s.p.send(hangRequestText('hang', era === '2026-07-28' ? META : undefined));
    // Requests are answered in order: the next one's answer shows the first was passed over.
    t.is(textOf(await s.call('parity', { n: 4 })), '4 is even');
    t.is(textOf(await s.call('parity', { n: -(2 ** 53) + 1 })), '-9007199254740991 is odd');
    const answeredHang = (): boolean => s.p.received.some((m) => (m as Json).id === 'hang');
    t.false(answeredHang());
    t.true(s.p.alive);
    // And stdin EOF ends it cleanly with the call still open.
    t.deepEqual(await finish(s), { code: 0, stderr: '' });
    t.false(answeredHang(), 'never answered');
  });

  test(`${era}: 3 error misuse: a string outside convert_temperature's enum gets -32603 "Internal error"`, async (t) => {
    const s = await open(t, era);
    for (const to of ['rankine', '', 'Kelvin']) {
      const r = await s.call('convert_temperature', { celsius: 20, to });
      t.deepEqual(r.response?.error, { code: -32603, message: 'Internal error' }, `to: ${JSON.stringify(to)}`);
    }
    // Not a string: an isError result, as it should be.
    t.is(resultOf(await s.call('convert_temperature', { celsius: 20, to: null })).isError, true);
    t.deepEqual(await finish(s), { code: 0, stderr: '' });
  });

  test(`${era}: 4 stderr panic: a document nested 65 levels writes a Go panic to stderr, then answers normally`, async (t) => {
    const s = await open(t, era);
    t.is(textOf(await s.call('inspect_json', { document: nested(64) })), 'an object with 1 key, nested 64 levels deep');
    t.is(textOf(await s.call('inspect_json', TRIGGERS[4]!.arguments)), 'an object with 1 key, nested 65 levels deep');
    t.true(s.p.alive);
    const { code, stderr } = await finish(s);
    t.is(code, 0);
    t.is(stderr.match(/^panic: runtime error: index out of range \[64\] with length 64$/gm)?.length, 1, 'one panic: for 65 levels, not 64');
    t.regex(stderr, /^goroutine 1 \[running\]:$/m);
  });

  test(`${era}: 5 stdout noise: greet with an empty name writes a plain log line on stdout before its answer`, async (t) => {
    const s = await open(t, era);
    t.is(textOf(await s.call('greet', { name: ' ' })), 'Hello,  !');
    t.deepEqual(s.p.noise, []);
    // Another tool's empty string is no trigger.
    t.is(textOf(await s.call('echo', { text: '' })), '');
    t.deepEqual(s.p.noise, []);
    t.is(textOf(await s.call('greet', { name: '' })), 'Hello, stranger!');
    t.deepEqual(s.p.noise, ['greet: empty name, greeting a stranger']);
    t.deepEqual(await finish(s), { code: 0, stderr: '' });
  });

  test(`${era}: 6 result shape: word_count of a text over 64 KiB answers a result without content`, async (t) => {
    const s = await open(t, era);
    const limit = 'x'.repeat(64 * 1024);
    t.is(textOf(await s.call('word_count', { text: limit })), '1 word, 65536 characters');
    const r = await s.call('word_count', TRIGGERS[6]!.arguments);
    const result = resultOf(r);
    t.false('content' in result);
    t.is(result.summary, '13109 words, 65541 characters');
    t.is(result.resultType, era === '2026-07-28' ? 'complete' : undefined);
    // Bytes, not characters: 32,769 two-byte characters are over the limit.
    t.false('content' in resultOf(await s.call('word_count', { text: 'é'.repeat(32_769) })));
    t.deepEqual(await finish(s), { code: 0, stderr: '' });
  });

  test(`${era}: 7 side effect: any call of delete_everything crashes with exit code 4, also with --fixed`, async (t) => {
    for (const options of [{}, { fixed: true }]) {
      const s = await open(t, era, options);
      const r = await s.call('delete_everything', {});
      t.regex(r.gone ?? '', /exited with code 4/, JSON.stringify(options));
      const { code, stderr } = await finish(s);
      t.is(code, 4);
      t.regex(stderr, /^Error: delete_everything: a destructive tool was called/m);
    }
    const s = await open(t, era, { fix: [7] });
    t.is(textOf(await s.call('delete_everything', { confirm: true })), 'nothing was deleted: fuzz-target holds no records');
    t.deepEqual(await finish(s), { code: 0, stderr: '' });
  });

  test(`${era}: --fixed answers every trigger of defects 1-6 with an isError result or a proper result`, async (t) => {
    const s = await open(t, era, { fixed: true });
    t.is(textOf(await s.call('echo', TRIGGERS[1]!.arguments)), 'left\u202eright');
    s.p.send(hangRequestText('hang', era === '2026-07-28' ? META : undefined));
    t.is(textOf(await s.call('parity', { n: 3 })), '3 is odd');
    const hang = s.p.received.find((m) => (m as Json).id === 'hang') as Json | undefined;
    t.is((hang?.result as Json | undefined)?.isError, true, 'the hang is answered, as an invalid argument');
    const misuse = await s.call('convert_temperature', TRIGGERS[3]!.arguments);
    t.is(resultOf(misuse).isError, true);
    t.is(textOf(misuse), 'Invalid arguments for convert_temperature: argument "to" must be one of fahrenheit, kelvin');
    t.is(textOf(await s.call('inspect_json', TRIGGERS[4]!.arguments)), 'an object with 1 key, nested 65 levels deep');
    t.is(textOf(await s.call('greet', TRIGGERS[5]!.arguments)), 'Hello, stranger!');
    t.is(textOf(await s.call('word_count', TRIGGERS[6]!.arguments)), '13109 words, 65541 characters');
    t.deepEqual(s.p.noise, []);
    t.deepEqual(await finish(s), { code: 0, stderr: '' });
  });
}

test('--fix fixes one defect, named by number, name or tool, and leaves the others', async (t) => {
  for (const fix of ['3', 'error-misuse', 'convert_temperature']) {
    const s = await open(t, '2026-07-28', { fix: [fix] });
    t.is(resultOf(await s.call('convert_temperature', TRIGGERS[3]!.arguments)).isError, true, `--fix ${fix}`);
    await s.call('greet', TRIGGERS[5]!.arguments);
    t.deepEqual(s.p.noise, ['greet: empty name, greeting a stranger'], `--fix ${fix} leaves defect 5`);
    await finish(s);
  }
  const s = await open(t, '2026-07-28', { fix: [3, 'stdout-noise'] });
  t.is(resultOf(await s.call('convert_temperature', TRIGGERS[3]!.arguments)).isError, true);
  await s.call('greet', TRIGGERS[5]!.arguments);
  t.deepEqual(s.p.noise, [], 'repeated, each fixes one more');
  await finish(s);
});

test('the same requests get byte-identical answers from two processes (no time, no randomness)', async (t) => {
  const runs: unknown[][] = [];
  for (let i = 0; i < 2; i++) {
    const s = await open(t, '2026-07-28');
    await s.p.request({ jsonrpc: '2.0', id: s.nextId(), method: 'server/discover', params: s.params({}) }, GUARD_MS);
    await s.p.request({ jsonrpc: '2.0', id: s.nextId(), method: 'tools/list', params: s.params({}) }, GUARD_MS);
    for (const n of [3, 4, 5, 6]) await s.call(TRIGGERS[n]!.name, TRIGGERS[n]!.arguments);
    await finish(s);
    runs.push(s.p.received);
  }
  t.deepEqual(runs[0], runs[1]);
});
