import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { packageRoot } from '../paths.js';
import { CASSETTE_MINOR_VERSION, CASSETTE_VERSION } from './cassette.js';

// ajv-formats ships CommonJS with a default export; under NodeNext the callable sits on .default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export const cassetteSchemaPath = join(packageRoot, 'lib', 'cassette', 'cassette.schema.json');

let compiled: ValidateFunction | undefined;
let lenient: ValidateFunction | undefined;

/** The schema with every `additionalProperties: false` left out: what a newer minor may hold. */
function opened(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(opened);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Record<string, unknown>)
      .filter(([k, v]) => !(k === 'additionalProperties' && v === false))
      .map(([k, v]) => [k, opened(v)]),
  );
}

/** Compiled once per process, on first use: loading a cassette is never on the proxy's start path. */
function validator(newer = false): ValidateFunction {
  if (newer ? lenient : compiled) return (newer ? lenient : compiled)!;
  const schema = JSON.parse(readFileSync(cassetteSchemaPath, 'utf8')) as object;
  const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false });
  addFormats(ajv, ['date-time']);
  const fn = ajv.compile((newer ? opened(schema) : schema) as object);
  if (newer) lenient = fn;
  else compiled = fn;
  return fn;
}

/** The minor version of a cassette newer than this release's (CASSETTE_MINOR_VERSION), else undefined. */
export function newerMinor(value: unknown): number | undefined {
  const v = value as { version?: unknown; minorVersion?: unknown } | null;
  if (v === null || typeof v !== 'object' || v.version !== CASSETTE_VERSION) return undefined;
  return typeof v.minorVersion === 'number' && Number.isInteger(v.minorVersion) && v.minorVersion > CASSETTE_MINOR_VERSION
    ? v.minorVersion
    : undefined;
}

/**
 * Returns a readable list of problems, empty when the value is a valid cassette. A newer minor of
 * the same format (docs/cassette-format.md) may hold fields this release does not know: they are
 * allowed (and kept by whatever rewrites the file); everything this release knows is checked.
 */
export function cassetteProblems(value: unknown): string[] {
  const validate = validator(newerMinor(value) !== undefined);
  if (validate(value)) return [];
  return (validate.errors ?? []).map(describe);
}

function describe(e: ErrorObject): string {
  const at = e.instancePath === '' ? 'the top level' : e.instancePath;
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
      : e.keyword === 'enum'
        ? ` (one of ${JSON.stringify((e.params as { allowedValues?: unknown }).allowedValues)})`
        : '';
  return `${at} ${e.message ?? 'is invalid'}${extra}`;
}
