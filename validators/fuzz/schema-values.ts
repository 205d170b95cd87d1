/**
 * Values for one JSON Schema (a tool property's, as servers write them in 2020-12 or draft-07)
 * that servers get wrong: boundaries and one past them, empty and huge strings, Unicode that
 * breaks naive text handling, numbers a double cannot hold, deep nesting, enum outsiders, wrong
 * types and null. Whether each is valid is ajv's verdict (validators/json-schema.ts, the
 * validator's own compiler), never a guess, so a case's `invalidArguments` says exactly what ajv
 * says of the arguments.
 */
import { isObject } from '../../lib/plain-object.js';
import { boundsProblem, dataProblem, dialectOf, schemaProblem } from '../json-schema.js';
import type { Random } from './random.js';
import { RawValue, plainValueOf } from './raw-json.js';
import type { Json } from './types.js';

export type ValueMutation =
  | 'wrong-type'
  | 'null'
  | 'boundary'
  | 'negative-zero'
  | 'huge-number'
  | 'past-2^53'
  | 'empty-string'
  | 'huge-string'
  | 'unicode'
  | 'deep-nesting'
  | 'enum-outsider';

export interface SchemaValue {
  mutation: ValueMutation;
  /** Which value of the mutation, unique within one schema's list (`maximum+1`, `bidi-override`). */
  label: string;
  /** The value, or a RawValue when its JSON text must be written exactly (raw-json.ts). */
  value: unknown;
  /** ajv's verdict on the value; undefined when ajv cannot judge (no usable schema). */
  valid: boolean | undefined;
}

export interface ValueOptions {
  /** Size of the huge string in bytes (ASCII, so also in characters); 1 MiB by default. */
  hugeStringBytes?: number;
  /** Depth of the deeply nested array and object; 1,000 by default. */
  maxDepth?: number;
  /** Judges a value (e.g. the whole arguments with this value in place against the tool's
   * inputSchema); by default the schema alone is compiled. */
  validate?: (value: unknown) => boolean | undefined;
}

export const HUGE_STRING_BYTES = 1024 * 1024;
export const MAX_DEPTH = 1000;

/** The Unicode that breaks text handling: direction overrides, an embedded NUL, astral code points
 * and ZWJ sequences, stacked combining marks, right-to-left scripts, and a lone surrogate (not
 * valid UTF-16, so it goes out as the JSON escape `\ud800`). */
const UNICODE: readonly [string, unknown][] = [
  ['bidi-override', 'abc\u202Eevil.exe\u202C'],
  ['nul', 'before\u0000after'],
  ['emoji', '\u{1F600}\u{1F468}\u200D\u{1F469}\u200D\u{1F467}\u{1F3F3}\uFE0F\u200D\u{1F308}'],
  ['combining', `e\u0301${'\u0300\u0301\u0302\u0303\u0308\u0336'.repeat(8)}`],
  ['rtl', '\u0645\u0631\u062D\u0628\u0627 \u05E9\u05DC\u05D5\u05DD'],
  ['lone-surrogate', new RawValue('a\uD800b', '"a\\ud800b"')],
];

/** 2^53 + 1: a double holds 2^53 instead, so only the text keeps the digits. */
export const PAST_2_53 = '9007199254740993';

