import { isSpecMethod, isSpecRevision } from '../mcp-spec.js';
import { errorCodeLabel, OTHER } from '../metrics.js';
import type { Attributes, McpSpanData } from './spans.js';

/**
 * The attributes of the operation-duration metrics (`record --otel`). The conventions list them
 * on the metrics; the rest of a span's (ids, URIs, payloads) are the span's only. Each value that
 * comes from the traffic is bounded, since every distinct combination is a time series a
 * collector and its backend keep: a value outside the bound is `_OTHER`, the conventions' word for
 * it. Spans themselves keep the values as they were (one span per operation costs the same
 * whatever its values).
 */
export const METRIC_KEYS = [
  'mcp.method.name',
  'error.type',
  'gen_ai.tool.name',
  'gen_ai.prompt.name',
  'rpc.response.status_code',
  'gen_ai.operation.name',
  'mcp.protocol.version',
  'network.transport',
  'server.address',
  'server.port',
] as const;

export const OTEL_OTHER = '_OTHER';

/** Tool and prompt names a server listed and that are metric values, at most this many each. */
export const MAX_LISTED_NAMES = 1000;

/** The names a server listed (tools/list, prompts/list), the first MAX_LISTED_NAMES of each. */
export class ListedNames {
  readonly tools = new Set<string>();
  readonly prompts = new Set<string>();

  /** Takes the names of a list answer. */
  listed(method: unknown, result: Record<string, unknown> | undefined): void {
    const [key, into] = method === 'tools/list' ? ['tools', this.tools] : method === 'prompts/list' ? ['prompts', this.prompts] : [];
    const items = key && result ? result[key] : undefined;
    if (!into || !Array.isArray(items)) return;
    for (const item of items) {
      if (into.size >= MAX_LISTED_NAMES) return;
      const name = (item as { name?: unknown } | null)?.name;
      if (typeof name === 'string') into.add(name);
    }
  }
}

const code = (v: unknown): string => (errorCodeLabel(Number(v)) === OTHER ? OTEL_OTHER : String(v));

/** A span's metric attributes, each bounded: a method some revision defines, a tool or prompt the
 * server listed, a known revision, a JSON-RPC reserved error code (or `tool_error`). */
export function metricAttributes(span: McpSpanData, names: ListedNames): Attributes {
  const out: Attributes = {};
  for (const k of METRIC_KEYS) if (span.attributes[k] !== undefined) out[k] = span.attributes[k];
  const bound = (key: string, known: (v: unknown) => boolean): void => {
    if (out[key] !== undefined && !known(out[key])) out[key] = OTEL_OTHER;
  };
  bound('mcp.method.name', isSpecMethod);
  bound('gen_ai.tool.name', (v) => names.tools.has(String(v)));
  bound('gen_ai.prompt.name', (v) => names.prompts.has(String(v)));
  bound('mcp.protocol.version', isSpecRevision);
  if (out['error.type'] !== undefined && out['error.type'] !== 'tool_error') out['error.type'] = code(out['error.type']);
  if (out['rpc.response.status_code'] !== undefined) out['rpc.response.status_code'] = code(out['rpc.response.status_code']);
  return out;
}
