import { CassetteError } from '../errors.js';
import { CASSETTE_FORMAT, CASSETTE_VERSION } from './cassette.js';

/**
 * One step per format version: `MIGRATIONS[n]` turns a version-n cassette into version n+1.
 */
const MIGRATIONS: Record<number, (old: Record<string, unknown>) => Record<string, unknown>> = {
  // v2 added Streamable HTTP: `transport: "streamable-http"`, an HTTP `target`, `exchanges`,
  // `mcpSessionId`, the `http` channel and per-message `http` info. Every v1 session is already a
  // valid v2 session, so only the version changes.
  1: (old) => ({ ...old, version: 2 }),
};

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
