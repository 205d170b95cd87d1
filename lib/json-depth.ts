/**
 * How deep JSON may nest before we stop walking it. Parsing copes with any depth (V8's
 * JSON.parse is not recursive), but `JSON.stringify`, `structuredClone` and every recursive walk
 * in the validators, replay and serve overflow the call stack somewhere between 3,000 and
 * 10,000 levels. 256 leaves each walk more than ten stack frames per level of headroom, and is
 * far beyond what MCP traffic nests (tool schemas and results: a few dozen levels at most).
 *
 * A frame nested deeper than this is recorded byte-exact in `raw`, marked `tooDeep`, and its
 * `json` keeps only the top-level members that are not objects or arrays (so it can still be
 * paired by `id` and classified by `method`); nothing downstream descends into it.
 */
export const MAX_JSON_DEPTH = 256;

const OPEN_OBJECT = 0x7b;
const OPEN_ARRAY = 0x5b;
const CLOSE_OBJECT = 0x7d;
const CLOSE_ARRAY = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Whether JSON text nests deeper than `limit`: one pass over the characters, strings skipped, no
 * allocation (cheaper than the JSON.parse it guards). Nesting deeper than `limit` takes at
 * least `limit + 1` opening brackets and as many closing ones, so a text shorter than that
 * returns before the loop: most MCP messages do (the scan cost half a JSON.parse of a 272-byte
 * tools/call, live validator profile, issue 17). Invalid JSON (unclosed brackets) is measured
 * the same way, and the parser rejects it whatever its depth; the parser decides the rest.
 */
export function textTooDeep(text: string, limit = MAX_JSON_DEPTH): boolean {
  const n = text.length;
  if (n < 2 * (limit + 1)) return false;
  let depth = 0;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: a backslash escapes the next character, whatever it is.
      for (i++; i < n; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) depth--;
  }
  return false;
}

/**
 * Whether a parsed value nests deeper than `limit` (a scalar is depth 0, `[]` depth 1), walked
 * with an explicit stack so the measure itself cannot overflow. For values that did not come
 * from one frame's bytes (a cassette read from disk, a value built in code).
 */
export function valueTooDeep(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (value === null || typeof value !== 'object') return false;
  const values: unknown[] = [value];
  const depths: number[] = [1];
  while (values.length > 0) {
    const v = values.pop() as object;
    const d = depths.pop()!;
    if (d > limit) return true;
    const children = Array.isArray(v) ? v : Object.values(v);
    for (const c of children) {
      if (c !== null && typeof c === 'object') {
        values.push(c);
        depths.push(d + 1);
      }
    }
  }
  return false;
}

/** What `json` keeps of a too-deep value: its top-level members that are not objects or arrays. */
export function shallowEnvelope(value: unknown): Record<string, unknown> | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const out: Record<string, unknown> = {};
  // defineProperty, not assignment: a `__proto__` member stays a member.
  for (const [k, v] of Object.entries(value))
    if (v === null || typeof v !== 'object')
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
  return out;
}

/**
 * `JSON.stringify(value)` for a parsed JSON value of any depth, with an explicit stack (the
 * built-in overflows past a few thousand levels). Only what JSON.parse makes is expected:
 * plain objects, arrays, strings, finite numbers, booleans and null.
 */
export function stringifyDeep(value: unknown): string {
  const out: string[] = [];
  // Each entry is a value to write, or a literal piece of text (a separator or a closer).
  const work: ({ v: unknown } | string)[] = [{ v: value }];
  while (work.length > 0) {
    const item = work.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    const v = item.v;
    if (v === null || typeof v !== 'object') {
      out.push(JSON.stringify(v) ?? 'null');
      continue;
    }
    const array = Array.isArray(v);
    const entries: [string | undefined, unknown][] = array ? v.map((x) => [undefined, x]) : Object.entries(v);
    out.push(array ? '[' : '{');
    work.push(array ? ']' : '}');
    for (let i = entries.length - 1; i >= 0; i--) {
      const [k, x] = entries[i]!;
      work.push({ v: x });
      if (k !== undefined) work.push(JSON.stringify(k) + ':');
      if (i > 0) work.push(',');
    }
  }
  return out.join('');
}

/**
 * The member that stands for the deep part of a too-deep message when a value must stand for it
 * (replay compares values, serve matches them): the whole message as text, with its top-level
 * `id` set to null, so two answers that differ only in their id compare equal and any other
 * change is a change of this string. The other members are the message's top-level members,
 * the objects and arrays among them as null (so `'result' in m` still tells an answer's kind).
 */
export const DEEP_TEXT = '(too deep)';

/** A stand-in for a too-deep message given as text: see DEEP_TEXT. */
export function deepStandIn(text: string): Record<string, unknown> {
  return standInFor(JSON.parse(text) as unknown);
}

function standInFor(value: unknown): Record<string, unknown> {
  const envelope: Record<string, unknown> = {};
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(envelope, k, {
        value: v !== null && typeof v === 'object' ? null : v,
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'id' in value) (value as Record<string, unknown>).id = null;
  envelope[DEEP_TEXT] = stringifyDeep(value);
  return envelope;
}

/** `JSON.parse` of a message's text, a stand-in (see DEEP_TEXT) when it nests too deep. */
export function parseMessageText(text: string): unknown {
  const value = JSON.parse(text) as unknown;
  return textTooDeep(text) ? standInFor(value) : value;
}

/** The wire text of a message that may be a stand-in (its `id` as the message now has it). */
export function messageText(message: unknown): string {
  if (message === null || typeof message !== 'object' || typeof (message as Record<string, unknown>)[DEEP_TEXT] !== 'string')
    return JSON.stringify(message);
  const m = message as Record<string, unknown>;
  const value = JSON.parse(m[DEEP_TEXT] as string) as unknown;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'id' in m) (value as Record<string, unknown>).id = m.id;
  return stringifyDeep(value);
}
