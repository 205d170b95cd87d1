/**
 * Values JSON.stringify cannot write as the fuzzer means them: a number past 2^53 (a double
 * rounds 9007199254740993 to ...992, so the digits must go out as text), -0 (stringified as 0),
 * and a lone surrogate written as its `\ud800` escape. A mutation puts a `RawValue` where such a
 * value goes; `toStep` turns the message into a FuzzStep whose `message` holds the nearest
 * JavaScript value (what the report shows and ajv judges) and whose `raw` holds the exact text.
 */
import type { FuzzStep, Json } from './types.js';

export class RawValue {
  constructor(
    /** The nearest JavaScript value (9007199254740992 for the text 9007199254740993). */
    readonly value: unknown,
    /** The exact JSON text of the value. */
    readonly text: string,
  ) {}
}

/** Raw values sit where mutations put them (ids, `_meta` fields, argument values), never deeper
 * than this; the walk stops there so a 1,000-deep nested argument costs nothing. */
const RAW_DEPTH = 8;

function hasRaw(v: unknown, depth: number): boolean {
  if (v instanceof RawValue) return true;
  if (depth >= RAW_DEPTH || v === null || typeof v !== 'object') return false;
  return (Array.isArray(v) ? v : Object.values(v)).some((x) => hasRaw(x, depth + 1));
}

function plain(v: unknown, depth: number): unknown {
  if (v instanceof RawValue) return v.value;
  if (depth >= RAW_DEPTH || v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) return v.map((x) => plain(x, depth + 1));
  const out: Json = {};
  for (const [k, x] of Object.entries(v)) out[k] = plain(x, depth + 1);
  return out;
}

/** A value's JSON text, raw values written exactly. */
export function rawText(v: unknown): string {
  const raws: string[] = [];
  // A marker no generated string contains: the raw texts go in its place after stringify.
  const marker = (i: number) => `\u0001mcp-cassette-raw-${i}\u0001`;
  const text = JSON.stringify(v, (_k, x: unknown) => (x instanceof RawValue ? marker(raws.push(x.text) - 1) : x));
  return raws.reduce((t, raw, i) => t.replace(JSON.stringify(marker(i)), () => raw), text);
}

/** The step that sends `message`: `raw` set only when a RawValue in it needs one. */
export function toStep(message: Json, wait?: FuzzStep['wait']): FuzzStep {
  const step: FuzzStep = hasRaw(message, 0) ? { message: plain(message, 0) as Json, raw: rawText(message) } : { message };
  if (wait) step.wait = wait;
  return step;
}

/** The value a generated value stands for (a RawValue's nearest JavaScript value). */
export function plainValueOf(v: unknown): unknown {
  return v instanceof RawValue ? v.value : v;
}
