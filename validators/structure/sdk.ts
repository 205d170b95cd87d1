import * as core from '@modelcontextprotocol/core';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { z } from 'zod';

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

const escape = (k: PropertyKey): string => String(k).replace(/~/g, '~0').replace(/\//g, '~1');
export const pointerOf = (path: readonly PropertyKey[]): string => path.map((k) => `/${escape(k)}`).join('');

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
const fastAjv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
/** By schema object (the SDK's and the gates' schemas: a fixed set, so a Map, not a WeakMap). */
const fast = new Map<object, ValidateFunction | null>();

export function fastValid(schema: Parser, value: unknown): boolean {
  let v = fast.get(schema);
  if (v === undefined) {
    try {
      v = '_zod' in (schema as object) ? fastAjv.compile(z.toJSONSchema(schema as unknown as z.ZodType, { io: 'input', unrepresentable: 'any' })) : null;
    } catch {
      v = null;
    }
    fast.set(schema, v);
  }
  return v !== null && v(value) === true;
}

/** A schema's problems with a value: none when the fast check passes, Zod's account otherwise. */
export function schemaProblems(schema: Parser, value: unknown): { path: string; message: string }[] {
  if (fastValid(schema, value)) return [];
  const r = schema.safeParse(value);
  return r.success ? [] : problemsOf(r.error?.issues ?? []);
}
