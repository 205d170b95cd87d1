/**
 * Seeded generator of hostile JSON-RPC sessions for the fuzz suite. A case is fully determined by
 * (seed, index): the same pair gives the same bytes on every machine, so a failure printed as
 * `--seed S --case K` replays exactly. Each session is a short script of client lines, each with the
 * exact bytes the server answers (or none for a notification): a valid `initialize`, the
 * `initialized` notification, one request/response pair carrying the hostile payload, then a valid
 * `tools/list` that shows the session survived it.
 */

import { randomInt } from 'node:crypto';

/** The seed given (`--seed`, `FUZZ_SEED`): a whole number below 2^32; a random one when none is. */
export function parseSeed(given: string | undefined): number {
  if (given === undefined || given.trim() === '') return randomInt(0, 2 ** 32);
  const seed = Number(given);
  if (!/^\s*\d+\s*$/.test(given) || seed >= 2 ** 32)
    throw new Error(`a fuzz seed is a whole number below 2^32, not ${JSON.stringify(given)}`);
  return seed;
}

/** mulberry32: tiny, fast, good enough to pick cases; the state is the 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const kinds = [
  'deep',
  'unclosed',
  'big-line',
  'invalid-utf8',
  'lone-surrogate',
  'bom',
  'nul',
  'huge-number',
  'duplicate-keys',
  'proto-keys',
  'long-string',
  'long-key',
] as const;
export type Kind = (typeof kinds)[number];
/** The short run's `valid-json` case: the kinds whose hostile value is valid JSON, one hostile
 * pair each in one session, each at its own position (drawn from the case). */
export const validJsonKinds = [
  'lone-surrogate',
  'huge-number',
  'proto-keys',
  'duplicate-keys',
  'long-string',
  'long-key',
] as const satisfies readonly Kind[];
export type CaseKind = Kind | 'valid-json';

/** Where the hostile value sits. params travel client→server, result and error.data server→client,
 * id and _meta both ways. */
export const positions = ['params', 'result', 'error.data', 'id', '_meta'] as const;
/** `every`: one hostile request/response pair per position in one session (the short run's deep
 * case: the same coverage as five cases, for the start-up cost of one). */
export type Position = (typeof positions)[number] | 'every';

/** How `record` meets the server: stdio, or Streamable HTTP with JSON or SSE answers. */
export const transports = ['stdio', 'json', 'sse'] as const;
export type Transport = (typeof transports)[number];

export interface FuzzCase {
  seed: number;
  index: number;
  kind: CaseKind;
  position: Position;
  transport: Transport;
  /** Nesting depth for `deep`, byte size for big/long kinds. */
  size: number;
}

export interface ScriptLine {
  client: Buffer;
  /** What the server writes when it reads this line (undefined: a notification, no answer). */
  server?: Buffer;
}

export interface SizeLimits {
  /** Nesting depth of `deep` cases. */
  depth: number;
  /** Range of the big-line size, in bytes. */
  bigMin: number;
  bigMax: number;
  /** Size of long strings and keys. */
  long: number;
}

/** The sizes: 10^5 levels, 1-10 MB lines. */
export const fullLimits: SizeLimits = { depth: 100_000, bigMin: 1 << 20, bigMax: 10 << 20, long: 1 << 20 };
/** The short run in `npm test`: the same depth (that is the bug class), modest byte sizes. */
export const shortLimits: SizeLimits = { depth: 100_000, bigMin: 1 << 20, bigMax: 1 << 20, long: 256 << 10 };