function typesOf(schema: Json): Set<string> | undefined {
  const types = new Set<string>();
  const add = (t: unknown) => {
    for (const x of Array.isArray(t) ? t : [t]) if (typeof x === 'string') types.add(x);
  };
  add(schema.type);
  if (!types.size)
    for (const k of ['anyOf', 'oneOf'] as const) {
      const branches = schema[k];
      if (Array.isArray(branches)) for (const b of branches) if (isObject(b)) add(b.type);
    }
  if (!types.size && Array.isArray(schema.enum))
    for (const v of schema.enum) add(v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
  return types.size ? types : undefined;
}

const hugeStrings = new Map<number, string>();
function hugeString(bytes: number): string {
  let s = hugeStrings.get(bytes);
  if (s === undefined) hugeStrings.set(bytes, (s = 'x'.repeat(bytes)));
  return s;
}

const nests = new Map<string, unknown>();
/** An array (`[[[…]]]`) or object (`{"a":{"a":…}}`) nested `depth` levels; built once, shared. */
function nested(kind: 'array' | 'object', depth: number): unknown {
  const key = `${kind}:${depth}`;
  if (nests.has(key)) return nests.get(key);
  let v: unknown = kind === 'array' ? [] : {};
  for (let i = 1; i < depth; i++) v = kind === 'array' ? [v] : { a: v };
  nests.set(key, v);
  return v;
}

const WRONG: readonly [string, unknown][] = [
  ['string', 'mcp-cassette-fuzz'],
  ['number', 12345],
  ['boolean', true],
  ['object', { 'mcp-cassette-fuzz': true }],
  ['array', ['mcp-cassette-fuzz']],
];

function numeric(types: Set<string> | undefined): boolean {
  return !types || types.has('number') || types.has('integer');
}

function numberValues(schema: Json): [ValueMutation, string, unknown][] {
  const out: [ValueMutation, string, unknown][] = [];
  const bounds = (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const).filter(
    (k) => typeof schema[k] === 'number' && Number.isFinite(schema[k]),
  );
  for (const k of bounds) {
    const b = schema[k] as number;
    out.push(['boundary', `${k}-1`, b - 1], ['boundary', k, b], ['boundary', `${k}+1`, b + 1]);
  }
  if (!bounds.length)
    out.push(
      ['boundary', 'zero', 0],
      ['boundary', 'minus-one', -1],
      ['boundary', 'max-safe', Number.MAX_SAFE_INTEGER],
      ['boundary', 'min-safe', Number.MIN_SAFE_INTEGER],
    );
  out.push(
    ['negative-zero', '-0', new RawValue(-0, '-0')],
    ['huge-number', '1e308', 1e308],
    ['huge-number', '-1e308', -1e308],
    // Past the largest double: JSON.parse reads it as Infinity, other parsers throw.
    ['huge-number', '1e400', new RawValue(Number.POSITIVE_INFINITY, '1e400')],
    ['past-2^53', '2^53+1', new RawValue(Number(PAST_2_53), PAST_2_53)],
    ['past-2^53', '-(2^53+1)', new RawValue(-Number(PAST_2_53), `-${PAST_2_53}`)],
  );
  return out;
}

function stringValues(schema: Json, hugeBytes: number): [ValueMutation, string, unknown][] {
  const out: [ValueMutation, string, unknown][] = [['empty-string', 'empty', '']];
  for (const k of ['minLength', 'maxLength'] as const) {
    const n = schema[k];
    // Edges past the huge string's size are the huge string's business.
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > hugeBytes) continue;
    if (n > 0) out.push(['boundary', `${k}-1`, 'a'.repeat(n - 1)]);
    out.push(['boundary', k, 'a'.repeat(n)], ['boundary', `${k}+1`, 'a'.repeat(n + 1)]);
  }
  out.push(['huge-string', `${hugeBytes}-bytes`, hugeString(hugeBytes)]);
  for (const [label, v] of UNICODE) out.push(['unicode', label, v]);
  return out;
}

function enumOutsiders(schema: Json): [ValueMutation, string, unknown][] {
  const listed = Array.isArray(schema.enum) ? schema.enum : 'const' in schema ? [schema.const] : undefined;
  if (!listed?.length) return [];
  const out: [ValueMutation, string, unknown][] = [];
  const str = listed.find((v): v is string => typeof v === 'string');
  if (str !== undefined) {
    out.push(['enum-outsider', 'near-miss', `${str} `]);
    if (str.toUpperCase() !== str && !listed.includes(str.toUpperCase())) out.push(['enum-outsider', 'case', str.toUpperCase()]);
    out.push(['enum-outsider', 'outsider', 'mcp-cassette-fuzz-not-listed']);
  }
  const nums = listed.filter((v): v is number => typeof v === 'number');
  if (nums.length) out.push(['enum-outsider', 'number-outsider', Math.max(...nums) + 1]);
  return out;
}

/** Follows a local `$ref` (`#/$defs/X`, `#/definitions/X`) into `root`, a few hops at most. */
export function resolveRef(schema: unknown, root: unknown): unknown {
  let s = schema;
  for (let hops = 0; hops < 8 && isObject(s) && typeof s.$ref === 'string' && s.$ref.startsWith('#/'); hops++) {
    let at: unknown = root;
    for (const part of s.$ref.slice(2).split('/')) {
      const key = decodeURIComponent(part).replace(/~1/g, '/').replace(/~0/g, '~');
      at = isObject(at) ? at[key] : undefined;
    }
    if (at === undefined) break;
    s = at;
  }
  return s;
}

