import { isObject } from './rule.js';

/**
 * One pass over a message that several rules need (every string, every `_meta`, every icon),
 * done once per message and shared: walking the whole message once per rule was most of the
 * validator's time. Paths are kept as segments and joined only when a rule reports.
 */
export interface Walked {
  strings: [string, string[]][];
  metas: [Record<string, unknown>, string[]][];
  icons: [unknown, string[]][];
}

const cache = new WeakMap<object, Walked>();

export function walk(json: Record<string, unknown>): Walked {
  let w = cache.get(json);
  if (w) return w;
  w = { strings: [], metas: [], icons: [] };
  const found = w;
  const visit = (v: unknown, path: string[]): void => {
    if (typeof v === 'string') found.strings.push([v, path]);
    else if (Array.isArray(v)) for (let i = 0; i < v.length; i++) visit(v[i], [...path, String(i)]);
    else if (isObject(v)) {
      for (const k of Object.keys(v)) {
        const x = v[k];
        if (k === '_meta' && isObject(x)) found.metas.push([x, [...path, k]]);
        if (k === 'icons' && Array.isArray(x)) x.forEach((icon, i) => found.icons.push([icon, [...path, k, String(i)]]));
        visit(x, [...path, k]);
      }
    }
  };
  visit(json, []);
  cache.set(json, w);
  return w;
}

/** Segments as a JSON Pointer. */
export function pointer(segments: readonly string[]): string {
  return segments.length === 0 ? '' : `/${segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`;
}
