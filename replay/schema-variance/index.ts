/**
 * Judges a change of a tool's JSON Schema by variance. Inputs are contravariant: the new schema
 * must accept every argument the old one accepted, so narrowing breaks callers and widening is
 * compatible. Outputs are covariant: the new schema may only promise less variety than the old
 * one, so a removed property or a new type breaks clients and narrowing is compatible.
 */
import { deepEqual, isObject } from '../diff.js';
import { pointer } from '../normalise.js';
import type { Difference } from '../types.js';
import { itemChanges, otherChanges, propertyChanges } from './objects.js';
import { constraintChanges, enumChanges, typeChanges } from './values.js';
import { jsonSnippet } from '../../lib/json-snippet.js';

export type Polarity = 'input' | 'output';

export type Schema = Record<string, unknown>;

export function types(s: Schema): Set<string> | undefined {
  const t = s.type;
  if (typeof t === 'string') return new Set([t]);
  if (Array.isArray(t)) return new Set(t.filter((x): x is string => typeof x === 'string'));
  return undefined;
}

/** Whether every value of type `t` is also allowed by `set` (integer is a number). */
export function covered(t: string, set: Set<string>): boolean {
  return set.has(t) || (t === 'integer' && set.has('number'));
}

export const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
export const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

/**
 * A numeric bound's value, or `undefined` where it does not bound anything in practice: zod 4's
 * `.int()` emits `minimum: -9007199254740991, maximum: 9007199254740991` (Number's safe integer
 * range), which an SDK upgrade adds to every integer without narrowing what callers may send.
 */
export function bound(s: Schema, key: string): number | undefined {
  const v = s[key];
  if (typeof v !== 'number') return undefined;
  if (UPPER_BOUNDS.includes(key) && key !== 'maxLength' && key !== 'maxItems' && key !== 'maxProperties' && v >= Number.MAX_SAFE_INTEGER)
    return undefined;
  if ((key === 'minimum' || key === 'exclusiveMinimum') && v <= -Number.MAX_SAFE_INTEGER) return undefined;
  return v;
}

/** Keywords that describe a schema without constraining it. */
const ANNOTATIONS = new Set(['description', 'title', '$schema', '$comment', 'default', 'examples', 'deprecated', 'readOnly', 'writeOnly']);

const alternativesOf = (s: Schema): unknown[] | undefined =>
  Array.isArray(s.anyOf) ? s.anyOf : Array.isArray(s.oneOf) ? s.oneOf : undefined;

/** Whether a schema is nothing but a union (`anyOf`/`oneOf` with annotations around it). */
function isPureUnion(s: Schema): boolean {
  return (
    alternativesOf(s) !== undefined &&
    Object.keys(s).every((k) => k === 'anyOf' || k === 'oneOf' || ANNOTATIONS.has(k)) &&
    !(Array.isArray(s.anyOf) && Array.isArray(s.oneOf))
  );
}

/**
 * The alternatives a schema allows, for comparing it with `other`: the branches of a pure
 * `anyOf`/`oneOf` (nested ones flattened), or, when `other` is such a union, a multi-type `type`
 * split into one schema per type (zod writes `boolean | string` as `anyOf`, other generators as
 * `type: ["boolean", "string"]`); otherwise the schema itself.
 */
function branches(s: Schema, other: unknown): unknown[] {
  if (isPureUnion(s)) return alternativesOf(s)!.flatMap((b) => (isObject(b) ? branches(b, other) : [b]));
  if (isObject(other) && isPureUnion(other) && Array.isArray(s.type) && s.type.length > 1) return s.type.map((t) => ({ ...s, type: t }));
  return [s];
}

/** The property names of an object schema, sorted ('' for a schema without properties). */
const propertyNames = (s: Schema): string => (isObject(s.properties) ? Object.keys(s.properties).sort().join('\u0000') : '');

/**
 * Whether two alternatives have the same shape: both declare the same types and the same property
 * names, so that one is the other with other values (a wider enum, other bounds) rather than
 * another kind of thing.
 */
function sameShape(a: unknown, b: unknown): boolean {
  if (!isObject(a) || !isObject(b)) return false;
  const at = types(a);
  const bt = types(b);
  if (!at || !bt || at.size !== bt.size || [...at].some((t) => !bt.has(t))) return false;
  return propertyNames(a) === propertyNames(b);
}

function describeBranch(b: unknown): string {
  if (isObject(b) && typeof b.type === 'string' && Object.keys(b).every((k) => k === 'type' || ANNOTATIONS.has(k))) return b.type;
  return jsonSnippet(b, 80);
}

/**
 * Unions by variance, branch by branch. An input must still accept everything it accepted: each
 * old alternative needs a new one that accepts it without a breaking change (else narrowed); new
 * alternatives widen it. An output may only promise less: each new alternative needs an old one
 * it stays within. One that has none but has the shape of an old one (the same type, the same
 * property names) is that alternative with other values, and its changes are reported as they are,
 * breaking ones included (filesystem's read_media_file items, `anyOf[{type: image|audio}, {resource}]`
 * back to one `{type: image|audio|blob}`: the image/audio alternative may now say "blob", and the
 * resource one is gone); one without such a match is a shape clients have not seen (a warning to
 * check, e.g. an output schema wrapped into `anyOf` next to its old shape). Old alternatives that
 * are gone narrow it.
 */
