import { fastValid, pointerOf, schemaProblems, type Parser } from './sdk.js';

/**
 * Small structural checks for the revision gates. They run on every message next to the SDK's
 * Zod schema, so they are plain functions (a few hundred nanoseconds) rather than more Zod:
 * composing Zod schemas over the SDK's made each message ten times slower.
 */
export interface Problem {
  path: string;
  message: string;
}

export type Check = (value: unknown, path: PropertyKey[], out: Problem[]) => void;
interface Optional {
  optional: Check;
}

const kind = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v);
const fail = (out: Problem[], path: PropertyKey[], message: string): void => {
  out.push({ path: pointerOf(path), message });
};
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export const str: Check = (v, p, out) => {
  if (typeof v !== 'string') fail(out, p, `expected string, received ${kind(v)}`);
};
export const int = (min?: number): Check => (v, p, out) => {
  if (typeof v !== 'number' || !Number.isInteger(v)) fail(out, p, `expected integer, received ${kind(v)}`);
  else if (min !== undefined && v < min) fail(out, p, `expected an integer >= ${min}`);
};
export const lit = (expected: unknown): Check => (v, p, out) => {
  if (v !== expected) fail(out, p, `expected ${JSON.stringify(expected)}`);
};
export const oneOf = (...values: string[]): Check => (v, p, out) => {
  if (!values.includes(v as string)) fail(out, p, `expected one of ${values.map((x) => JSON.stringify(x)).join('|')}`);
};
/** A string or an integer (JSON-RPC ids, progress tokens, subscription ids). */
export const id: Check = (v, p, out) => {
  if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v))) fail(out, p, `expected string or integer, received ${kind(v)}`);
};
export const opt = (check: Check): Optional => ({ optional: check });

/** An object with these members (required unless `opt`); other members are allowed. */
export function obj(shape: Record<string, Check | Optional>): Check {
  const keys = Object.keys(shape);
  const optional = keys.map((k) => typeof shape[k] !== 'function');
  const checks = keys.map((k) => {
    const c = shape[k]!;
    return typeof c === 'function' ? c : c.optional;
  });
  return (v, p, out) => {
    if (!isRecord(v)) return fail(out, p, `expected object, received ${kind(v)}`);
    // The path is one array pushed and popped on the way down: no allocation unless a check fails.
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      p.push(key);
      if (!(key in v) || v[key] === undefined) {
        if (!optional[i]) fail(out, p, `expected ${key}, received undefined`);
      } else checks[i]!(v[key], p, out);
      p.pop();
    }
  };
}

export const rec = (check: Check): Check => (v, p, out) => {
  if (!isRecord(v)) return fail(out, p, `expected record, received ${kind(v)}`);
  for (const k of Object.keys(v)) {
    p.push(k);
    check(v[k], p, out);
    p.pop();
  }
};

export const arrayOf = (check: Check): Check => (v, p, out) => {
  if (!Array.isArray(v)) return fail(out, p, `expected array, received ${kind(v)}`);
  for (let i = 0; i < v.length; i++) {
    p.push(i);
    check(v[i], p, out);
    p.pop();
  }
};

export const all = (...checks: Check[]): Check => (v, p, out) => {
  for (const c of checks) c(v, p, out);
};

/** Dispatch on a tag member (`method`, `type`): the value is checked by the branch it names. */
export function tagged(member: string, branches: Record<string, Check>): Check {
  const names = Object.keys(branches);
  return (v, p, out) => {
    if (!isRecord(v)) return fail(out, p, `expected object, received ${kind(v)}`);
    const branch = branches[String(v[member])];
    if (!branch) return fail(out, [...p, member], `is none of the kinds allowed here (${names.map((n) => JSON.stringify(n)).join(', ')})`);
    branch(v, p, out);
  };
}

/** An SDK schema, optionally with its verdicts kept by the value's JSON text (values that repeat
 * on every request, like clientCapabilities, and schemas that are slow to run). */
export function sdk(schema: Parser, memo = false): Check {
  const verdicts = new Map<string, Problem[]>();
  return (v, p, out) => {
    // The fast check first: a valid value needs neither its JSON text nor a verdict kept.
    if (fastValid(schema, v)) return;
    let problems: Problem[] | undefined;
    const key = memo ? JSON.stringify(v) ?? 'undefined' : undefined;
    if (key !== undefined) problems = verdicts.get(key);
    if (!problems) {
      problems = schemaProblems(schema, v);
      if (key !== undefined) {
        if (verdicts.size >= 512) verdicts.clear();
        verdicts.set(key, problems);
      }
    }
    if (problems.length === 0) return;
    const base = pointerOf(p);
    for (const x of problems) out.push({ path: `${base}${x.path}`, message: x.message });
  };
}

/** A check as a parser, for the places that take either. */
export function asParser(check: Check): Parser & { check: Check } {
  return {
    check,
    safeParse(value) {
      const out: Problem[] = [];
      check(value, [], out);
      return out.length === 0 ? { success: true } : { success: false, error: { issues: out.map((x) => ({ code: 'custom', path: x.path.split('/').slice(1), message: x.message })) } };
    },
  };
}
