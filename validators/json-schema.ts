import { createHash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { backtrackingRisk } from '../lib/safe-pattern.js';

/**
 * JSON Schemas found inside messages (tool inputSchema/outputSchema, elicitation requestedSchema):
 * the dialect comes from `$schema` (2020-12 when absent), each distinct schema is compiled once
 * (cache by content hash), network `$ref`s are never fetched, and the work is bounded
 * (PROXY-SCHEMA-BOUNDS) so a hostile schema cannot hang or exhaust the validator: too large, too
 * deep or too composed a schema is not compiled, and patterns that can backtrack exponentially
 * are not run.
 */
const MAX_SCHEMA_BYTES = 256 * 1024;
const MAX_DEPTH = 64;
const MAX_NODES = 20_000;
const MAX_COMPOSITION = 500;
/** Longer strings are not matched against a `pattern` at all (a linear regex is still linear in them). */
const MAX_PATTERN_INPUT = 100_000;
const COMPOSITION = new Set(['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else', '$ref', 'dependentSchemas']);

/** Why a schema is too costly to compile here, if it is. */
export function boundsProblem(schema: unknown): string | undefined {
  let nodes = 0;
  let composition = 0;
  const stack: [unknown, number][] = [[schema, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth > MAX_DEPTH) return `nested deeper than ${MAX_DEPTH} levels`;
    if (++nodes > MAX_NODES) return `more than ${MAX_NODES} nodes`;
    for (const [k, x] of Object.entries(v)) {
      // Each branch of a composition costs compile time of its own.
      if (COMPOSITION.has(k) && (composition += Array.isArray(x) ? x.length : 1) > MAX_COMPOSITION)
        return `more than ${MAX_COMPOSITION} composition branches`;
      stack.push([x, depth + 1]);
    }
  }
  return undefined;
}

/**
 * A quantified group that itself contains a quantifier ((a+)+, (a|aa)*, (.*)*, ((a+))+…) can take
 * exponential time on a failing input. Such patterns are not enforced; the rest are, on inputs
 * up to MAX_PATTERN_INPUT characters.
 */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[+*}](?:[^()\\]|\\.)*\)[+*{]|\((?:[^()\\]|\\.)*\|(?:[^()\\]|\\.)*\)[+*{]/;
export function riskyPattern(pattern: string): boolean {
  // The quick check misses groups within groups (`((a+))+`); lib/safe-pattern.ts parses them.
  return NESTED_QUANTIFIER.test(pattern) || backtrackingRisk(pattern) !== undefined;
}

/** ajv's regex factory: risky patterns and huge inputs always pass. */
function boundedRegExp(pattern: string, flags: string): { test(s: string): boolean } {
  if (riskyPattern(pattern)) return { test: () => true };
  const re = new RegExp(pattern, flags);
  return { test: (s: string) => s.length > MAX_PATTERN_INPUT || re.test(s) };
}
boundedRegExp.code = 'boundedRegExp';

type Dialect = '2020-12' | '2019-09' | 'draft-07' | 'unsupported';

export function dialectOf(schema: Record<string, unknown>): Dialect {
  const s = typeof schema.$schema === 'string' ? schema.$schema : undefined;
  if (s === undefined || /draft\/2020-12\/schema/.test(s)) return '2020-12';
  if (/draft\/2019-09\/schema/.test(s)) return '2019-09';
  if (/draft-07\/schema/.test(s)) return 'draft-07';
  return 'unsupported';
}

const engines = new Map<Dialect, Ajv>();
function engine(dialect: Dialect): Ajv {
  let e = engines.get(dialect);
  if (!e) {
    const options = {
      strict: false,
      allErrors: false,
      validateFormats: false,
      loadSchema: undefined,
      code: { regExp: boundedRegExp as never },
    } as const;
    e = dialect === '2019-09' ? new Ajv2019(options) : dialect === 'draft-07' ? new Ajv(options) : new Ajv2020(options);
    engines.set(dialect, e);
  }
  return e;
}

const compiled = new Map<string, { validate?: ValidateFunction; problem?: string }>();
/** The same schema object (a tool seen again in the same answer) skips even the hash. */
const byObject = new WeakMap<object, { validate?: ValidateFunction; problem?: string }>();

export function schemaProblem(schema: Record<string, unknown>): string | undefined {
  return dialectOf(schema) === 'unsupported' ? undefined : compile(schema).problem;
}

/** Validates data against a schema; undefined when it conforms or the schema cannot be used. */
export function dataProblem(schema: Record<string, unknown>, data: unknown): string | undefined {
  const c = compile(schema);
  if (!c.validate || c.validate(data)) return undefined;
  const e = c.validate.errors?.[0];
  return e ? `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}` : 'does not conform';
}

function compile(schema: Record<string, unknown>): { validate?: ValidateFunction; problem?: string } {
  const known = byObject.get(schema);
  if (known) return known;
  const result = compileByContent(schema);
  byObject.set(schema, result);
  return result;
}

function compileByContent(schema: Record<string, unknown>): { validate?: ValidateFunction; problem?: string } {
  // Bounded first: a deep enough schema would not even survive JSON.stringify.
  if (boundsProblem(schema)) return {};
  const text = JSON.stringify(schema);
  const key = createHash('sha256').update(text).digest('base64');
  let c = compiled.get(key);
  if (c) return c;
  const dialect = dialectOf(schema);
  if (dialect === 'unsupported') c = { problem: `unsupported JSON Schema dialect ${JSON.stringify(schema.$schema)}` };
  else if (text.length > MAX_SCHEMA_BYTES) c = {};
  else {
    const ajv = engine(dialect);
    const { $id: _id, ...anonymous } = schema; // no $id: distinct tools may reuse one
    if (!ajv.validateSchema(anonymous)) {
      const e = ajv.errors?.[0];
      c = {
        problem: `not a valid ${dialect} schema: ${e ? `${e.instancePath || '(root)'} ${e.message ?? ''}` : 'meta-schema check failed'}`,
      };
    } else {
      try {
        c = { validate: ajv.compile(anonymous) };
      } catch (err) {
        // Unresolvable references (never fetched) make the schema unusable here, not invalid.
        c = /can't resolve reference/i.test((err as Error).message) ? {} : { problem: (err as Error).message };
      }
    }
  }
  compiled.set(key, c);
  return c;
}
