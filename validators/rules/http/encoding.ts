/** RULES.md §19, Streamable HTTP: header value encoding (Base64 sentinel, x-mcp-header params). */
import { type ExchangeRule, isObject, type Rule } from '../../rule.js';
import {
  decodeHeaderValue,
  encodingProblem,
  exchangeOf,
  headerOf,
  modernClientMessage,
  mustEncode,
  SENTINEL,
  SENTINEL_ANY_CASE,
} from '../support/http.js';
import { pointerToken } from '../../../lib/json-pointer.js';

// --- x-mcp-header (streamable-http.mdx §Custom Headers from Tool Parameters) ---------------------

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * The `x-mcp-header` annotations of a tool's inputSchema, with the argument path each mirrors, or
 * undefined when an annotation is invalid (then the client must drop the tool, so its calls are
 * not judged here).
 */
function headerParams(schema: unknown): { name: string; path: string[] }[] | undefined {
  const out: { name: string; path: string[] }[] = [];
  let valid = true;
  const visit = (node: unknown, path: string[] | null): void => {
    if (Array.isArray(node)) return node.forEach((n) => visit(n, null));
    if (!isObject(node)) return;
    if ('x-mcp-header' in node) {
      const name = node['x-mcp-header'];
      const type = node.type;
      if (
        !path ||
        path.length === 0 ||
        typeof name !== 'string' ||
        !TOKEN.test(name) ||
        (type !== undefined && !['string', 'integer', 'boolean'].includes(type as string))
      )
        valid = false;
      else out.push({ name, path });
    }
    for (const [k, v] of Object.entries(node)) {
      if (k === 'properties' && path && isObject(v)) for (const [p, sub] of Object.entries(v)) visit(sub, [...path, p]);
      else if (k !== 'x-mcp-header') visit(v, null);
    }
  };
  visit(schema, []);
  const names = out.map((p) => p.name.toLowerCase());
  if (new Set(names).size !== names.length) valid = false;
  return valid ? out : undefined;
}

function valueAt(args: unknown, path: string[]): unknown {
  let v: unknown = args;
  for (const p of path) v = isObject(v) ? v[p] : undefined;
  return v;
}

export const encodingRules: (Rule | ExchangeRule)[] = [
  {
    id: 'HTTP-B64-SENTINEL',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Value Encoding',
    title: 'Mcp-Name and Mcp-Param-* values that are not header-safe use =?base64?…?=',
    on: ['client-request'],
    check(o, report, state) {
      const json = modernClientMessage(o, state);
      const x = exchangeOf(o, state);
      if (!json || !('id' in json) || !x) return;
      const params = isObject(json.params) ? json.params : {};
      const field =
        json.method === 'resources/read' ? 'uri' : json.method === 'tools/call' || json.method === 'prompts/get' ? 'name' : undefined;
      const name = headerOf(x.requestHeaders, 'mcp-name');
      if (field && name !== undefined && typeof params[field] === 'string') {
        const problem = encodingProblem('Mcp-Name', name, params[field] as string);
        if (problem) report(`/params/${field}`, problem);
      }
      // Mcp-Param-* headers: by the value they mirror when the tool is known, else by their form.
      const known = new Map<string, { value: unknown; path: string[] }>();
      const tool = json.method === 'tools/call' ? state.tools.get(String(params.name)) : undefined;
      for (const p of (tool && headerParams(tool.inputSchema)) ?? [])
        known.set(`mcp-param-${p.name.toLowerCase()}`, { value: valueAt(params.arguments, p.path), path: p.path });
      for (const [key, raw] of Object.entries(x.requestHeaders)) {
        const header = Array.isArray(raw) ? raw[0] : raw;
        if (!key.toLowerCase().startsWith('mcp-param-') || header === undefined) continue;
        const mirrored = known.get(key.toLowerCase());
        const value =
          mirrored && (typeof mirrored.value === 'string' || typeof mirrored.value === 'number' || typeof mirrored.value === 'boolean')
            ? String(mirrored.value)
            : undefined;
        const at = mirrored ? `/params/arguments/${mirrored.path.map(pointerToken).join('/')}` : '';
        const problem =
          value !== undefined
            ? encodingProblem(key, header, value)
            : /[^\x20-\x7E\t]/.test(header)
              ? `${key} carries raw non-ASCII or control characters; such a value must be sent as =?base64?…?=`
              : SENTINEL_ANY_CASE.test(header) && !SENTINEL.test(header)
                ? `${key} is ${JSON.stringify(header)}: the =?base64? and ?= markers are lowercase and exact`
                : undefined;
        if (problem) report(at, problem);
      }
    },
  },
  {
    // Needs the tool's inputSchema from a tools/list answer in the same session.
    id: 'HTTP-MCP-PARAM',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Client Behavior',
    title: 'Each x-mcp-header argument with a value is mirrored as Mcp-Param-{Name}',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const json = modernClientMessage(o, state);
      const x = exchangeOf(o, state);
      if (!json || json.method !== 'tools/call' || !('id' in json) || !x || !isObject(json.params)) return;
      const tool = state.tools.get(String(json.params.name));
      for (const p of (tool && headerParams(tool.inputSchema)) ?? []) {
        const value = valueAt(json.params.arguments, p.path);
        const header = headerOf(x.requestHeaders, `mcp-param-${p.name.toLowerCase()}`);
        const at = `/params/arguments/${p.path.map(pointerToken).join('/')}`;
        if (value === undefined || value === null) {
          if (header !== undefined)
            report(
              at,
              `Mcp-Param-${p.name} was sent although arguments.${p.path.join('.')} is ${value === null ? 'null' : 'absent'}; omit the header then`,
            );
          continue;
        }
        if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
        const expected = String(value);
        if (header === undefined) {
          report(
            at,
            `arguments.${p.path.join('.')} is ${JSON.stringify(value)} but the Mcp-Param-${p.name} header its x-mcp-header asks for is missing`,
          );
        } else if (!mustEncode(expected) || SENTINEL.test(header)) {
          // A value that needs Base64 but came raw is HTTP-B64-SENTINEL's.
          const sent = decodeHeaderValue(header);
          if (sent !== expected && !(typeof value === 'number' && Number(sent) === value))
            report(at, `Mcp-Param-${p.name} is ${JSON.stringify(sent)} but arguments.${p.path.join('.')} is ${JSON.stringify(value)}`);
        }
      }
    },
  },
];
