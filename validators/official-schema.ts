import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { CassetteError } from '../lib/errors.js';
import { isObject, type Rule } from './rule.js';
import { RULE_OF_TYPE } from './structure/rule-of-type.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * `validate --schema <schema.json>`: every message is also checked against the matching `$defs`
 * type of an official MCP schema file, exactly. Findings are reported under the catalogue rule
 * that the schema check stands for (the `1·S` rules: TOOLS-CALL-SHAPE for CallToolResult, …), or
 * ENV-JSONRPC20 for types no rule names. The map is the structure check's own (structure/rule-of-type.ts).
 */

interface Loaded {
  defs: Record<string, Record<string, unknown>>;
  validators: Map<string, ValidateFunction>;
  byMethod: Map<string, string>;
  ajv: Ajv;
  key: '$defs' | 'definitions';
  revision: string | undefined;
}

function load(path: string): Loaded {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch (err) {
    throw new CassetteError('MCPC_USAGE', `--schema ${path} cannot be read as JSON (${(err as Error).message})`);
  }
  const key = isObject(doc.$defs) ? '$defs' : isObject(doc.definitions) ? 'definitions' : undefined;
  if (!key) throw new CassetteError('MCPC_USAGE', `--schema ${path} has no $defs or definitions; give an MCP schema.json`);
  const defs = doc[key] as Record<string, Record<string, unknown>>;
  const draft07 = typeof doc.$schema === 'string' && doc.$schema.includes('draft-07');
  const options = { strict: false, allErrors: false, validateFormats: true } as const;
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'mcp://schema' });
  const byMethod = new Map<string, string>();
  for (const [name, def] of Object.entries(defs)) {
    const method = isObject(def.properties) && isObject(def.properties.method) ? def.properties.method.const : undefined;
    if (typeof method === 'string' && (name.endsWith('Request') || name.endsWith('Notification')))
      byMethod.set(`${name.endsWith('Request') ? 'req' : 'note'}:${method}`, name);
  }
  // The revision is read from the path (…/2026-07-28/schema.json); without one, all traffic is checked.
  const revision = /(\d{4}-\d{2}-\d{2})/.exec(path)?.[1];
  return { defs, validators: new Map(), byMethod, ajv, key, revision };
}

function validatorFor(l: Loaded, type: string): ValidateFunction | undefined {
  if (!(type in l.defs)) return undefined;
  let v = l.validators.get(type);
  if (!v) {
    v = l.ajv.getSchema(`mcp://schema#/${l.key}/${type}`)!;
    l.validators.set(type, v);
  }
  return v;
}

/** One rule per catalogue ID the schema check reports under; they share one compiled schema. */
export function officialSchemaRules(path: string): Rule[] {
  const l = load(path);
  const ids = [...new Set([...Object.values(RULE_OF_TYPE), 'ENV-JSONRPC20'])];
  return ids.map((id) => ({
    id,
    level: 'schema' as const,
    obs: '1' as const,
    era: 'all' as const,
    source: 'schema',
    title: `matches the official schema (${l.revision ?? path})`,
    check(o, report) {
      // Traffic of another revision is judged by that revision's rules, never by this file.
      if (!o.json || (l.revision !== undefined && o.revision !== l.revision)) return;
      for (const [ruleType, type, value, at] of targets(l, o)) {
        if ((RULE_OF_TYPE[ruleType] ?? 'ENV-JSONRPC20') !== id) continue;
        const v = validatorFor(l, type);
        if (!v || v(value)) continue;
        const e = v.errors?.[0];
        report(
          `${at}${e?.instancePath ?? ''}`,
          `does not match ${l.key}/${type} of the ${l.revision ?? 'given'} schema: ${e ? `${e.instancePath || '(root)'} ${e.message ?? ''}` : 'invalid'}`,
        );
      }
    },
  }));
}

/** What a message is checked as: (type that names the rule, type validated, value, JSON Pointer). */
function targets(l: Loaded, o: Parameters<Rule['check']>[0]): [string, string, unknown, string][] {
  const json = o.json!;
  if (typeof json.method === 'string') {
    const type = l.byMethod.get(`${'id' in json ? 'req' : 'note'}:${json.method}`);
    // The 2025-06-18 schema types only method and params; later ones the whole message.
    if (type)
      return [
        [
          type,
          type,
          l.key === 'definitions' ? { method: json.method, ...(json.params !== undefined ? { params: json.params } : {}) } : json,
          '',
        ],
      ];
    return [];
  }
  if ('error' in json) {
    const type = 'JSONRPCErrorResponse' in l.defs ? 'JSONRPCErrorResponse' : 'JSONRPCError';
    return [[type, type, json, '']];
  }
  if (!('result' in json) || !o.request) return [];
  const base = l.byMethod.get(`req:${o.request.method}`)?.replace(/Request$/, '');
  if (!base) return [];
  // 2026-07-28 types whole responses (a result or an InputRequiredResult); earlier ones the result.
  if (`${base}ResultResponse` in l.defs) return [[`${base}Result`, `${base}ResultResponse`, json, '']];
  if (`${base}Result` in l.defs) return [[`${base}Result`, `${base}Result`, json.result, '/result']];
  return [];
}
