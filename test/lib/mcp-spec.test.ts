import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isSpecMethod, KNOWN_REVISIONS, SPEC_METHODS } from '../../lib/mcp-spec.js';
import { SPEC_DIR_HINT, specDir } from '../helpers/paths.js';
import { testWhen } from '../helpers/skip.js';

/**
 * lib/mcp-spec.ts, the one list of the specification's methods (the validator's revision gates
 * and the metrics' `mcp_method_name` read it), against the official schemas of every revision:
 * each `method` constant of each schema.json, no more and no fewer.
 */
const withSpec = testWhen(specDir !== undefined, 'the methods against the official schemas', SPEC_DIR_HINT);

/** The `method` constants of one revision's official schema. */
function methodsOf(revision: string): string[] {
  const doc = JSON.parse(readFileSync(join(specDir!, revision, 'schema.json'), 'utf8')) as Record<string, Record<string, unknown>>;
  const defs = (doc.$defs ?? doc.definitions) as Record<string, { properties?: { method?: { const?: unknown } } }>;
  return Object.values(defs)
    .map((d) => d.properties?.method?.const)
    .filter((m): m is string => typeof m === 'string');
}

withSpec('every method some revision defines is in SPEC_METHODS, and nothing else is', (t) => {
  const official = new Set(KNOWN_REVISIONS.flatMap(methodsOf));
  t.true(official.size > 30, `read ${official.size} methods`);
  t.deepEqual([...SPEC_METHODS].sort(), [...official].sort());
  t.true(isSpecMethod('notifications/elicitation/complete'), 'a method of one revision only (2025-11-25)');
  t.false(isSpecMethod('tools/call '), 'exactly as written');
  t.false(isSpecMethod(42));
});
