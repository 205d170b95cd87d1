import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { packageRoot } from '../paths.js';

// ajv-formats ships CommonJS with a default export; under NodeNext the callable sits on .default.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export const cassetteSchemaPath = join(packageRoot, 'lib', 'cassette', 'cassette.schema.json');

let compiled: ValidateFunction | undefined;

/** Compiled once per process, on first use: loading a cassette is never on the proxy's start path. */
function validator(): ValidateFunction {
  if (!compiled) {
    const schema = JSON.parse(readFileSync(cassetteSchemaPath, 'utf8')) as object;
    const ajv = new Ajv({ allErrors: false, strict: true, strictRequired: false });
    addFormats(ajv, ['date-time']);
    compiled = ajv.compile(schema);
  }
  return compiled;
}

/** Returns a readable list of problems, empty when the value is a valid v1 cassette. */
export function cassetteProblems(value: unknown): string[] {
  const validate = validator();
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
