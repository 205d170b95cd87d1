import { CassetteError } from '../errors.js';
import { CASSETTE_FORMAT, CASSETTE_VERSION } from './cassette.js';

/**
 * One step per format version: `MIGRATIONS[n]` turns a version-n cassette into version n+1.
 * Version 1 is the first format, so there is nothing to migrate yet; the chain is here so that
 * the next format adds a step instead of a special case in the loader.
 */
const MIGRATIONS: Record<number, (old: Record<string, unknown>) => Record<string, unknown>> = {};

export function migrate(path: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  let doc = value as Record<string, unknown>;
  if (doc.format !== CASSETTE_FORMAT) return doc; // the schema check names the problem
  if (typeof doc.version !== 'number' || !Number.isInteger(doc.version)) return doc;
  let version: number = doc.version;
  if (version > CASSETTE_VERSION) {
    throw new CassetteError(
      'MCPC_CASSETTE_TOO_NEW',
      `cassette ${path} has format version ${version}, newer than this mcp-cassette reads (${CASSETTE_VERSION}); upgrade mcp-cassette`,
    );
  }
  while (version < CASSETTE_VERSION) {
    const step = MIGRATIONS[version];
    if (!step) break;
    doc = step(doc);
    version = doc.version as number;
  }
  return doc;
}
