/**
 * Judges a change of a tool's JSON Schema by variance. Inputs are contravariant: the new schema
 * must accept every argument the old one accepted, so narrowing breaks callers and widening is
 * compatible. Outputs are covariant: the new schema may only promise less variety than the old
 * one, so a removed property or a new type breaks clients and narrowing is compatible.
 */
import { deepEqual, isObject } from './diff.js';
import { pointer } from './normalise.js';
import type { Difference } from './types.js';

export type Polarity = 'input' | 'output';

type Schema = Record<string, unknown>;

function types(s: Schema): Set<string> | undefined {
  const t = s.type;
  if (typeof t === 'string') return new Set([t]);
  if (Array.isArray(t)) return new Set(t.filter((x): x is string => typeof x === 'string'));
  return undefined;
}

/** Whether every value of type `t` is also allowed by `set` (integer is a number). */
function covered(t: string, set: Set<string>): boolean {
  return set.has(t) || (t === 'integer' && set.has('number'));
}

const LOWER_BOUNDS = ['minimum', 'exclusiveMinimum', 'minLength', 'minItems', 'minProperties'];
const UPPER_BOUNDS = ['maximum', 'exclusiveMaximum', 'maxLength', 'maxItems', 'maxProperties'];

/**
 * A numeric bound's value, or `undefined` where it does not bound anything in practice: zod 4's
 * `.int()` emits `minimum: -9007199254740991, maximum: 9007199254740991` (Number's safe integer
 * range), which an SDK upgrade adds to every integer without narrowing what callers may send.
 */
