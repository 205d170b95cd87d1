import * as core from '@modelcontextprotocol/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';
import { pointerToken } from '../../lib/json-pointer.js';

/**
 * The official TypeScript SDK's published Zod schemas (@modelcontextprotocol/core) are where
 * message structure comes from: we never copy the spec's schema files into the project. This
 * module only indexes them by spec type name and by method.
 */
export interface ZodIssueLike {
  code: string;
  path: PropertyKey[];
  message: string;
  /** Union failures carry one issue list per branch. */
  errors?: ZodIssueLike[][];
}

export interface Parser {
  safeParse(value: unknown): { success: boolean; error?: { issues: ZodIssueLike[] } };
}

export const pointerOf = (path: readonly PropertyKey[]): string => path.map((k) => `/${pointerToken(String(k))}`).join('');

/**
 * The official schemas' `format`s (uri, byte, date-time…) are annotations, not assertions, in
 * their dialects; the SDK asserts some of them. Formats are judged by dedicated rules instead
 * (RES-BLOB-ENC, ROOTS-FILE-URI, RES-URI-RFC3986), so a failure made only of format issues is
 * not a structure failure. A union passes when one branch fails only on formats.
 */
function formatOnly(issue: ZodIssueLike): boolean {
  if (issue.code === 'invalid_format') return true;
  // The SDK's base64 check is a refinement, not a format.
  if (issue.code === 'custom' && /base64/i.test(issue.message)) return true;
  if (issue.code === 'invalid_union' && issue.errors) return issue.errors.some((branch) => branch.every(formatOnly));
  return false;
}

/** A union failure names the branch that got furthest, so the message says what is really wrong. */
function flatten(issue: ZodIssueLike, base: readonly PropertyKey[] = []): { path: string; message: string } {
  const path = [...base, ...issue.path];
  if (issue.code === 'invalid_union' && issue.errors && issue.errors.length > 0) {
    const tags = allTagsMismatched(issue.errors);
    if (tags) return { path: pointerOf([...path, tags.member]), message: `is none of the kinds allowed here (${tags.values.join(', ')})` };
    const best = [...issue.errors].sort((a, b) => score(b) - score(a))[0]!;
    const first = best.filter((i) => !formatOnly(i))[0];
    if (first) return flatten(first, path);
  }
  return { path: pointerOf(path), message: issue.message };
}

/** Every branch rejected the same tag member: the value is of a kind the union does not have. */
function allTagsMismatched(branches: ZodIssueLike[][]): { member: string; values: string[] } | undefined {
  const tags = branches.map((b) => b.find((i) => i.code === 'invalid_value' && i.path.length === 1 && TAGS.has(String(i.path[0]))));
  if (tags.some((t) => !t) || new Set(tags.map((t) => String(t!.path[0]))).size !== 1) return undefined;
  const values = tags.flatMap((t) => ((t as { values?: unknown[] }).values ?? []).map((v) => JSON.stringify(v)));
  return { member: String(tags[0]!.path[0]), values };
}

/** Members that tell union branches apart: a branch whose tag does not match is not the one meant. */
const TAGS = new Set(['type', 'method', 'mode']);
function score(issues: ZodIssueLike[]): number {
  const mismatched = issues.some((i) => i.code === 'invalid_value' && i.path.length === 1 && TAGS.has(String(i.path[0])));
  if (mismatched) return -1;
  return Math.max(0, ...issues.map((i) => i.path.length + (i.errors ? 1 : 0)));
}

/** Zod issues as structure problems: format-only failures dropped, unions explained. */
export function problemsOf(issues: ZodIssueLike[]): { path: string; message: string }[] {
  return issues.filter((i) => !formatOnly(i)).map((i) => flatten(i));
}

const exported = core as unknown as Record<string, unknown>;

function isParser(v: unknown): v is Parser {
  return typeof v === 'object' && v !== null && typeof (v as Parser).safeParse === 'function';
}

/** The SDK schema for a spec type name (`CallToolResult` → CallToolResultSchema). */
export function sdkSchema(type: string): Parser | undefined {
  let s = schemas.get(type);
  if (s === undefined && !schemas.has(type)) {
    const found = exported[`${type}Schema`];
    s = isParser(found) ? found : undefined;
    schemas.set(type, s);
  }
  return s;
}
/** By type name: reading the SDK's module namespace on every message was a measurable cost. */
const schemas = new Map<string, Parser | undefined>();

