import { isObject } from './rule.js';
import { pointerToken } from '../lib/json-pointer.js';

/**
 * Passes over a message that several rules need, each done once per message and shared (walking
 * the whole message once per rule was most of the validator's time): `marks` finds every `_meta`
 * and every icon, `walk` every string. Paths become JSON Pointers only when a rule reports.
 */

/** Every `_meta` object and every icon (an element of an `icons` array), with its path. */
export interface Marks {
  metas: [Record<string, unknown>, string[]][];
  icons: [unknown, string[]][];
}

/** The message marked last: the rules that ask ask about it in turn. */
let lastMarks: { json: Record<string, unknown>; marks: Marks } | undefined;

export function marks(json: Record<string, unknown>): Marks {
  if (lastMarks?.json === json) return lastMarks.marks;
  const found: Marks = { metas: [], icons: [] };
  // One path, pushed and popped on the way down, copied only for what is found (a few per message).
  markIn(json, [], found);
  lastMarks = { json, marks: found };
  return found;
}

/** Array indexes stay numbers on the way down, and become strings only in a copied path. */
const copyPath = (path: (string | number)[], ...more: (string | number)[]): string[] => [...path, ...more].map(String);

// Plain functions with the state passed along (not closures made per message), and `for…in`
// (no array of keys per object; a parsed message's objects have only own members): these run on
// every message.
function markIn(v: object, path: (string | number)[], found: Marks): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x === null || typeof x !== 'object') continue;
      path.push(i);
      markIn(x, path, found);
      path.pop();
    }
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (x === null || typeof x !== 'object') continue;
    path.push(k);
    if (k === '_meta' && isObject(x)) found.metas.push([x, copyPath(path)]);
    if (k === 'icons' && Array.isArray(x)) for (let i = 0; i < x.length; i++) found.icons.push([x[i], copyPath(path, i)]);
    markIn(x, path, found);
    path.pop();
  }
}

/** A place in a message: a chain of segments, shared by everything under it. */
export interface Segment {
  readonly up: Segment | undefined;
  readonly key: string;
  /** The first segment of the chain (`result`, `params`, …). */
  readonly top: string;
}

export interface Walked {
  /** Every string (`strings[i]`), the place of the object or array holding it (`stringsIn[i]`)
   * and its key there (`stringKeys[i]`): three arrays, so a string costs no object of its own. */
  strings: string[];
  stringsIn: (Segment | undefined)[];
  stringKeys: string[];
  /** The first segment of each string's path (`result`, `params`, …). */
  tops: string[];
}

/** The message walked last. */
let lastWalk: { json: Record<string, unknown>; walked: Walked } | undefined;

const segment = (up: Segment | undefined, key: string): Segment => ({ up, key, top: up ? up.top : key });

export function walk(json: Record<string, unknown>): Walked {
  if (lastWalk?.json === json) return lastWalk.walked;
  const found: Walked = { strings: [], stringsIn: [], stringKeys: [], tops: [] };
  walkIn(json, undefined, found);
  lastWalk = { json, walked: found };
  return found;
}

function walkIn(v: object, at: Segment | undefined, found: Walked): void {
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'string') {
        found.strings.push(x);
        found.stringsIn.push(at);
        found.stringKeys.push(String(i));
        found.tops.push(at ? at.top : String(i));
      } else if (x !== null && typeof x === 'object') walkIn(x, segment(at, String(i)), found);
    }
    return;
  }
  const o = v as Record<string, unknown>;
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'string') {
      found.strings.push(x);
      found.stringsIn.push(at);
      found.stringKeys.push(k);
      found.tops.push(at ? at.top : k);
    } else if (x !== null && typeof x === 'object') walkIn(x, segment(at, k), found);
  }
}

/** Segments as a JSON Pointer. */
export function pointer(segments: readonly string[]): string {
  return segments.length === 0 ? '' : `/${segments.map(pointerToken).join('/')}`;
}

/** A place (and optionally a key inside it) as a JSON Pointer. */
export function pointerAt(at: Segment | undefined, key?: string): string {
  let out = key === undefined ? '' : `/${pointerToken(key)}`;
  for (let s = at; s; s = s.up) out = `/${pointerToken(s.key)}${out}`;
  return out;
}