/** The case at (seed, index). `forced` pins kind/position (the short run walks them in order). */
export function makeCase(
  seed: number,
  index: number,
  limits: SizeLimits,
  forced: Partial<Pick<FuzzCase, 'kind' | 'position' | 'transport'>> = {},
): FuzzCase {
  // One generator per case, seeded from both numbers, so case K never depends on cases before it.
  const rnd = mulberry32((seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0);
  const kind = forced.kind ?? kinds[Math.floor(rnd() * kinds.length)]!;
  const position = forced.position ?? positions[Math.floor(rnd() * positions.length)]!;
  let size = limits.long;
  if (kind === 'deep') size = limits.depth;
  else if (kind === 'big-line') size = limits.bigMin + Math.floor(rnd() * (limits.bigMax - limits.bigMin + 1));
  const transport = forced.transport ?? transports[Math.floor(rnd() * transports.length)]!;
  return { seed, index, kind, position, transport, size };
}

export function describeCase(c: FuzzCase): string {
  return `case ${String(c.index)} (seed ${String(c.seed)}): ${c.kind} in ${c.position} over ${c.transport}, size ${String(c.size)}`;
}

const b = (s: string | Buffer): Buffer => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s);

/** The hostile JSON text (raw bytes, not always valid JSON) that replaces a value. */
function hostileValue(c: FuzzCase & { kind: Kind }): Buffer {
  switch (c.kind) {
    case 'deep': {
      // Alternate arrays and objects so both parsers' paths recurse.
      const open: string[] = [];
      const close: string[] = [];
      for (let i = 0; i < c.size; i++) {
        if (i % 2 === 0) {
          open.push('[');
          close.push(']');
        } else {
          open.push('{"a":');
          close.push('}');
        }
      }
      return b(open.join('') + '1' + close.reverse().join(''));
    }
    case 'unclosed':
      return b('{"a":[1,2,{"b":"c"');
    case 'big-line':
      return b(JSON.stringify('x'.repeat(c.size)));
    case 'invalid-utf8':
      return Buffer.concat([b('"bad '), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xed, 0xa0, 0x80, 0xf8]), b(' end"')]);
    case 'lone-surrogate':
      return b('{"hi":"\\ud800","lo":"x\\udfffy","pair":"\\udfff\\ud800"}');
    case 'bom':
      return b('"\ufeffbom inside"');
    case 'nul':
      return Buffer.concat([b('{"escaped":"a\\u0000b","raw":"a'), Buffer.from([0]), b('b"}')]);
    case 'huge-number':
      return b('[1e400,-1e400,123456789012345678901234567890,1e-400,-0]');
    case 'duplicate-keys':
      return b('{"a":1,"a":2,"a":{"a":3}}');
    case 'proto-keys':
      return b('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"toString":1,"hasOwnProperty":"x"}');
    case 'long-string':
      return b(JSON.stringify('y'.repeat(c.size)));
    case 'long-key':
      return b(`{${JSON.stringify('k'.repeat(c.size))}:1}`);
  }
}

/** `{"jsonrpc":"2.0",<head>,...<tail>}` with raw bytes spliced in. */
function frame(...parts: (string | Buffer)[]): Buffer {
  return Buffer.concat([...parts.map(b), b('\n')]);
}

/** The hostile request/response pair of one position: `id` is the request id (JSON text) unless
 * the id itself is the hostile value. */