/** ajv's verdict on data against a schema: undefined when the schema cannot be compiled here
 * (an unknown dialect, an invalid schema, past the validator's bounds). */
export function judge(schema: unknown, data: unknown): boolean | undefined {
  if (typeof schema === 'boolean') return schema;
  if (!isObject(schema) || boundsProblem(schema) || dialectOf(schema) === 'unsupported' || schemaProblem(schema)) return undefined;
  return dataProblem(schema, data) === undefined;
}

/** The values for one schema, each with ajv's verdict. A schema without a `type` (nor typed
 * branches or enum) accepts anything: it gets the string and number values, no wrong types. */
export function schemaValues(schema: unknown, options: ValueOptions = {}): SchemaValue[] {
  const s: Json = isObject(schema) ? schema : {};
  const validate = options.validate ?? ((v: unknown) => judge(s, v));
  return candidates(s, options).map(([mutation, label, value]) => ({ mutation, label, value, valid: validate(plainValueOf(value)) }));
}

function candidates(s: Json, options: ValueOptions): [ValueMutation, string, unknown][] {
  const types = typesOf(s);
  const raw: [ValueMutation, string, unknown][] = [];
  if (types) {
    for (const [t, v] of WRONG) {
      const allowed = types.has(t) || (t === 'number' && types.has('integer'));
      if (!allowed) raw.push(['wrong-type', t, v]);
    }
    if (types.has('integer') && !types.has('number')) raw.push(['wrong-type', 'fraction', 1.5]);
  }
  raw.push(['null', 'null', null]);
  if (!types || types.has('string')) raw.push(...stringValues(s, options.hugeStringBytes ?? HUGE_STRING_BYTES));
  if (numeric(types)) raw.push(...numberValues(s));
  if (types?.has('array')) raw.push(['boundary', 'empty-array', []]);
  if (types?.has('object')) raw.push(['boundary', 'empty-object', {}]);
  const depth = options.maxDepth ?? MAX_DEPTH;
  raw.push(['deep-nesting', `array-${depth}`, nested('array', depth)], ['deep-nesting', `object-${depth}`, nested('object', depth)]);
  raw.push(...enumOutsiders(s));
  return raw;
}

/** Pieces random strings are made of: plain text and each kind of hostile Unicode. */
const PIECES: readonly string[] = [
  'a',
  'Z',
  '0',
  ' ',
  '"',
  '\\',
  '/',
  '%',
  '\n',
  '\t',
  '\u0000',
  '\u202E',
  '\u200F',
  '\u200D',
  '\uFEFF',
  '\u0301',
  '\u0645',
  '\u05D0',
  '\u00E9',
  '\u{1F600}',
  '\u{10FFFF}',
  '\uFFFD',
  '{{',
  '$' + '{x}', // a template placeholder, as text
  '../',
  "'; --",
];

/** A fresh random value of the schema's kind, for the stream after the systematic pass: a random
 * string of hostile pieces, a random number near a bound or anywhere, or one of the systematic
 * values. Random strings hold no lone surrogate, so JSON.stringify writes them exactly. */
export function randomValue(schema: unknown, random: Random, options: ValueOptions = {}): SchemaValue {
  const s: Json = isObject(schema) ? schema : {};
  const types = typesOf(s);
  const validate = options.validate ?? ((v: unknown) => judge(s, v));
  const roll = random.int(3);
  if (roll === 0 && (!types || types.has('string'))) {
    const length = random.chance(0.1) ? 256 + random.int(4096) : random.int(24);
    let text = '';
    for (let i = 0; i < length; i++) text += random.pick(PIECES);
    return { mutation: 'unicode', label: `random-string-${length}`, value: text, valid: validate(text) };
  }
  if (roll === 1 && numeric(types)) {
    const bounds = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum']
      .map((k) => s[k])
      .filter((b): b is number => typeof b === 'number' && Number.isFinite(b));
    const base = bounds.length && random.chance(0.7) ? random.pick(bounds) : 0;
    const spread = random.pick([1, 10, 1000, 2 ** 31]);
    let n = base + random.int(2 * spread) - spread;
    if (!types?.has('integer') || random.chance(0.2)) n += random.int(1000) / 1000;
    return { mutation: 'boundary', label: `random-number-${n}`, value: n, valid: validate(n) };
  }
  const [mutation, label, value] = random.pick(candidates(s, options));
  return { mutation, label, value, valid: validate(plainValueOf(value)) };
}
