/**
 * Verdicts on any other result, by what changed: the contract (a field removed, a value's type
 * changed, `resultType`) is breaking; the output within it (a value changed, a list's items, text
 * that is printed JSON) is `output-changed`; a new field is compatible; `_meta` is a warning.
 */
import { diffJson, isObject, type RawChange } from '../diff.js';
import { JSON_TEXT, pointer } from '../normalise.js';
import { valueAtKeys } from '../../lib/json-pointer.js';
import type { Difference, Verdict } from '../types.js';
import type { Json } from './index.js';

export function genericResult(recorded: Json, live: Json): Difference[] {
  return diffJson(recorded, live, ['result']).map((c) => fromRaw(c, recorded, live));
}

const typeOf = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'array' : isObject(v) && JSON_TEXT in v ? 'string' : typeof v);

/** A changed output value: the same type on both sides, an item of a list, or anything inside
 * text that is printed JSON (its keys are the text, not the result's contract). */
function isOutputChange(c: RawChange, recorded: Json, live: Json): boolean {
  if (c.path.includes(JSON_TEXT)) return true;
  if (c.type === 'changed') return typeOf(c.recorded) === typeOf(c.live);
  const parent = valueAtKeys(c.type === 'added' ? live : recorded, c.path.slice(1, -1));
  return Array.isArray(parent);
}

function fromRaw(c: RawChange, recorded: Json, live: Json): Difference {
  const path = pointer(c.path);
  const inMeta = c.path.includes('_meta');
  if (c.path[1] === 'resultType') {
    return {
      verdict: 'breaking',
      kind: 'result-type-changed',
      path,
      message: `resultType ${JSON.stringify(c.recorded)} became ${JSON.stringify(c.live)}`,
      recorded: c.recorded,
      live: c.live,
    };
  }
  if (!inMeta && isOutputChange(c, recorded, live)) {
    const what = c.type === 'changed' ? 'changed' : c.type === 'added' ? 'gained an item' : 'lost an item';
    const at = c.type === 'changed' ? path : pointer(c.path.slice(0, -1));
    return { verdict: 'changed', kind: 'output-changed', path, message: `${at} ${what}`, recorded: c.recorded, live: c.live };
  }
  if (c.type === 'added') return { verdict: 'compatible', kind: 'result-field-added', path, message: `${path} was added`, live: c.live };
  const verdict: Verdict = inMeta ? 'warning' : 'breaking';
  const kind = inMeta ? 'result-meta-changed' : c.type === 'removed' ? 'result-field-removed' : 'result-content-changed';
  return {
    verdict,
    kind,
    path,
    message:
      c.type === 'removed'
        ? `${path} was removed`
        : inMeta
          ? `${path} changed`
          : `${path} changed type: ${typeOf(c.recorded)} became ${typeOf(c.live)}`,
    recorded: c.recorded,
    live: c.live,
  };
}
