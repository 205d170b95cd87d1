import { isObject } from './rule.js';
import { pointerToken } from '../lib/json-pointer.js';

/**
 * The identifiers a tool hands out for later calls, as SEC-STATE-ID-GUESSABLE judges them (the
 * session state keeps them, so the rule sees those of earlier calls): members named `id`, `*Id`,
 * `*ID`, `*_id`, `handle` or `token` holding a string or an integer, in a `tools/call` result's
 * `structuredContent`, or, when there is none, in a text block holding a JSON object. Not looked
 * at: members inside arrays (a listing of records, not a handle), `_meta`, and strings with a `:`
 * or `/` (URIs and paths name things, they do not stand for state).
 */
export interface HandedOutId {
  /** What groups values across calls: the tool and the member's path in the object. */
  field: string;
  /** The member's path inside the object (`cart/id`), for messages. */
  member: string;
  /** Where it is in the message: `/result/structuredContent/cart/id`, or the text block. */
  pointer: string;
  /** A `handle` or `token` member: a state token, judged once seen; ids only as a sequence. */
  token: boolean;
  value: string | number;
}

const ID_NAME = /^(id|handle|token)$|[a-z0-9](Id|ID)$|_id$/i;
const TOKEN_NAME = /^(handle|token)$/i;
/** Past this a text block is not parsed for identifiers. */
const MAX_TEXT = 64 * 1024;
const MAX_DEPTH = 6;

const found = new WeakMap<object, HandedOutId[]>();

/** The identifiers in a `tools/call` result (computed once per result object). */
export function handedOutIds(tool: string, result: Record<string, unknown>): HandedOutId[] {
  let ids = found.get(result);
  if (ids) return ids;
  ids = [];
  if (isObject(result.structuredContent)) collect(tool, result.structuredContent, [], '/result/structuredContent', ids);
  else if (Array.isArray(result.content)) {
    result.content.forEach((c, i) => {
      if (
        !isObject(c) ||
        c.type !== 'text' ||
        typeof c.text !== 'string' ||
        c.text.length > MAX_TEXT ||
        !c.text.trimStart().startsWith('{')
      )
        return;
      let parsed: unknown;
      try {
        parsed = JSON.parse(c.text);
      } catch {
        return;
      }
      if (isObject(parsed)) collect(tool, parsed, [], `/result/content/${i}/text`, ids!);
    });
  }
  found.set(result, ids);
  return ids;
}

function collect(tool: string, o: Record<string, unknown>, path: string[], at: string, out: HandedOutId[]): void {
  for (const k in o) {
    const v = o[k];
    if (k === '_meta') continue;
    if (isObject(v)) {
      if (path.length < MAX_DEPTH) collect(tool, v, [...path, k], at, out);
      continue;
    }
    if (!ID_NAME.test(k)) continue;
    if (!(typeof v === 'string' ? v.length > 0 && !/[:/]/.test(v) : Number.isSafeInteger(v))) continue;
    const member = [...path, k].join('/');
    const pointer = at.endsWith('/text') ? at : `${at}/${[...path, k].map(pointerToken).join('/')}`;
    out.push({ field: `${tool} ${member}`, member, pointer, token: TOKEN_NAME.test(k), value: v as string | number });
  }
}

/** How far back `recentValues` looks, and how many handed-out values a session keeps
 * (session-state.ts drops the older half past it): a long session costs no more per call. */
export const HANDED_OUT_KEPT = 4096;

/** The last `n` distinct values handed out under `field`, oldest first. */
export function recentValues(handedOut: readonly { field: string; value: string | number }[], field: string, n = 3): (string | number)[] {
  const out: (string | number)[] = [];
  for (let i = handedOut.length - 1; i >= 0 && out.length < n; i--) {
    const h = handedOut[i]!;
    if (h.field === field && !out.includes(h.value)) out.unshift(h.value);
  }
  return out;
}

/** Largest step between consecutive values that still counts as a sequence. */
const MAX_STEP = 100;

/**
 * Whether values handed out one after another are sequential: the last three distinct values are
 * integers (or strings of one shared prefix ending in digits) that step by the same amount, at
 * most 100 either way. Two values prove nothing (any two numbers differ by something); repeats
 * (the same id echoed by a later call) are not new values.
 */
export function sequential(values: readonly (string | number)[]): { last: (string | number)[]; step: number } | undefined {
  const distinct: (string | number)[] = [];
  for (const v of values) if (!distinct.includes(v)) distinct.push(v);
  if (distinct.length < 3) return undefined;
  const last = distinct.slice(-3);
  const parts = last.map(numbered);
  if (parts.some((p) => p === undefined) || new Set(parts.map((p) => p!.prefix)).size !== 1) return undefined;
  const [a, b, c] = parts.map((p) => p!.n) as [number, number, number];
  const step = b - a;
  return step !== 0 && c - b === step && Math.abs(step) <= MAX_STEP ? { last, step } : undefined;
}

function numbered(v: string | number): { prefix: string; n: number } | undefined {
  if (typeof v === 'number') return { prefix: '', n: v };
  const m = /^(.*?)(\d{1,15})$/.exec(v);
  return m ? { prefix: m[1]!, n: Number(m[2]) } : undefined;
}

/** A state token short or repetitive enough to guess: under 16 characters or 8 distinct ones. */
export function lowEntropy(v: string | number): boolean {
  const s = String(v);
  return s.length < 16 || new Set(s).size < 8;
}