function methodOf(schema: unknown): string | undefined {
  const shape = (schema as { shape?: Record<string, { value?: unknown }> }).shape;
  const v = shape?.method?.value;
  return typeof v === 'string' ? v : undefined;
}

function index(suffix: 'Request' | 'Notification'): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, schema] of Object.entries(exported)) {
    if (!name.endsWith(`${suffix}Schema`)) continue;
    const method = methodOf(schema);
    if (method) out.set(method, name.slice(0, -'Schema'.length));
  }
  return out;
}

/** `tools/call` → `CallToolRequest`, read from the schemas' `method` literals. */
export const REQUEST_TYPE = index('Request');
/** `notifications/progress` → `ProgressNotification`. */
export const NOTIFICATION_TYPE = index('Notification');

/**
 * Zod builds its output while it checks (about 5 µs for a typical message); ajv only checks
 * (well under 1 µs). Each SDK schema is therefore also compiled, once, from its own JSON Schema
 * export (`z.toJSONSchema`, input side) into ajv, and Zod runs only on what ajv rejects, to
 * say why. ajv is the stricter of the two where they differ (a refinement Zod runs is dropped
 * from the export and so can only let more through; a `file://` prefix becomes a pattern, which
 * only sends more to Zod), and the differential test checks the two give one verdict.
 */
const options = { strict: false, validateFormats: false, allErrors: false, messages: false, inlineRefs: false } as const;
// Only the verdict is used (Zod says what is wrong), hence no error messages.
const fastAjv = new Ajv2020(options);
// Ajv2020 tracks which members each subschema evaluated, for `unevaluatedProperties`/`Items`,
// and so runs every branch of every anyOf even after one passed (each failed branch building its
// errors). The SDK's exports use neither keyword, so this instance stops at the first branch that
// passes; an export that did use one is compiled by a standard instance (`exact`).
(fastAjv.opts as { unevaluated?: boolean }).unevaluated = false;
let exact: Ajv2020 | undefined;

interface Fast {
  validate: ValidateFunction;
  /** Compiled by `fastAjv` under its `sdkRef` id, so other fast schemas can refer to it. */
  shared: boolean;
}
/** By schema object (the SDK's and the gates' schemas: a fixed set, so a Map, not a WeakMap). */
const fast = new Map<object, Fast | null>();

function fastOf(schema: Parser): Fast | null {
  let f = fast.get(schema);
  if (f === undefined) {
    try {
      f = '_zod' in (schema as object) ? compileFast(schema) : null;
    } catch {
      f = null;
    }
    fast.set(schema, f);
  }
  return f;
}

export function fastValid(schema: Parser, value: unknown): boolean {
  const f = fastOf(schema);
  return f !== null && f.validate(value) === true;
}

function compileFast(parser: Parser): Fast {
  const schema = forParsedJson(
    z.toJSONSchema(parser as unknown as z.ZodType, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
  );
  if (/"unevaluated(Properties|Items)"/.test(JSON.stringify(schema)))
    return { validate: (exact ??= new Ajv2020(options)).compile(schema), shared: false };
  return { validate: fastAjv.compile({ ...shareParts(schema), $id: sdkRef(parser)!.$ref }), shared: true };
}

/**
 * The SDK's exports repeat the same parts (Implementation, content blocks, annotations, `_meta`
 * shapes…) in type after type, and ajv compiles each copy into the code of each type: many large
 * functions, each running on only some messages. V8 optimizes a function once it has run long
 * enough for its size, so on a first pass over traffic most of them ran unoptimized. Identical
 * parts are compiled once instead, as functions of their own that every type calls (and that so
 * get hot, and optimized, soon). A part that refers into its own document (`#…`) stays inline.
 */
const SHARED_MIN_LENGTH = 300;
const sharedIds = new Map<string, string>();
function shareParts(schema: Record<string, unknown>): Record<string, unknown> {
  return mapSchemas(schema, (s, root) => {
    const text = JSON.stringify(s);
    // The root is the type's own, not a part.
    if (root || text.length < SHARED_MIN_LENGTH || /"#|"\$(id|anchor|dynamicAnchor|dynamicRef|recursiveRef|recursiveAnchor)"/.test(text))
      return s;
    let id = sharedIds.get(text);
    if (id === undefined) {
      id = `urn:mcp-cassette:part:${sharedIds.size}`;
      fastAjv.addSchema({ ...s, $id: id });
      sharedIds.set(text, id);
    }
    return { $ref: id };
  });
}

/** Ids for SDK schemas inside JSON Schema made elsewhere (checks.ts). An export is compiled only
 * when it is first used or a schema that refers to it is compiled (`compileWithRefs`), never at
 * import. */
const ids = new Map<object, string>();
const byId = new Map<string, Parser>();
const ID_PREFIX = 'urn:mcp-cassette:sdk:';

export function sdkRef(schema: Parser): { $ref: string } | undefined {
  if (!('_zod' in (schema as object))) return undefined;
  let id = ids.get(schema);
  if (id === undefined) {
    id = `${ID_PREFIX}${ids.size}`;
    ids.set(schema, id);
    byId.set(id, schema);
  }
  return { $ref: id };
}

/** A JSON Schema that may refer to SDK schemas (`sdkRef`), compiled by the fast instance; null
 * when one of those has no fast form. */
export function compileWithRefs(schema: Record<string, unknown>): ValidateFunction | null {
  const refs = new Set<string>();
  const collect = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(collect);
    else if (isRecord(v)) {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string' && x.startsWith(ID_PREFIX)) refs.add(x);
        else collect(x);
      }
    }
  };
  collect(schema);
  for (const id of refs) if (!fastOf(byId.get(id)!)?.shared) return null;
  try {
    return fastAjv.compile(shareParts(schema));
  } catch {
    return null;
  }
}