function unionChanges(ob: unknown[], nb: unknown[], polarity: Polarity, p: string[], label: string): Difference[] {
  const out: Difference[] = [];
  // Input: old branches look for a new one that accepts them; output: new ones for an old one.
  const [from, to] = polarity === 'input' ? [ob, nb] : [nb, ob];
  const used = new Set<number>();
  const at = (i: number, side: 'old' | 'new') => [...p, ...((side === 'old' ? ob : nb).length > 1 ? ['anyOf', String(i)] : [])];
  for (const [i, b] of from.entries()) {
    let best: { j: number; diffs: Difference[] } | undefined;
    // Output: the old alternative of the same shape with the fewest breaking changes.
    let closest: { j: number; diffs: Difference[]; breaking: number } | undefined;
    for (const [j, c] of to.entries()) {
      const [oldB, newB, oi, nj] = polarity === 'input' ? [b, c, i, j] : [c, b, j, i];
      const diffs = compareSchemas(oldB, newB, polarity, at(nj, 'new'), label).map((d) => ({
        ...d,
        path: d.path || pointer(at(oi, 'new')),
      }));
      const breaking = diffs.filter((d) => d.verdict === 'breaking').length;
      if (breaking) {
        const fewer = !closest || breaking < closest.breaking || (breaking === closest.breaking && diffs.length < closest.diffs.length);
        if (polarity === 'output' && sameShape(oldB, newB) && fewer) closest = { j, diffs, breaking };
        continue;
      }
      if (!best || diffs.length < best.diffs.length) best = { j, diffs };
      if (!diffs.length) break;
    }
    best ??= closest;
    if (!best) {
      if (polarity === 'input')
        out.push({
          verdict: 'breaking',
          kind: 'input-type-narrowed',
          path: pointer(p),
          message: `${label} no longer accepts ${describeBranch(b)}`,
          recorded: b,
        });
      else
        out.push({
          verdict: 'warning',
          kind: 'output-schema-alternatives-added',
          path: pointer(p),
          message: `${label} may now also be ${describeBranch(b)} (a shape clients have not seen; check by hand)`,
          live: b,
        });
      continue;
    }
    used.add(best.j);
    out.push(...best.diffs);
  }
  for (const [j, c] of to.entries()) {
    if (used.has(j)) continue;
    if (polarity === 'input')
      out.push({
        verdict: 'compatible',
        kind: 'input-type-widened',
        path: pointer(p),
        message: `${label} now also accepts ${describeBranch(c)}`,
        live: c,
      });
    else
      out.push({
        verdict: 'compatible',
        kind: 'output-type-narrowed',
        path: pointer(p),
        message: `${label} is no longer ${describeBranch(c)}`,
        recorded: c,
      });
  }
  return out;
}

/** What the parts of one schema comparison share. */
export interface Comparison {
  out: Difference[];
  polarity: Polarity;
  where: (p: string[]) => string;
  /** How a message names the schema at `p`: the tool and, below the root, the property. */
  name: (p: string[]) => string;
  /** Compares two subschemas at `p` (properties and items recurse through it). */
  walk: (o: unknown, n: unknown, p: string[]) => void;
}

export function compareSchemas(oldS: unknown, newS: unknown, polarity: Polarity, path: string[], label: string): Difference[] {
  const out: Difference[] = [];
  const where = (p: string[]) => pointer(p);
  const prop = (p: string[]) => (p.length ? p.filter((s) => s !== 'properties' && s !== 'items').join('.') : '(root)');
  const base = path.length;
  const name = (p: string[]) => `${label}${p.length > base ? ` property "${prop(p.slice(base))}"` : ''}`;
  const c: Comparison = { out, polarity, where, name, walk: (o, n, p) => walk(c, o, n, p) };
  walk(c, oldS, newS, path);
  return out;
}

/** The variance of one pair of subschemas, keyword by keyword, in a fixed order (reports keep it). */
function walk(c: Comparison, o: unknown, n: unknown, p: string[]): void {
  const { out, polarity, where, name } = c;
  if (!isObject(o) || !isObject(n)) {
    if (!deepEqual(o, n)) {
      // `true` allows anything, `false` nothing: an input may only grow wider, an output narrower.
      const wider = n === true || o === false;
      const narrower = o === true || n === false;
      const fine = polarity === 'input' ? wider : narrower;
      out.push({
        verdict: fine ? 'compatible' : 'breaking',
        kind: `${polarity}-schema-changed`,
        path: where(p),
        message: `${name(p)}: schema ${wider ? 'now allows more' : narrower ? 'now allows less' : 'changed'}`,
        recorded: o,
        live: n,
      });
    }
    return;
  }
  const ob = branches(o, n);
  const nb = branches(n, o);
  if (ob.length > 1 || nb.length > 1) {
    out.push(...unionChanges(ob, nb, polarity, p, name(p)));
    return;
  }
  typeChanges(c, o, n, p);
  enumChanges(c, o, n, p);
  constraintChanges(c, o, n, p);
  propertyChanges(c, o, n, p);
  itemChanges(c, o, n, p);
  otherChanges(c, o, n, p);
}
