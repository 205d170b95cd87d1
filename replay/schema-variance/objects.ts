/** Variance of the object and array keywords: properties, `required`, `additionalProperties`, `items`, and anything not judged. */
import { deepEqual, isObject } from '../diff.js';
import { type Comparison, LOWER_BOUNDS, type Schema, UPPER_BOUNDS } from './index.js';

/** Object properties: removed, added, newly required or optional, and objects closed or opened. */
export function propertyChanges(c: Comparison, o: Schema, n: Schema, p: string[]): void {
  const op = isObject(o.properties) ? o.properties : {};
  const np = isObject(n.properties) ? n.properties : {};
  const oreq = new Set(Array.isArray(o.required) ? (o.required as string[]) : []);
  const nreq = new Set(Array.isArray(n.required) ? (n.required as string[]) : []);
  const closed = n.additionalProperties === false;
  removedOrWalked(c, op, np, closed, p);
  addedProperties(c, op, np, nreq, p);
  requiredChanges(c, o, n, { oreq, nreq, np }, p);
  additionalPropertiesChanges(c, o, n, p);
}

/** Each property the old schema had: removed, or its own schema compared. */
function removedOrWalked(c: Comparison, op: Schema, np: Schema, closed: boolean, p: string[]): void {
  const { out, polarity, where, name, walk } = c;
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
}

/** Properties the new schema added (a new required input property is reported as required). */
function addedProperties(c: Comparison, op: Schema, np: Schema, nreq: Set<string>, p: string[]): void {
  const { out, polarity, where, name } = c;
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
}

/** Properties newly required (or always present), and no longer required (or maybe missing). */
function requiredChanges(
  c: Comparison,
  o: Schema,
  n: Schema,
  { oreq, nreq, np }: { oreq: Set<string>; nreq: Set<string>; np: Schema },
  p: string[],
): void {
  const { out, polarity, where, name } = c;
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
}

/** An object closed to unknown properties, or opened to them. */
function additionalPropertiesChanges(c: Comparison, o: Schema, n: Schema, p: string[]): void {
  const { out, polarity, where, name } = c;
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
}

/** Array items, judged as a schema of their own. */
export function itemChanges(c: Comparison, o: Schema, n: Schema, p: string[]): void {
  const { out, polarity, where, name, walk } = c;
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
}

/** Anything else (anyOf, oneOf, $defs, formats…): not judged by variance, reported as a warning. */
export function otherChanges(c: Comparison, o: Schema, n: Schema, p: string[]): void {
  const { out, polarity, where, name } = c;
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
}