function hostilePair(
  position: Exclude<Position, 'every'>,
  v: Buffer,
  plainId: string,
  answerId: string | undefined,
  lead: Buffer,
): ScriptLine {
  const toClient = position !== 'params';
  const id: Buffer = position === 'id' ? v : b(plainId);
  const answer = answerId ?? id;

  let request: Buffer;
  if (position === 'params')
    request = frame(lead, '{"jsonrpc":"2.0","id":', id, ',"method":"tools/call","params":{"name":"fuzz","arguments":', v, '}}');
  else if (position === '_meta')
    request = frame(lead, '{"jsonrpc":"2.0","id":', id, ',"method":"tools/call","params":{"name":"fuzz","arguments":{},"_meta":', v, '}}');
  else if (position === 'id')
    request = frame(lead, '{"jsonrpc":"2.0","id":', id, ',"method":"tools/call","params":{"name":"fuzz","arguments":{}}}');
  else request = frame('{"jsonrpc":"2.0","id":', id, ',"method":"tools/call","params":{"name":"fuzz","arguments":{}}}');

  let response: Buffer;
  if (!toClient) response = frame('{"jsonrpc":"2.0","id":', answer, ',"result":{"content":[{"type":"text","text":"ok"}]}}');
  else if (position === 'result') response = frame(lead, '{"jsonrpc":"2.0","id":', answer, ',"result":', v, '}');
  else if (position === 'error.data')
    response = frame(lead, '{"jsonrpc":"2.0","id":', answer, ',"error":{"code":-32000,"message":"hostile","data":', v, '}}');
  else if (position === 'id') response = frame(lead, '{"jsonrpc":"2.0","id":', answer, ',"result":{"content":[]}}');
  else response = frame(lead, '{"jsonrpc":"2.0","id":', answer, ',"result":{"content":[],"_meta":', v, '}}');
  return { client: request, server: response };
}

/** The case's session script: the exact bytes each side writes. `answerId` (JSON text) replaces
 * the id of every server answer (the hostile ones too): replay renumbers its requests, and a
 * server that never answers the id it was sent only tests replay's timeout. The hostile pairs are
 * lines 2 to length-2. */
export function script(c: FuzzCase, answerId?: string): ScriptLine[] {
  let hostile: ScriptLine[];
  if (c.kind === 'valid-json') {
    hostile = validJsonKinds.map((kind, i) => {
      const one = { ...c, kind };
      return hostilePair(positions[(c.index + i) % positions.length]!, hostileValue(one), String(10 + i), answerId, b(''));
    });
  } else {
    const v = hostileValue({ ...c, kind: c.kind });
    // The BOM kind also puts a BOM before the frame itself, where a parser meets it first.
    const lead = c.kind === 'bom' ? b('\ufeff') : b('');
    hostile =
      c.position === 'every'
        ? positions.map((p, i) => hostilePair(p, v, String(10 + i), answerId, lead))
        : [hostilePair(c.position, v, '2', answerId, lead)];
  }

  return [
    {
      client: frame(
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"fuzz","version":"0"}}}',
      ),
      server: frame(
        '{"jsonrpc":"2.0","id":',
        answerId ?? '1',
        ',"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"hostile","version":"0"}}}',
      ),
    },
    { client: frame('{"jsonrpc":"2.0","method":"notifications/initialized"}') },
    ...hostile,
    {
      client: frame('{"jsonrpc":"2.0","id":3,"method":"tools/list"}'),
      server: frame('{"jsonrpc":"2.0","id":', answerId ?? '3', ',"result":{"tools":[]}}'),
    },
  ];
}

/** The short run in `npm test` (and `npm run fuzz -- --short`), under a minute on a quiet 2-core
 * machine (each case starts a dozen CLIs; the cost is their start-up): over stdio, one session
 * with deep nesting in every position, one with every valid-JSON kind, and each kind that breaks
 * the JSON once (positions drawn from the seed); over HTTP, deep nesting in a JSON body and a BOM
 * in an SSE event. Every reader reads every case. */
export function shortRunCases(seed: number): FuzzCase[] {
  const cases: FuzzCase[] = [];
  let index = 0;
  cases.push(makeCase(seed, index++, shortLimits, { kind: 'deep', position: 'every', transport: 'stdio' }));
  const stdio: CaseKind[] = ['unclosed', 'big-line', 'invalid-utf8', 'nul', 'valid-json'];
  for (const kind of stdio) cases.push(makeCase(seed, index++, shortLimits, { kind, transport: 'stdio' }));
  cases.push(makeCase(seed, index++, shortLimits, { kind: 'deep', position: 'result', transport: 'json' }));
  cases.push(makeCase(seed, index++, shortLimits, { kind: 'bom', transport: 'sse' }));
  return cases;
}
