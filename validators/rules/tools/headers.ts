/** TOOLS rules on `x-mcp-header` annotations in tool schemas. */
import { isObject, type Observed, type Rule } from '../../rule.js';
import { pointer } from '../../walk.js';
import { clientRequest, type Json, obj, params, result } from '../support/messages.js';
import { memoryOf } from '../support/negotiated.js';

// x-mcp-header (server/tools.mdx §x-mcp-header; basic/transports/streamable-http.mdx §Schema Extension)
const TCHAR = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

const SCHEMA_ONE = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
]);

const SCHEMA_MANY = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items']);

const SENSITIVE_WORDS = new Set([
  'password',
  'passwd',
  'pwd',
  'passphrase',
  'secret',
  'token',
  'apikey',
  'credential',
  'credentials',
  'authorization',
  'cookie',
  'ssn',
  'cvv',
  'email',
  'phone',
]);

const SENSITIVE_PAIRS = /(api_key|access_key|private_key|session_id|credit_card|card_number|social_security)/;

/** A parameter or header name that suggests a secret or personal data (a heuristic). */
function sensitiveName(name: string): boolean {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const counts = words.some((w) => ['count', 'limit', 'max', 'min', 'budget'].includes(w)); // max_tokens is no secret
  return (!counts && words.some((w) => SENSITIVE_WORDS.has(w))) || SENSITIVE_PAIRS.test(words.join('_'));
}

interface HeaderMark {
  value: unknown;
  path: string[];
  schema: Json;
}

/** Every `x-mcp-header` in a schema, with the keyword path from the root (only schema keywords are walked, never data like `enum`). */
function headerMarks(schema: Json, path: string[] = [], out: HeaderMark[] = []): HeaderMark[] {
  if ('x-mcp-header' in schema) out.push({ value: schema['x-mcp-header'], path, schema });
  for (const [k, v] of Object.entries(schema)) {
    if (SCHEMA_MAPS.has(k) && isObject(v))
      for (const [name, sub] of Object.entries(v)) if (isObject(sub)) headerMarks(sub, [...path, k, name], out);
    if (SCHEMA_ONE.has(k) && isObject(v)) headerMarks(v, [...path, k], out);
    if (SCHEMA_MANY.has(k) && Array.isArray(v)) v.forEach((sub, i) => isObject(sub) && headerMarks(sub, [...path, k, String(i)], out));
  }
  return out;
}

/** Why a tool's `x-mcp-header` annotations make its definition invalid, if they do. */
function headerProblems(tool: Json): { path: string; problem: string }[] {
  const schema = obj(tool.inputSchema);
  if (!schema) return [];
  const seen = new Set<string>();
  const out: { path: string; problem: string }[] = [];
  for (const mark of headerMarks(schema)) {
    const at = `/inputSchema${pointer(mark.path)}/x-mcp-header`;
    const v = mark.value;
    if (typeof v !== 'string' || v === '')
      out.push({ path: at, problem: `x-mcp-header is ${JSON.stringify(v)}; it must be a non-empty header-name token` });
    else if (!TCHAR.test(v))
      out.push({ path: at, problem: `x-mcp-header ${JSON.stringify(v)} is not an HTTP field-name token (RFC 9110 1*tchar)` });
    else if (seen.has(v.toLowerCase()))
      out.push({
        path: at,
        problem: `x-mcp-header ${JSON.stringify(v)} repeats another annotation of this inputSchema (compared case-insensitively)`,
      });
    if (typeof v === 'string') seen.add(v.toLowerCase());
    const types = (Array.isArray(mark.schema.type) ? mark.schema.type : mark.schema.type === undefined ? [] : [mark.schema.type]).map(
      String,
    );
    // `null` may sit beside a primitive (the header is then omitted) but is no primitive itself.
    const bad = types.every((t) => t === 'null') ? types : types.filter((t) => !['string', 'integer', 'boolean', 'null'].includes(t));
    if (bad.length)
      out.push({
        path: at,
        problem: `x-mcp-header on a property of type ${bad.join('/')}; only string, integer and boolean parameters may be mirrored`,
      });
    const offPath = mark.path.find((seg, i) => i % 2 === 0 && seg !== 'properties');
    if (mark.path.length === 0 || offPath !== undefined) {
      out.push({
        path: at,
        problem:
          mark.path.length === 0
            ? 'x-mcp-header on the schema root'
            : `x-mcp-header under ${offPath}: an annotated property must be reachable from the root through properties keys only`,
      });
    }
  }
  return out;
}

function listedToolObjects(o: Observed): Json[] {
  const r = result(o);
  return o.request?.method === 'tools/list' && r && Array.isArray(r.tools) ? r.tools.map((t) => obj(t) ?? {}) : [];
}

export const headerRules: Rule[] = [
  {
    id: 'TOOLS-XMCPHEADER-VALID',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'server/tools.mdx §x-mcp-header',
    title: 'x-mcp-header values are unique tokens on statically reachable string, integer or boolean properties',
    on: ['server-result tools/list'],
    check(o, report, state) {
      memoryOf(o, state);
      listedToolObjects(o).forEach((t, i) => {
        for (const p of headerProblems(t))
          report(`/result/tools/${i}${p.path}`, `${String(t.name)}: ${p.problem}; the tool definition is invalid`);
      });
    },
  },
  {
    id: 'TOOLS-XMCPHEADER-REJECT',
    level: 'MUST',
    obs: 'H',
    era: 'modern',
    transport: 'streamable-http',
    source: 'server/tools.mdx §x-mcp-header',
    title: 'An HTTP client does not call a tool whose x-mcp-header annotations are invalid',
    on: ['client-request tools/call'],
    check(o, report, state) {
      memoryOf(o, state);
      const req = clientRequest(o);
      const name = req?.method === 'tools/call' ? params(req).name : undefined;
      const tool = typeof name === 'string' ? state.tools.get(name) : undefined;
      const problem = tool ? headerProblems(tool)[0] : undefined;
      if (problem)
        report(
          '/params/name',
          `the client calls ${String(name)}, whose definition is invalid (${problem.problem}); HTTP clients must drop such tools from tools/list`,
        );
    },
  },
  {
    id: 'TOOLS-XMCPHEADER-SENSITIVE',
    level: 'SHOULD NOT',
    obs: 'H',
    era: 'modern',
    source: 'server/tools.mdx §x-mcp-header',
    title: 'x-mcp-header does not mirror secrets or personal data into HTTP headers',
    on: ['server-result tools/list'],
    check(o, report, state) {
      memoryOf(o, state);
      listedToolObjects(o).forEach((t, i) => {
        for (const mark of headerMarks(obj(t.inputSchema) ?? {})) {
          const property = mark.path[mark.path.length - 1] ?? '';
          if (sensitiveName(property) || (typeof mark.value === 'string' && sensitiveName(mark.value))) {
            report(
              `/result/tools/${i}/inputSchema${pointer(mark.path)}/x-mcp-header`,
              `${String(t.name)} mirrors ${property} into an Mcp-Param header, visible to every intermediary; secrets and personal data stay in the body`,
            );
          }
        }
      });
    },
  },
];
