import { isObject } from '../lib/plain-object.js';
import { pointer } from './normalise.js';

/** One raw structural difference between two normalised JSON values. */
export interface RawChange {
  type: 'added' | 'removed' | 'changed';
  path: string[];
  recorded?: unknown;
  live?: unknown;
}

/** Re-exported for the replay modules that import it with the diff helpers; its home is lib/. */
export { isObject };

/** Structural diff: objects by key (order never matters), arrays by position, leaves by value. */
export function diffJson(recorded: unknown, live: unknown, path: string[] = []): RawChange[] {
  if (isObject(recorded) && isObject(live)) {
    const out: RawChange[] = [];
    for (const k of Object.keys(recorded)) {
      if (!(k in live)) out.push({ type: 'removed', path: [...path, k], recorded: recorded[k] });
      else out.push(...diffJson(recorded[k], live[k], [...path, k]));
    }
    for (const k of Object.keys(live)) if (!(k in recorded)) out.push({ type: 'added', path: [...path, k], live: live[k] });
    return out;
  }
  if (Array.isArray(recorded) && Array.isArray(live)) {
    const out: RawChange[] = [];
    const n = Math.max(recorded.length, live.length);
    for (let i = 0; i < n; i++) {
      const p = [...path, String(i)];
      if (i >= live.length) out.push({ type: 'removed', path: p, recorded: recorded[i] });
      else if (i >= recorded.length) out.push({ type: 'added', path: p, live: live[i] });
      else out.push(...diffJson(recorded[i], live[i], p));
    }
    return out;
  }
  if (deepEqual(recorded, live)) return [];
  return [{ type: 'changed', path, recorded, live }];
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

export const at = (path: readonly string[]): string => pointer(path);
