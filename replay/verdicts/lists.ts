/** Verdicts on prompts, resources and resource templates lists: removal breaks, addition is compatible. */
import { deepEqual } from '../diff.js';
import { byKey } from '../tool-surface.js';
import type { Difference } from '../types.js';

type Json = Record<string, unknown>;

/**
 * A prompt argument on both sides, beyond becoming required (judged with the additions): its
 * description or title (or any other field) changed or was removed, which hosts show and models
 * read (everything 2026.8.31's args-prompt dropped the description of its `state` argument); a
 * field only added, or an argument no longer required, is compatible.
 */
function argumentChanges(prompt: string, arg: string, r: Json, l: Json, p: string): Difference[] {
  const out: Difference[] = [];
  if (r.required === true && l.required !== true)
    out.push({
      verdict: 'compatible',
      kind: 'prompt-argument-changed',
      path: `${p}/required`,
      message: `prompt "${prompt}": argument "${arg}" is no longer required`,
      recorded: r.required,
      live: l.required,
    });
  for (const k of new Set([...Object.keys(r), ...Object.keys(l)])) {
    if (k === 'name' || k === 'required' || deepEqual(r[k], l[k])) continue;
    const added = !(k in r);
    out.push({
      verdict: added ? 'compatible' : 'warning',
      kind: 'prompt-argument-changed',
      path: `${p}/${k}`,
      message: `prompt "${prompt}": argument "${arg}": ${k} ${added ? 'was added' : k in l ? 'changed' : 'was removed'}${added ? '' : ' (hosts show it, models read it)'}`,
      recorded: r[k],
      live: l[k],
    });
  }
  return out;
}

/** Prompts, resources and resource templates: removal breaks, addition is compatible, other
 * changes (descriptions, titles, mime types) are warnings, a newly required prompt argument breaks,
 * a prompt argument's other changes are judged by argumentChanges. */
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
        const now = la.get(arg);
        if (!now)
          out.push({
            verdict: 'breaking',
            kind: 'prompt-argument-removed',
            path: `${p}/arguments/${arg}`,
            message: `prompt "${id}": argument "${arg}" was removed`,
            recorded: def,
          });
        else out.push(...argumentChanges(id, arg, def, now, `${p}/arguments/${arg}`));
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
