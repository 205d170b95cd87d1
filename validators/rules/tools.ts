/** RULES.md §5: tools (TOOLS), x-mcp-header included. */
import { dataProblem, dialectOf, schemaProblem } from '../json-schema.js';
import { isObject, type Observed, type Rule, since } from '../rule.js';
import { seenAt } from '../session-state.js';
import { pointer } from '../walk.js';
import { invariance, nameOf, relist } from './support/memories.js';
import { clientRequest, type Json, obj, params, refusable, result, retryOf } from './support/messages.js';
import { ACKNOWLEDGED, listChangedRefused, memoryOf } from './support/negotiated.js';

const NAME = /^[A-Za-z0-9_.-]+$/;

function listedTools(o: Parameters<Rule['check']>[0]): Record<string, unknown>[] {
  if (o.request?.method !== 'tools/list' || !o.json || !isObject(o.json.result) || !Array.isArray(o.json.result.tools)) return [];
  return o.json.result.tools.filter(isObject);
}

/**
 * The same JSON value: objects are unordered, so members compare by name whatever their order,
 * and a member whose value is null counts as absent (a serialiser that omits null members and one
 * that writes them give the same value). Array elements compare in order, nulls included.
 */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((x, i) => sameJson(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const present = (o: Record<string, unknown>) => Object.keys(o).filter((k) => o[k] !== null);
  const keys = present(a);
  return keys.length === present(b).length && keys.every((k) => Object.hasOwn(b, k) && sameJson(a[k], b[k]));
}

function callResult(o: Parameters<Rule['check']>[0]): { name: string; result: Record<string, unknown> } | undefined {
  if (o.request?.method !== 'tools/call' || !o.json || !isObject(o.json.result)) return undefined;
  const params = isObject(o.request.json.params) ? o.request.json.params : undefined;
  return typeof params?.name === 'string' ? { name: params.name, result: o.json.result } : undefined;
}

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

export const toolRules: Rule[] = [
  invariance('tools/list'),
  {
    id: 'TOOLS-LIST-ORDER',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Capabilities',
    revisions: since('2026-07-28'),
    title: 'Tools come in the same order while the set is unchanged',
    on: ['result tools/list'],
    check(o, report, state) {
      const r = relist(o, state, 'tools/list', false);
      if (!r) return;
      const was = r.before.items.map(nameOf);
      const now = r.items.map(nameOf);
      if (
        was.length === now.length &&
        [...was].sort().join('\u0000') === [...now].sort().join('\u0000') &&
        was.join('\u0000') !== now.join('\u0000')
      ) {
        report('/result/tools', `same tools as in ${seenAt(r.before, state)}, in a different order`);
      }
    },
  },
  {
    id: 'TOOLS-ERR-EXECUTION',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Error Handling',
    title: 'Errors from inside a tool are isError results, not JSON-RPC errors',
    on: ['error tools/call'],
    check(o, report, state) {
      if (o.request?.method !== 'tools/call' || !o.json || !isObject(o.json.error)) return;
      const params = isObject(o.request.json.params) ? o.request.json.params : {};
      const code = o.json.error.code;
      if (typeof params.name !== 'string' || !state.tools.has(params.name)) return; // unknown tool: a JSON-RPC error is right
      if (code === -32601 || code === -32020 || code === -32021 || code === -32022) return;
      // Before SEP-1303 (2025-11-25) invalid arguments were a protocol error.
      if (code === -32602 && o.revision !== undefined && o.revision < '2025-11-25') return;
      if (refusable(o.request, state)) return; // an invalid request is a JSON-RPC error (TOOLS-ERR-PROTOCOL)
      report(
        '/error',
        `${params.name} is a listed tool, yet its failure came back as JSON-RPC error ${String(code)}; tool failures and invalid arguments are results with isError: true (SEP-1303)`,
      );
    },
  },
  {
    id: 'TOOLS-NAME-LENGTH',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    revisions: since('2025-11-25'),
    title: 'A tool name is 1-128 characters',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        if (typeof t.name === 'string' && (t.name.length < 1 || t.name.length > 128))
          report(`/result/tools/${i}/name`, `tool name is ${t.name.length} characters long`);
      });
    },
  },
  {
    id: 'TOOLS-NAME-FORMAT',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    revisions: since('2025-11-25'),
    title: 'A tool name uses only [A-Za-z0-9_.-]',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        if (typeof t.name === 'string' && t.name.length > 0 && !NAME.test(t.name))
          report(`/result/tools/${i}/name`, `tool name ${JSON.stringify(t.name)} has characters outside [A-Za-z0-9_.-]`);
      });
    },
  },
  {
    id: 'TOOLS-NAME-UNIQUE',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    title: 'Tool names are unique within a server',
    on: ['result tools/list'],
    check(o, report) {
      const seen = new Set<string>();
      listedTools(o).forEach((t, i) => {
        if (typeof t.name !== 'string') return;
        if (seen.has(t.name)) report(`/result/tools/${i}/name`, `tool ${JSON.stringify(t.name)} is listed twice`);
        seen.add(t.name);
      });
    },
  },
  {
    id: 'TOOLS-INPUTSCHEMA-OBJ',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool',
    title: '`inputSchema` is a JSON Schema object whose root has type "object"',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        const s = t.inputSchema;
        if (!isObject(s))
          report(
            `/result/tools/${i}/inputSchema`,
            `inputSchema of ${String(t.name)} is ${s === undefined ? 'missing' : JSON.stringify(s)}, not a JSON Schema object`,
          );
        else if (s.type !== 'object')
          report(
            `/result/tools/${i}/inputSchema/type`,
            `inputSchema of ${String(t.name)} has root type ${JSON.stringify(s.type)}, not "object"`,
          );
      });
    },
  },
  {
    id: 'TOOLS-SCHEMA-VALID',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §JSON Schema Usage',
    title: '`inputSchema` and `outputSchema` are valid in their dialect (2020-12 by default)',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        for (const key of ['inputSchema', 'outputSchema'] as const) {
          const s = t[key];
          if (!isObject(s)) continue;
          const problem = schemaProblem(s);
          if (problem) report(`/result/tools/${i}/${key}`, `${key} of ${String(t.name)}: ${problem}`);
        }
      });
    },
  },
  {
    id: 'TOOLS-DIALECT-UNSUPPORTED',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §Implementation Requirements',
    revisions: since('2025-11-25'),
    title: 'Tool schemas use a JSON Schema dialect clients support (2020-12 must be supported)',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        for (const key of ['inputSchema', 'outputSchema'] as const) {
          const s = t[key];
          if (isObject(s) && dialectOf(s) === 'unsupported')
            report(
              `/result/tools/${i}/${key}/$schema`,
              `${key} of ${String(t.name)} names dialect ${JSON.stringify(s.$schema)}, which clients are not required to support; use 2020-12`,
            );
        }
      });
    },
  },
  {
    id: 'TOOLS-NOPARAM',
    level: 'REC',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool',
    severity: 'info',
    revisions: since('2025-11-25'),
    title: 'A tool without parameters uses {"type":"object","additionalProperties":false}',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        const s = t.inputSchema;
        if (
          isObject(s) &&
          s.type === 'object' &&
          (!isObject(s.properties) || Object.keys(s.properties).length === 0) &&
          s.additionalProperties !== false &&
          !['oneOf', 'anyOf', 'allOf', '$ref', 'patternProperties', 'if'].some((k) => k in s)
        ) {
          report(
            `/result/tools/${i}/inputSchema`,
            `${String(t.name)} takes no parameters; {"type":"object","additionalProperties":false} says so explicitly`,
          );
        }
      });
    },
  },
  {
    id: 'TOOLS-OUTPUT-CONFORM',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Output Schema',
    revisions: since('2025-06-18'),
    title: "`structuredContent` conforms to the tool's declared `outputSchema`",
    on: ['result tools/call'],
    check(o, report, state) {
      const call = callResult(o);
      if (!call || call.result.isError === true || call.result.resultType === 'input_required') return;
      const tool = state.tools.get(call.name);
      if (!tool || !isObject(tool.outputSchema)) return;
      if (!('structuredContent' in call.result))
        return report('/result', `${call.name} declares an outputSchema but returned no structuredContent`);
      const problem = dataProblem(tool.outputSchema, call.result.structuredContent);
      if (problem)
        report('/result/structuredContent', `structuredContent of ${call.name} does not conform to its outputSchema: ${problem}`);
    },
  },
  {
    id: 'TOOLS-STRUCT-MIRROR',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Structured Content',
    revisions: since('2025-06-18'),
    title: 'structuredContent is also returned as serialized JSON in a text block',
    on: ['result tools/call'],
    check(o, report) {
      const call = callResult(o);
      if (!call || call.result.structuredContent === undefined || call.result.isError === true) return;
      const content = Array.isArray(call.result.content) ? call.result.content.filter(isObject) : [];
      const texts = content.filter((c) => c.type === 'text' && typeof c.text === 'string').map((c) => c.text as string);
      const mirrored = texts.some((text) => {
        try {
          return sameJson(JSON.parse(text), call.result.structuredContent);
        } catch {
          return false;
        }
      });
      if (!mirrored)
        report(
          '/result/content',
          `${call.name} returned structuredContent, but no text block holds the same JSON value (compared as values: member order and null members aside)`,
        );
    },
  },
  {
    id: 'TOOLS-ERR-PROTOCOL',
    level: 'desc',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Error Handling',
    title: 'An unknown tool gets a JSON-RPC error, not an isError result',
    on: ['result tools/call'],
    check(o, report, state) {
      const call = callResult(o);
      if (!call || call.result.isError !== true || state.tools.size === 0 || state.tools.has(call.name)) return;
      report(
        '/result/isError',
        `${call.name} is not in the last tools/list, yet the answer is an isError result; an unknown tool is a JSON-RPC error (-32602)`,
      );
    },
  },
  {
    id: 'TOOLS-RETRY-NEW-ID',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'server/tools.mdx §Calling Tools',
    title: 'The MRTR retry of tools/call uses a new JSON-RPC id',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const r = retryOf(o, state);
      if (r && o.json?.method === 'tools/call' && JSON.stringify(r.issued.id) === JSON.stringify(r.id))
        report('/id', `the tools/call retry reuses id ${JSON.stringify(r.id)} of the call it retries`);
    },
  },
  {
    id: 'TOOLS-LISTCHANGED',
    level: 'SHOULD',
    obs: 'N',
    era: 'modern',
    source: 'server/tools.mdx §List Changed Notification',
    title: 'A server that declared tools.listChanged honours toolsListChanged on listen streams',
    on: ACKNOWLEDGED,
    check(o, report, state) {
      memoryOf(o, state);
      // A changed list without the notification is TOOLS-LIST-INVARIANT; this is the refusal up front.
      if (listChangedRefused(o, state, ['tools']).length)
        report(
          '/params/notifications',
          'the subscription asked for toolsListChanged and the server declared tools.listChanged, but the acknowledgment leaves it out',
        );
    },
  },
  {
    id: 'TOOLS-NAME-CASE',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    title: 'tools/call uses a tool name in the exact case tools/list gave',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const m = memoryOf(o, state);
      const req = clientRequest(o);
      const name = req?.method === 'tools/call' ? params(req).name : undefined;
      // The tool-name guidance arrived in 2025-11-25; a partly fetched list proves nothing.
      if (
        typeof name !== 'string' ||
        !m.toolsComplete ||
        state.tools.has(name) ||
        !(o.era === 'modern' || (o.revision ?? '') >= '2025-11-25')
      )
        return;
      const listedAs = [...state.tools.keys()].find((t) => t.toLowerCase() === name.toLowerCase());
      if (listedAs !== undefined)
        report(
          '/params/name',
          `tools/call names ${JSON.stringify(name)}, but the tool is listed as ${JSON.stringify(listedAs)}; tool names are case-sensitive`,
        );
    },
  },
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
