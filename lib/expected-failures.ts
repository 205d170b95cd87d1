/**
 * The expected-failures file (a baseline), in YAML like the official conformance suite's, read
 * by `probe`, `validate` and `check`. One file holds every section; each command reads its own:
 *
 *   probe:                      # probe ids, or probe:RULE-ID (validators/probes/baseline.ts)
 *     - unknown-tool
 *   validate:                   # rule ids, or RULE-ID:/json/pointer (the violation's path)
 *     - TOOLS-STRUCT-MIRROR
 *     - TOOLS-NAME-FORMAT:/result/tools/2/name
 *   replay:                     # change codes per tool (prompt, resource); '*' for any
 *     stamp: [tool-removed, success-became-error]
 *     '*': [description-changed]
 *
 * A listed finding is expected; a listed entry that no longer occurs is stale (an error), so CI
 * fails only on new findings and on fixes that did not update the baseline.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { CassetteError } from './errors.js';

/** `RULE-ID` or `RULE-ID:/path` from the `validate:` list. */
export interface ValidateExpectation {
  rule: string;
  path?: string;
  /** The entry as written, for messages. */
  text: string;
}

/** One change code of one tool (or `*`) from the `replay:` mapping. */
export interface ReplayExpectation {
  tool: string;
  kind: string;
  text: string;
}

export interface ExpectedFailures {
  file: string;
  /** The whole text, for the probe section's own parser. */
  text: string;
  validate: ValidateExpectation[];
  replay: ReplayExpectation[];
}

const EXAMPLE = 'validate:\n  - TOOLS-STRUCT-MIRROR\n  - TOOLS-NAME-FORMAT:/result/tools/2/name\nreplay:\n  stamp: [tool-removed]';

function invalid(file: string, why: string): CassetteError {
  return new CassetteError('MCPC_CONFIG_INVALID', `${file}: ${why}; for example:\n${EXAMPLE}`);
}

export function parseExpectedFailures(text: string, file: string): ExpectedFailures {
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (err) {
    throw new CassetteError('MCPC_CONFIG_INVALID', `${file}: not valid YAML: ${(err as Error).message}`);
  }
  const out: ExpectedFailures = { file, text, validate: [], replay: [] };
  if (doc === null || doc === undefined) return out;
  if (typeof doc !== 'object' || Array.isArray(doc)) throw invalid(file, 'expected a mapping with `probe:`, `validate:` or `replay:`');
  const { validate, replay } = doc as { validate?: unknown; replay?: unknown };
  if (validate !== undefined && validate !== null) {
    if (!Array.isArray(validate)) throw invalid(file, '`validate:` must be a list of rule IDs or RULE-ID:/path entries');
    for (const item of validate) {
      if (typeof item !== 'string' || item === '') {
        throw invalid(file, `\`validate:\` entry ${JSON.stringify(item)} is not a rule ID (write RULE-ID:/path without a space)`);
      }
      const colon = item.indexOf(':');
      const rule = colon === -1 ? item : item.slice(0, colon);
      const path = colon === -1 ? undefined : item.slice(colon + 1);
      if (path !== undefined && path !== '' && !path.startsWith('/')) {
        throw invalid(file, `\`validate:\` entry ${item}: the path after the colon must be a JSON Pointer starting with /`);
      }
      out.validate.push({ rule, ...(path !== undefined ? { path } : {}), text: item });
    }
  }
  if (replay !== undefined && replay !== null) {
    if (typeof replay !== 'object' || Array.isArray(replay)) {
      throw invalid(file, '`replay:` must map a tool (or *) to a list of change codes');
    }
    for (const [tool, codes] of Object.entries(replay as Record<string, unknown>)) {
      const list = typeof codes === 'string' ? [codes] : codes;
      if (!Array.isArray(list) || list.some((c) => typeof c !== 'string' || c === '')) {
        throw invalid(file, `\`replay:\` ${tool} must list change codes, e.g. [tool-removed, description-changed]`);
      }
      for (const kind of list as string[]) out.replay.push({ tool, kind, text: `${tool}: ${kind}` });
    }
  }
  return out;
}

export function loadExpectedFailures(file: string): ExpectedFailures {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CassetteError('MCPC_CONFIG_NOT_FOUND', `cannot read the expected-failures file ${file}: ${(err as Error).message}`);
  }
  return parseExpectedFailures(text, file);
}

/** The 1-based line of the file that holds `entry` (for a stale entry's location), 1 if none. */
export function lineOfEntry(text: string, entry: string): number {
  const lines = text.split('\n');
  const bare = entry.includes(': ') ? entry.slice(entry.indexOf(': ') + 2) : entry;
  const tool = entry.includes(': ') ? entry.slice(0, entry.indexOf(': ')) : undefined;
  let from = 0;
  if (tool !== undefined) {
    const at = lines.findIndex((l) => new RegExp(`^\\s*['"]?${tool.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]?\\s*:`).test(l));
    if (at !== -1) from = at;
  }
  for (let i = from; i < lines.length; i++) if (lines[i]!.includes(bare)) return i + 1;
  return from + 1;
}
