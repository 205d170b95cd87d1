/**
 * JSON Pointers (RFC 6901), the one home for building and reading them: violations, replay
 * differences and ignore patterns all name places in a message this way.
 */

/** One reference token (§3): `~` is written `~0` and `/` is written `~1`, in that order. */
export function pointerToken(key: string | number): string {
  return String(key).replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The pointer of a path of keys and indexes: `['params', 'a/b', 0]` → `/params/a~1b/0`. */
export function jsonPointer(path: readonly (string | number)[]): string {
  let out = '';
  for (const key of path) out += '/' + pointerToken(key);
  return out;
}

/** The keys of a pointer's reference tokens (§4): `~1` is read before `~0`. */
export function pointerKeys(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** The value at a path of keys (as `pointerKeys` gives them) in parsed JSON, or undefined. */
export function valueAtKeys(root: unknown, path: readonly string[]): unknown {
  let v = root;
  for (const s of path)
    v = Array.isArray(v) ? v[Number(s)] : v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[s] : undefined;
  return v;
}
