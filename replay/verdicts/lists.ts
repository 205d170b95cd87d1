/** Verdicts on prompts, resources and resource templates lists: removal breaks, addition is compatible. */
import { deepEqual } from '../diff.js';
import { byKey } from '../tool-surface.js';
import type { Difference } from '../types.js';

/** Prompts, resources and resource templates: removal breaks, addition is compatible, other
 * changes (descriptions, titles, mime types) are warnings, a newly required prompt argument breaks. */
export function listSurface(noun: string, field: string, key: string, recorded: unknown, live: unknown): Difference[] {
  const out: Difference[] = [];
  const r = byKey(recorded, key);
  const l = byKey(live, key);
  for (const [id, item] of r) {
    const p = `/result/${field}/${id}`;
    const li = l.get(id);
    if (!li) {
      out.push({
        verdict: 'breaking',
        kind: `${noun.replace(' ', '-')}-removed`,
        path: p,
        message: `${noun} "${id}" was removed`,
        recorded: item,
      });
      continue;
    }
    if (noun === 'prompt') {
      const ra = byKey(item.arguments, 'name');
      const la = byKey(li.arguments, 'name');
      for (const [arg, def] of la) {
        if (def.required === true && ra.get(arg)?.required !== true)
          out.push({
            verdict: 'breaking',
            kind: 'prompt-argument-required',
            path: `${p}/arguments/${arg}`,
            message: `prompt "${id}": argument "${arg}" is now required`,
            recorded: ra.get(arg),
            live: def,
          });
        else if (!ra.has(arg))
          out.push({
            verdict: 'compatible',
            kind: 'prompt-argument-added',
            path: `${p}/arguments/${arg}`,
            message: `prompt "${id}": optional argument "${arg}" was added`,
            live: def,
          });
      }
      for (const [arg, def] of ra) {
        if (!la.has(arg))
          out.push({
            verdict: 'breaking',
            kind: 'prompt-argument-removed',
            path: `${p}/arguments/${arg}`,
            message: `prompt "${id}": argument "${arg}" was removed`,
            recorded: def,
          });
      }
    }
    for (const k of new Set([...Object.keys(item), ...Object.keys(li)])) {
      if (k === 'arguments' && noun === 'prompt') continue;
      if (deepEqual(item[k], li[k])) continue;
      out.push({
        verdict: k in item ? 'warning' : 'compatible',
        kind: `${noun.replace(' ', '-')}-changed`,
        path: `${p}/${k}`,
        message: `${noun} "${id}": ${k} ${k in item ? 'changed' : 'was added'}`,
        recorded: item[k],
        live: li[k],
      });
    }
  }
  for (const [id, item] of l) {
    if (!r.has(id))
      out.push({
        verdict: 'compatible',
        kind: `${noun.replace(' ', '-')}-added`,
        path: `/result/${field}/${id}`,
        message: `${noun} "${id}" was added`,
        live: item,
      });
  }
  return out;
}