/**
 * The export without what every value parsed from JSON satisfies, which ajv would otherwise walk:
 * Zod's JSON value type (a `$defs` entry: an anyOf of string, number, boolean, null, and objects
 * and arrays of itself, recursing through every `_meta` and argument) becomes `true`, and
 * `propertyNames: {type: "string"}` (member names are strings) goes. Messages are always parsed
 * JSON, so the verdict is the same.
 */
export function forParsedJson(schema: Record<string, unknown>): Record<string, unknown> {
  const defs = isRecord(schema.$defs) ? schema.$defs : {};
  const anyJson = new Set(
    Object.keys(defs)
      .filter((name) => JSON.stringify(defs[name]) === jsonValueDef(name))
      .map((name) => `#/$defs/${name}`),
  );
  const out = mapSchemas(schema, (s) => {
    const { $ref, propertyNames, ...rest } = s;
    return {
      ...rest,
      ...($ref !== undefined && !(typeof $ref === 'string' && anyJson.has($ref)) ? { $ref } : {}),
      ...(propertyNames !== undefined && JSON.stringify(propertyNames) !== '{"type":"string"}' ? { propertyNames } : {}),
    };
  });
  if (isRecord(out.$defs)) out.$defs = Object.fromEntries(Object.entries(out.$defs).filter(([name]) => !anyJson.has(`#/$defs/${name}`)));
  return out;
}
const jsonValueDef = (name: string): string => {
  const self = { $ref: `#/$defs/${name}` };
  return JSON.stringify({
    anyOf: [
      { type: 'string' },
      { type: 'number' },
      { type: 'boolean' },
      { type: 'null' },
      { type: 'object', propertyNames: { type: 'string' }, additionalProperties: self },
      { type: 'array', items: self },
    ],
  });
};

/** Keywords whose value is a schema, an array of schemas, or a map of names to schemas. */
const ONE = new Set([
  'additionalProperties',
  'items',
  'contains',
  'not',
  'if',
  'then',
  'else',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
  'additionalItems',
  'contentSchema',
]);
const LIST = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const MAP = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

/** A schema with `f` applied to every subschema object, innermost first (values of `const`,
 * `enum`, `default`… are data, and left alone). */
function mapSchemas(
  schema: Record<string, unknown>,
  f: (s: Record<string, unknown>, root: boolean) => Record<string, unknown>,
  root = true,
): Record<string, unknown> {
  const sub = (v: unknown): unknown => (isRecord(v) ? mapSchemas(v, f, false) : v);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (ONE.has(k)) out[k] = sub(v);
    else if (LIST.has(k) && Array.isArray(v)) out[k] = v.map(sub);
    else if (MAP.has(k) && isRecord(v)) out[k] = Object.fromEntries(Object.entries(v).map(([name, x]) => [name, sub(x)]));
    else out[k] = v;
  }
  return f(out, root);
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A schema's problems with a value: none when the fast check passes, Zod's account otherwise. */
export function schemaProblems(schema: Parser, value: unknown): { path: string; message: string }[] {
  if (fastValid(schema, value)) return [];
  const r = schema.safeParse(value);
  return r.success ? [] : problemsOf(r.error?.issues ?? []);
}
