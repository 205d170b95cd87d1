import type { ExecutionContext } from 'ava';
import type { DecodedSpan } from './otlp.js';

/**
 * The OpenTelemetry MCP semantic conventions (semantic-conventions-genai docs/gen-ai/mcp.md), as
 * checks on one decoded span: the attributes it may carry, the name format, kind, status, and
 * the events mcp-cassette adds. Written from the conventions' text, not from our mapping.
 */
const SPAN_ATTRIBUTES = new Set([
  'mcp.method.name',
  'mcp.protocol.version',
  'mcp.session.id',
  'mcp.resource.uri',
  'jsonrpc.request.id',
  'gen_ai.tool.name',
  'gen_ai.operation.name',
  'gen_ai.prompt.name',
  'error.type',
  'rpc.response.status_code',
  'network.transport',
  'server.address',
  'server.port',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
]);

export const SPAN_KIND_SERVER = 2;
export const SPAN_KIND_CLIENT = 3;

export function checkSpan(t: ExecutionContext, s: DecodedSpan, transport: 'stdio' | 'http'): void {
  const where = `${s.name} (${s.spanId})`;
  t.regex(s.traceId, /^[0-9a-f]{32}$/, where);
  t.notRegex(s.traceId, /^0+$/, where);
  t.regex(s.spanId, /^[0-9a-f]{16}$/, where);
  if (s.parentSpanId) t.regex(s.parentSpanId, /^[0-9a-f]{16}$/, where);
  t.true([SPAN_KIND_SERVER, SPAN_KIND_CLIENT].includes(s.kind), where);
  t.regex(s.startTimeUnixNano, /^\d{19}$/, where);
  t.true(BigInt(s.endTimeUnixNano) >= BigInt(s.startTimeUnixNano), where);
  for (const key of Object.keys(s.attributes)) t.true(SPAN_ATTRIBUTES.has(key), `${where}: ${key} is not an MCP span attribute`);
  const a = s.attributes;
  const method = a['mcp.method.name'];
  t.is(typeof method, 'string', `${where}: mcp.method.name is required`);
  const target = a['gen_ai.tool.name'] ?? a['gen_ai.prompt.name'] ?? a['mcp.resource.uri'];
  t.is(s.name, target === undefined ? String(method) : `${String(method)} ${String(target)}`, where);
  t.is(a['gen_ai.operation.name'], method === 'tools/call' ? 'execute_tool' : undefined, where);
  if (method === 'tools/call') t.is(typeof a['gen_ai.tool.name'], 'string', where);
  if (method === 'prompts/get') t.is(typeof a['gen_ai.prompt.name'], 'string', where);
  if (method === 'resources/read') t.is(typeof a['mcp.resource.uri'], 'string', where);
  if (a['jsonrpc.request.id'] !== undefined) t.is(typeof a['jsonrpc.request.id'], 'string', where);
  t.is(a['network.transport'], transport === 'stdio' ? 'pipe' : 'tcp', where);
  if (a['server.address'] !== undefined) t.true(Number.isInteger(a['server.port']), where);
  if (a['mcp.protocol.version'] !== undefined && String(a['mcp.protocol.version']) >= '2026-07-28')
    t.is(a['mcp.session.id'], undefined, `${where}: mcp.session.id MUST NOT be set on 2026-07-28`);
  // Span status ERROR exactly when error.type is present.
  t.is(s.status.code === 2, a['error.type'] !== undefined, where);
  if (a['rpc.response.status_code'] !== undefined) t.is(a['error.type'], a['rpc.response.status_code'], where);
  for (const e of s.events) {
    t.regex(e.timeUnixNano, /^\d{19}$/, where);
    if (e.name === 'mcp_cassette.violation') {
      t.is(typeof e.attributes['mcp_cassette.rule.id'], 'string', where);
      t.true(['error', 'warning', 'info'].includes(String(e.attributes['mcp_cassette.severity'])), where);
      t.is(typeof e.attributes['mcp_cassette.message'], 'string', where);
    } else t.true(e.name === 'notifications/progress' || e.name.endsWith('/list_changed'), `${where}: event ${e.name}`);
  }
}
