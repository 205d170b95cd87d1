import { fastValid, pointerOf, schemaProblems, sdkRef, type Parser } from './sdk.js';

/**
 * Small structural checks for the revision gates. They run on every message next to the SDK's
 * Zod schema, so they are plain functions (a few hundred nanoseconds) rather than more Zod:
 * composing Zod schemas over the SDK's made each message ten times slower.
 *
 * Each check also says, as JSON Schema, what it accepts (`schemaOf`), never more than the check
 * itself: check.ts first judges a whole message in one ajv pass over the SDK schema and the
 * gates' checks together, and runs the checks one by one only when that pass fails, to say what
 * is wrong. A check without a schema (none so far) just leaves its type to the slow path.
 */
export interface Problem {
  path: string;
  message: string;
}

export type Check = (value: unknown, path: PropertyKey[], out: Problem[]) => void;
interface Optional {
  optional: Check;
}

export type JsonSchema = Record<string, unknown> | boolean;
const schemas = new WeakMap<object, JsonSchema>();
/** What a check (or an overlay of checks) accepts, as JSON Schema. */
export function schemaOf(check: object): JsonSchema | undefined {
  return schemas.get(check);
}
/** Records the JSON Schema of a check; without one (a part had none) the check stays slow-path only. */
export function described<T extends object>(check: T, schema: JsonSchema | undefined): T {
  if (schema !== undefined) schemas.set(check, schema);
  return check;
}
/** The JSON Schema of several checks at once, if each has one. */
export function schemasOf(checks: readonly object[]): JsonSchema[] | undefined {
  const out = checks.map(schemaOf);
  return out.every((x) => x !== undefined) ? (out as JsonSchema[]) : undefined;
}
/** The JSON Schema of a parser: an SDK schema's export, or the schema of a check made a parser. */
export function parserSchema(parser: Parser): JsonSchema | undefined {
  if ('_zod' in parser) return sdkRef(parser); // (Zod schemas have a `check` method of their own)
  const check = (parser as Partial<ReturnType<typeof asParser>>).check;
  return typeof check === 'function' ? schemaOf(check) : undefined;
}

const kind = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' && Number.isInteger(v) ? 'integer' : typeof v;
const fail = (out: Problem[], path: PropertyKey[], message: string): void => {
  out.push({ path: pointerOf(path), message });
};
const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

export const str: Check = described(
  (v, p, out) => {
    if (typeof v !== 'string') fail(out, p, `expected string, received ${kind(v)}`);
  },
  { type: 'string' },
);
/** Anything. */
export const any: Check = described(() => {}, true);
export const int = (min?: number): Check =>
  described(
    (v, p, out) => {
      if (typeof v !== 'number' || !Number.isInteger(v)) fail(out, p, `expected integer, received ${kind(v)}`);
      else if (min !== undefined && v < min) fail(out, p, `expected an integer >= ${min}`);
    },
    min === undefined ? { type: 'integer' } : { type: 'integer', minimum: min },
  );
export const lit = (expected: string | number): Check =>
  described(
    (v, p, out) => {
      if (v !== expected) fail(out, p, `expected ${JSON.stringify(expected)}`);
    },
    { const: expected },
  );
export const oneOf = (...values: string[]): Check =>
  described(
    (v, p, out) => {
      if (!values.includes(v as string)) fail(out, p, `expected one of ${values.map((x) => JSON.stringify(x)).join('|')}`);
    },
    { enum: values },
  );
/** A string or an integer (JSON-RPC ids, progress tokens, subscription ids). */
export const id: Check = described(
  (v, p, out) => {
    if (typeof v !== 'string' && !(typeof v === 'number' && Number.isInteger(v)))
      fail(out, p, `expected string or integer, received ${kind(v)}`);
  },
  { type: ['string', 'integer'] },
);
export const opt = (check: Check): Optional => ({ optional: check });

