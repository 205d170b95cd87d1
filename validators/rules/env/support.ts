/** What the ENV rule files share: JSON-RPC checks, error codes and the `_meta` key verdicts (cached). */
import { isObject, type Rule } from '../../rule.js';
import { KEY } from '../support/messages.js';
import { pointerToken } from '../../../lib/json-pointer.js';

export const isRpc = (m?: Record<string, unknown>): m is Record<string, unknown> => m !== undefined && m.jsonrpc === '2.0';

export const onWire = (channel: string) => channel !== 'stderr';

export function errorCode(json?: Record<string, unknown>): number | undefined {
  const e = json && isObject(json.error) ? json.error : undefined;
  return e && typeof e.code === 'number' ? e.code : undefined;
}

const EXEMPT = new Set(['traceparent', 'tracestate', 'baggage']);

/** The codes JSON-RPC 2.0 itself defines. */
export const JSONRPC_CODES = new Set([-32700, -32600, -32601, -32602, -32603]);

/** The same few `_meta` keys come in every message: their verdicts are kept (a bounded cache). */
const keyVerdicts = new Map<string, boolean>();

export function validKey(key: string): boolean {
  let v = keyVerdicts.get(key);
  if (v === undefined) {
    v = EXEMPT.has(key) || KEY.test(key);
    if (keyVerdicts.size >= 1024) keyVerdicts.clear();
    keyVerdicts.set(key, v);
  }
  return v;
}

const KNOWN_META = new Set([
  'protocolVersion',
  'clientCapabilities',
  'clientInfo',
  'serverInfo',
  'logLevel',
  'subscriptionId',
  'related-task',
]);

export const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** ENV-META-RESERVED on one `_meta`: keys whose prefix's second label is MCP's (`io.modelcontextprotocol/`, `x.mcp/`) but whose name MCP does not define. */
export function reservedKeys(meta: Record<string, unknown> | undefined, at: string, report: Parameters<Rule['check']>[1]): void {
  if (!meta) return;
  for (const key of Object.keys(meta)) {
    if (isReserved(key)) report(`${at}/${pointerToken(key)}`, `${key} uses a prefix reserved for MCP but is not a key MCP defines`);
  }
}

/** The same few keys come in every message: their verdicts are kept (a bounded cache). */
const reservedVerdicts = new Map<string, boolean>();

function isReserved(key: string): boolean {
  let v = reservedVerdicts.get(key);
  if (v === undefined) {
    const slash = key.lastIndexOf('/');
    // No prefix, or a name MCP defines, is fine.
    const second = slash < 0 || KNOWN_META.has(key.slice(slash + 1)) ? undefined : key.slice(0, slash).split('.')[1];
    v = second === 'modelcontextprotocol' || second === 'mcp';
    if (reservedVerdicts.size >= 1024) reservedVerdicts.clear();
    reservedVerdicts.set(key, v);
  }
  return v;
}