function bound(s: Schema, key: string): number | undefined {
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

function describeBranch(b: unknown): string {
  if (isObject(b) && typeof b.type === 'string' && Object.keys(b).every((k) => k === 'type' || ANNOTATIONS.has(k))) return b.type;
  const text = JSON.stringify(b);
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

/**
 * Unions by variance, branch by branch. An input must still accept everything it accepted: each
 * old alternative needs a new one that accepts it without a breaking change (else narrowed); new
 * alternatives widen it. An output may only promise less: each new alternative needs an old one
 * it stays within; one that has none is a shape clients have not seen (a warning to check, e.g. an
 * output schema wrapped into `anyOf` next to its old shape); old alternatives that are gone narrow it.
 */
function unionChanges(ob: unknown[], nb: unknown[], polarity: Polarity, p: string[], label: string): Difference[] {
  const out: Difference[] = [];
  // Input: old branches look for a new one that accepts them; output: new ones for an old one.
  const [from, to] = polarity === 'input' ? [ob, nb] : [nb, ob];
  const used = new Set<number>();
  const at = (i: number, side: 'old' | 'new') => [...p, ...((side === 'old' ? ob : nb).length > 1 ? ['anyOf', String(i)] : [])];
  for (const [i, b] of from.entries()) {
    let best: { j: number; diffs: Difference[] } | undefined;
    for (const [j, c] of to.entries()) {
      const [oldB, newB, oi, nj] = polarity === 'input' ? [b, c, i, j] : [c, b, j, i];
      const diffs = compareSchemas(oldB, newB, polarity, at(nj, 'new'), label).map((d) => ({
        ...d,
        path: d.path || pointer(at(oi, 'new')),
      }));
      if (diffs.some((d) => d.verdict === 'breaking')) continue;
      if (!best || diffs.length < best.diffs.length) best = { j, diffs };
      if (!diffs.length) break;
    }
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

export function compareSchemas(oldS: unknown, newS: unknown, polarity: Polarity, path: string[], label: string): Difference[] {
  const out: Difference[] = [];
  const where = (p: string[]) => pointer(p);
  const prop = (p: string[]) => (p.length ? p.filter((s) => s !== 'properties' && s !== 'items').join('.') : '(root)');
  const base = path.length;
  const name = (p: string[]) => `${label}${p.length > base ? ` property "${prop(p.slice(base))}"` : ''}`;
  const walk = (o: unknown, n: unknown, p: string[]): void => {
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
    // Types.
    const ot = types(o);
    const nt = types(n);
    if (ot && nt) {
      const lost = [...ot].filter((t) => !covered(t, nt));
      const gained = [...nt].filter((t) => !covered(t, ot));
      if (polarity === 'input') {
        if (lost.length)
          out.push({
            verdict: 'breaking',
            kind: 'input-type-narrowed',
            path: where([...p, 'type']),
            message: `${name(p)} no longer accepts ${lost.join(', ')}`,
            recorded: o.type,
            live: n.type,
          });
        else if (gained.length)
          out.push({
            verdict: 'compatible',
            kind: 'input-type-widened',
            path: where([...p, 'type']),
            message: `${name(p)} now also accepts ${gained.join(', ')}`,
            recorded: o.type,
            live: n.type,
          });
      } else {
        if (gained.length)
          out.push({
            verdict: 'breaking',
            kind: 'output-type-changed',
            path: where([...p, 'type']),
            message: `${name(p)} may now be ${gained.join(', ')}`,
            recorded: o.type,
            live: n.type,
          });
        else if (lost.length)
          out.push({
            verdict: 'compatible',
            kind: 'output-type-narrowed',
            path: where([...p, 'type']),
            message: `${name(p)} is no longer ${lost.join(', ')}`,
            recorded: o.type,
            live: n.type,
          });
      }
    } else if (ot && !nt && polarity === 'output') {
      out.push({
        verdict: 'breaking',
        kind: 'output-type-changed',
        path: where([...p, 'type']),
        message: `${name(p)} lost its type constraint`,
        recorded: o.type,
        live: n.type,
      });
    } else if (!ot && nt && polarity === 'input') {
      out.push({
        verdict: 'breaking',
        kind: 'input-type-narrowed',
        path: where([...p, 'type']),
        message: `${name(p)} now must be ${[...nt].join(', ')}`,
        recorded: o.type,
        live: n.type,
      });
    }
    // Enums.
    const oe = Array.isArray(o.enum) ? o.enum : undefined;
    const ne = Array.isArray(n.enum) ? n.enum : undefined;
    if (oe || ne) {
      const lost = oe ? (ne ? oe.filter((v) => !ne.some((w) => deepEqual(v, w))) : []) : undefined;
      const gained = ne ? (oe ? ne.filter((v) => !oe.some((w) => deepEqual(v, w))) : []) : undefined;
      const ep = where([...p, 'enum']);
      if (polarity === 'input') {
        if (!oe && ne)
          out.push({
            verdict: 'breaking',
            kind: 'input-enum-shrunk',
            path: ep,
            message: `${name(p)} is now limited to ${JSON.stringify(ne)}`,
            live: ne,
          });
        else if (oe && !ne)
          out.push({
            verdict: 'compatible',
            kind: 'input-enum-widened',
            path: ep,
            message: `${name(p)} is no longer an enum`,
            recorded: oe,
          });
        else {
          if (lost?.length)
            out.push({
              verdict: 'breaking',
              kind: 'input-enum-shrunk',
              path: ep,
              message: `${name(p)} no longer accepts ${lost.map((v) => JSON.stringify(v)).join(', ')}`,
              recorded: oe,
              live: ne,
            });
          if (gained?.length)
            out.push({
              verdict: 'compatible',
              kind: 'input-enum-widened',
              path: ep,
              message: `${name(p)} now also accepts ${gained.map((v) => JSON.stringify(v)).join(', ')}`,
              recorded: oe,
              live: ne,
            });
        }
      } else {
        if (oe && !ne)
          out.push({
            verdict: 'breaking',
            kind: 'output-enum-widened',
            path: ep,
            message: `${name(p)} is no longer limited to ${JSON.stringify(oe)}`,
            recorded: oe,
          });
        else if (!oe && ne)
          out.push({
            verdict: 'compatible',
            kind: 'output-enum-narrowed',
            path: ep,
            message: `${name(p)} is now limited to ${JSON.stringify(ne)}`,
            live: ne,
          });
        else {
          if (gained?.length)
            out.push({
              verdict: 'breaking',
              kind: 'output-enum-widened',
              path: ep,
              message: `${name(p)} may now be ${gained.map((v) => JSON.stringify(v)).join(', ')}`,
              recorded: oe,
              live: ne,
            });
          if (lost?.length)
            out.push({
              verdict: 'compatible',
              kind: 'output-enum-narrowed',
              path: ep,
              message: `${name(p)} is no longer ${lost.map((v) => JSON.stringify(v)).join(', ')}`,
              recorded: oe,
              live: ne,
            });
        }
      }
    }
    if ('const' in o || 'const' in n) {
      if (!deepEqual(o.const, n.const)) {
        out.push({
          verdict: 'breaking',
          kind: `${polarity}-const-changed`,
          path: where([...p, 'const']),
          message: `${name(p)}: const changed`,
          recorded: o.const,
          live: n.const,
        });
      }
    }
    // Numeric and size bounds: a higher lower bound or a lower upper bound narrows.
    for (const key of [...LOWER_BOUNDS, ...UPPER_BOUNDS]) {
      const ov = bound(o, key);
      const nv = bound(n, key);
      if (ov === nv) continue;
      const lower = LOWER_BOUNDS.includes(key);
      const narrowed = nv !== undefined && (ov === undefined || (lower ? nv > ov : nv < ov));
      const breaking = polarity === 'input' ? narrowed : !narrowed;
      out.push({
        verdict: breaking ? 'breaking' : 'compatible',
        kind: `${polarity}-constraint-${narrowed ? 'tightened' : 'loosened'}`,
        path: where([...p, key]),
        message: `${name(p)}: ${key} ${ov ?? 'unset'} → ${nv ?? 'unset'}`,
        recorded: ov,
        live: nv,
      });
    }
    if (o.pattern !== n.pattern) {
      out.push({
        verdict: 'warning',
        kind: `${polarity}-pattern-changed`,
        path: where([...p, 'pattern']),
        message: `${name(p)}: pattern changed`,
        recorded: o.pattern,
        live: n.pattern,
      });
    }
    for (const key of ['description', 'title']) {
      if (o[key] !== n[key]) {
        out.push({
          verdict: 'warning',
          kind: `schema-${key}-changed`,
          path: where([...p, key]),
          message: `${name(p)}: ${key} changed (models read it)`,
          recorded: o[key],
          live: n[key],
        });
      }
    }
    // Object properties.
    const op = isObject(o.properties) ? o.properties : {};
    const np = isObject(n.properties) ? n.properties : {};
    const oreq = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
    const nreq = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
    const closed = n.additionalProperties === false;
    for (const k of Object.keys(op)) {
      const kp = [...p, 'properties', k];
      if (!(k in np)) {
        if (polarity === 'input') {
          out.push({
            verdict: closed ? 'breaking' : 'warning',
            kind: 'input-property-removed',
            path: where(kp),
            message: `${name(kp)} was removed${closed ? ' and additional properties are refused' : ' (callers that send it are ignored)'}`,
            recorded: op[k],
          });
        } else {
          out.push({
            verdict: 'breaking',
            kind: 'output-property-removed',
            path: where(kp),
            message: `${name(kp)} was removed`,
            recorded: op[k],
          });
        }
        continue;
      }
      walk(op[k], np[k], kp);
    }
    for (const k of Object.keys(np)) {
      if (k in op) continue;
      const kp = [...p, 'properties', k];
      if (polarity === 'input' && nreq.has(k)) continue; // reported below as a new required property
      out.push({
        verdict: 'compatible',
        kind: `${polarity}-property-added`,
        path: where(kp),
        message: `${name(kp)} was added${polarity === 'input' ? ' (optional)' : ''}`,
        live: np[k],
      });
    }
    for (const k of nreq) {
      if (oreq.has(k)) continue;
      if (polarity === 'input')
        out.push({
          verdict: 'breaking',
          kind: 'input-required-added',
          path: where([...p, 'required']),
          message: `${name([...p, 'properties', k])} is now required`,
          recorded: o.required,
          live: n.required,
        });
      else
        out.push({
          verdict: 'compatible',
          kind: 'output-required-added',
          path: where([...p, 'required']),
          message: `${name([...p, 'properties', k])} is now always present`,
          recorded: o.required,
          live: n.required,
        });
    }
    for (const k of oreq) {
      if (nreq.has(k) || !(k in np)) continue;
      if (polarity === 'input')
        out.push({
          verdict: 'compatible',
          kind: 'input-required-removed',
          path: where([...p, 'required']),
          message: `${name([...p, 'properties', k])} is now optional`,
          recorded: o.required,
          live: n.required,
        });
      else
        out.push({
          verdict: 'breaking',
          kind: 'output-property-optional',
          path: where([...p, 'required']),
          message: `${name([...p, 'properties', k])} may now be missing`,
          recorded: o.required,
          live: n.required,
        });
    }
    if (o.additionalProperties !== false && n.additionalProperties === false && polarity === 'input') {
      out.push({
        verdict: 'breaking',
        kind: 'input-additional-properties-closed',
        path: where([...p, 'additionalProperties']),
        message: `${name(p)} no longer accepts unknown properties`,
      });
    } else if (o.additionalProperties === false && n.additionalProperties !== false) {
      out.push({
        verdict: polarity === 'input' ? 'compatible' : 'breaking',
        kind: `${polarity}-additional-properties-opened`,
        path: where([...p, 'additionalProperties']),
        message: `${name(p)} now allows unknown properties`,
      });
    }
    if ('items' in o || 'items' in n) {
      if (o.items !== undefined && n.items !== undefined) walk(o.items, n.items, [...p, 'items']);
      else if (!deepEqual(o.items, n.items)) {
        const narrowed = o.items === undefined;
        out.push({
          verdict: (polarity === 'input') === narrowed ? 'breaking' : 'compatible',
          kind: `${polarity}-items-changed`,
          path: where([...p, 'items']),
          message: `${name(p)}: items ${narrowed ? 'constrained' : 'unconstrained'}`,
        });
      }
    }
    // Anything else (anyOf, oneOf, $defs, formats…): not judged by variance, reported as a warning.
    const judged = new Set([
      'type',
      'enum',
      'const',
      'pattern',
      'description',
      'title',
      'properties',
      'required',
      'additionalProperties',
      'items',
      '$schema',
      ...LOWER_BOUNDS,
      ...UPPER_BOUNDS,
    ]);
    for (const k of new Set([...Object.keys(o), ...Object.keys(n)])) {
      if (judged.has(k) || deepEqual(o[k], n[k])) continue;
      out.push({
        verdict: 'warning',
        kind: `${polarity}-schema-changed`,
        path: where([...p, k]),
        message: `${name(p)}: "${k}" changed (not judged by variance; check by hand)`,
        recorded: o[k],
        live: n[k],
      });
    }
  };
  walk(oldS, newS, path);
  return out;
}
