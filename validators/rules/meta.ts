import { isObject, since, type Rule } from '../rule.js';
import { marks, pointer } from '../walk.js';

const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const KEY = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`);
const EXEMPT = new Set(['traceparent', 'tracestate', 'baggage']);
/** The codes JSON-RPC 2.0 itself defines. */
const JSONRPC_CODES = new Set([-32700, -32600, -32601, -32602, -32603]);

const escape = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The same few `_meta` keys come in every message: their verdicts are kept (a bounded cache). */
const keyVerdicts = new Map<string, boolean>();
function validKey(key: string): boolean {
  let v = keyVerdicts.get(key);
  if (v === undefined) {
    v = EXEMPT.has(key) || KEY.test(key);
    if (keyVerdicts.size >= 1024) keyVerdicts.clear();
    keyVerdicts.set(key, v);
  }
  return v;
}

/** `_meta` keys, error code ranges, extension ids, icons (§1-2 of RULES.md). */
export const metaRules: Rule[] = [
  {
    id: 'ENV-META-KEYFORMAT', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §`_meta`',
    revisions: since('2025-06-18'),
    title: '`_meta` keys are an optional dotted prefix with "/" and a name of [A-Za-z0-9._-]',
    on: ['json'],
    check(o, report) {
      if (!o.json) return;
      for (const [meta, at] of marks(o.json).metas) {
        for (const key of Object.keys(meta)) if (!validKey(key)) report(`${pointer(at)}/${escape(key)}`, `_meta key ${JSON.stringify(key)} is not a valid key`);
      }
    },
  },
  {
    id: 'VER-EXT-ID', level: 'MUST', obs: '1', era: 'all', source: 'basic/versioning.mdx §Extension Negotiation',
    revisions: since('2026-07-28'),
    title: 'Extension ids carry a prefix and follow the `_meta` key rules',
    on: ['json'],
    check(o, report) {
      if (!o.json) return;
      const found: [Record<string, unknown>, string][] = [];
      const params = isObject(o.json.params) ? o.json.params : undefined;
      const caps = params && isObject(params._meta) ? params._meta['io.modelcontextprotocol/clientCapabilities'] : undefined;
      if (isObject(caps) && isObject(caps.extensions)) found.push([caps.extensions, '/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions']);
      const result = isObject(o.json.result) ? o.json.result : undefined;
      if (result && isObject(result.capabilities) && isObject(result.capabilities.extensions)) found.push([result.capabilities.extensions, '/result/capabilities/extensions']);
      for (const [ext, at] of found) {
        for (const id of Object.keys(ext)) if (!id.includes('/') || !KEY.test(id)) report(`${at}/${escape(id)}`, `extension id ${JSON.stringify(id)} needs a prefix (like io.example/name) and a valid name`);
      }
    },
  },
  {
    id: 'ENV-ERRCODE-LEGACYRANGE', level: 'SHOULD NOT', obs: '1', era: 'modern', source: 'basic/index.mdx §Error Codes',
    title: 'New implementations avoid -32000..-32019',
    on: ['error'],
    check(o, report) {
      const code = o.json && isObject(o.json.error) ? o.json.error.code : undefined;
      if (typeof code === 'number' && code <= -32000 && code >= -32019 && code !== -32002) report('/error/code', `error code ${code} is in -32000..-32019, to which receivers may give no meaning`);
    },
  },
  {
    id: 'ENV-ERRCODE-APPDEF', level: 'SHOULD', obs: '1', era: 'all', source: 'basic/index.mdx §Error Codes',
    title: 'Application-defined codes lie outside -32768..-32000',
    on: ['error'],
    check(o, report) {
      const code = o.json && isObject(o.json.error) ? o.json.error.code : undefined;
      if (typeof code === 'number' && code >= -32768 && code <= -32100 && !JSONRPC_CODES.has(code)) report('/error/code', `error code ${code} is inside the range JSON-RPC reserves; application codes lie outside -32768..-32000`);
    },
  },
  {
    id: 'ENV-ICON-SCHEME', level: 'MUST', obs: '1', era: 'all', source: 'basic/index.mdx §`icons`',
    revisions: since('2025-11-25'),
    title: 'Icon src is https: or data:',
    on: ['server-json'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      for (const [icon, at] of marks(o.json).icons) {
        const src = isObject(icon) ? icon.src : undefined;
        if (typeof src === 'string' && !/^(https|data):/i.test(src)) report(`${pointer(at)}/src`, `icon src ${JSON.stringify(src.slice(0, 60))} is neither https: nor data:; clients must reject it`);
      }
    },
  },
];