/** An object with these members (required unless `opt`); other members are allowed. */
export function obj(shape: Record<string, Check | Optional>): Check {
  const keys = Object.keys(shape);
  const optional = keys.map((k) => typeof shape[k] !== 'function');
  const checks = keys.map((k) => {
    const c = shape[k]!;
    return typeof c === 'function' ? c : c.optional;
  });
  const check: Check = (v, p, out) => {
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
  const members = schemasOf(checks);
  const required = keys.filter((_, i) => !optional[i]);
  return described(
    check,
    members && {
      type: 'object',
      properties: Object.fromEntries(keys.map((k, i) => [k, members[i]])),
      ...(required.length > 0 ? { required } : {}),
    },
  );
}

export const rec = (check: Check): Check =>
  described(
    (v, p, out) => {
      if (!isRecord(v)) return fail(out, p, `expected record, received ${kind(v)}`);
      for (const k of Object.keys(v)) {
        p.push(k);
        check(v[k], p, out);
        p.pop();
      }
    },
    withSchema(check, (s) => ({ type: 'object', additionalProperties: s })),
  );

export const arrayOf = (check: Check): Check =>
  described(
    (v, p, out) => {
      if (!Array.isArray(v)) return fail(out, p, `expected array, received ${kind(v)}`);
      for (let i = 0; i < v.length; i++) {
        p.push(i);
        check(v[i], p, out);
        p.pop();
      }
    },
    withSchema(check, (s) => ({ type: 'array', items: s })),
  );

export const all = (...checks: Check[]): Check =>
  described((v, p, out) => {
    for (const c of checks) c(v, p, out);
  }, allOf(checks));

/** Every one of these checks, as JSON Schema. */
export function allOf(checks: readonly object[]): JsonSchema | undefined {
  const parts = schemasOf(checks);
  return parts && { allOf: parts };
}
const withSchema = (check: Check, wrap: (s: JsonSchema) => JsonSchema): JsonSchema | undefined => {
  const s = schemaOf(check);
  return s === undefined ? undefined : wrap(s);
};

/** Dispatch on a tag member (`method`, `type`): the value is checked by the branch it names. */
export function tagged(member: string, branches: Record<string, Check>): Check {
  const names = Object.keys(branches);
  const check: Check = (v, p, out) => {
    if (!isRecord(v)) return fail(out, p, `expected object, received ${kind(v)}`);
    // Own members only: a tag such as "constructor" must not find Object.prototype's.
    const tag = String(v[member]);
    const branch = Object.hasOwn(branches, tag) ? branches[tag] : undefined;
    if (!branch) return fail(out, [...p, member], `is none of the kinds allowed here (${names.map((n) => JSON.stringify(n)).join(', ')})`);
    branch(v, p, out);
  };
  // A member equal to a branch's name, and that branch (stricter than the check, which also
  // takes a member whose String() is a branch name).
  const each = schemasOf(names.map((n) => branches[n]!));
  return described(
    check,
    each && {
      type: 'object',
      required: [member],
      anyOf: names.map((n, i) => ({ properties: { [member]: { const: n } }, allOf: [each[i]] })),
    },
  );
}

/** An SDK schema, optionally with its verdicts kept by the value's JSON text (values that repeat
 * on every request, like clientCapabilities, and schemas that are slow to run). */
export function sdk(schema: Parser, memo = false): Check {
  const verdicts = new Map<string, Problem[]>();
  return described((v, p, out) => {
    // The fast check first: a valid value needs neither its JSON text nor a verdict kept.
    if (fastValid(schema, v)) return;
    let problems: Problem[] | undefined;
    const key = memo ? (JSON.stringify(v) ?? 'undefined') : undefined;
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
  }, sdkRef(schema));
}

/** A check as a parser, for the places that take either. */
export function asParser(check: Check): Parser & { check: Check } {
  return {
    check,
    safeParse(value) {
      const out: Problem[] = [];
      check(value, [], out);
      return out.length === 0
        ? { success: true }
        : { success: false, error: { issues: out.map((x) => ({ code: 'custom', path: x.path.split('/').slice(1), message: x.message })) } };
    },
  };
}
