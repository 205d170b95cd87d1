import type { ExecutionContext } from 'ava';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import type { AttrValue, DecodedSpan } from './otlp.js';
import { SPAN_KIND_CLIENT, SPAN_KIND_SERVER } from './otlp-conventions.js';

/**
 * The spans a recording must give, derived from its traffic (the cassette's messages and the
 * headers its HTTP requests carried) by the OpenTelemetry MCP semantic conventions
 * (semantic-conventions-genai docs/gen-ai/mcp.md). Written from the conventions' text and the
 * JSON-RPC messages themselves, never through lib/telemetry/spans.ts, so that what `record
 * --otel` sent or `export` wrote can be held against it:
 * - one span per JSON-RPC request and notification (a batch's members each), named
 *   `{mcp.method.name} {target}` (the tool, prompt or resource), else the method;
 * - CLIENT for what the client sent (the proxy sits in the client's seat), SERVER for what the
 *   server sent;
 * - a request's span runs from the request to its answer, a notification's has no duration;
 * - a `params._meta.traceparent` makes the span a child of that span, in that trace.
 */
export interface ExpectedSpan {
  name: string;
  kind: number;
  attributes: Record<string, AttrValue>;
  /** The host's trace and span, from the request's traceparent; '' when it had none. */
  traceId: string;
  parentSpanId: string;
  /** Epoch milliseconds: the message that opened the span, and the answer that closed it. */
  start: number;
  end?: number;
}

export interface OracleOptions {
  /** `--include-payloads`: tools/call arguments and results ride on the span as JSON. */
  payloads?: boolean;
  /** The upstream server (HTTP): `server.address`/`server.port` on the client's spans. */
  server?: { address: string; port: number };
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

const W3C_TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;

/** The revision from which the conventions say `mcp.session.id` MUST NOT be set. */
const SESSIONLESS_FROM = '2026-07-28';

function header(headers: Record<string, string | string[]> | undefined, name: string): string | undefined {
  const v = headers?.[name];
  return Array.isArray(v) ? v[0] : v;
}

export function expectedSpans(session: RecordedSession, options: OracleOptions = {}): ExpectedSpan[] {
  const startedAt = Date.parse(session.startedAt);
  const http = session.transport === 'streamable-http';
  const requestHeaders = new Map((session.exchanges ?? []).map((x) => [x.id, x.requestHeaders]));
  // Every JSON-RPC message in order, a batch's members one by one.
  const flat: { fromClient: boolean; json: Json; time: number; exchange?: number }[] = [];
  for (const m of session.messages) {
    if (m.channel === 'stderr' || m.json === undefined) continue;
    for (const json of Array.isArray(m.json) ? m.json : [m.json])
      if (isObj(json) && json.jsonrpc === '2.0')
        flat.push({
          fromClient: m.direction === 'client-to-server',
          json,
          time: startedAt + m.t,
          ...(m.http ? { exchange: m.http.exchange } : {}),
        });
  }
  // The revision the initialize answer named.
  const initialize = flat.find((f) => f.fromClient && f.json.method === 'initialize');
  const initAnswer = initialize && flat.find((f) => !f.fromClient && f.json.method === undefined && f.json.id === initialize.json.id);
  const negotiated =
    isObj(initAnswer?.json.result) && typeof initAnswer.json.result.protocolVersion === 'string'
      ? initAnswer.json.result.protocolVersion
      : undefined;

  const out: ExpectedSpan[] = [];
  flat.forEach((f, i) => {
    const method = f.json.method;
    if (typeof method !== 'string') return;
    const params = isObj(f.json.params) ? f.json.params : {};
    const isRequest = typeof f.json.id === 'string' || typeof f.json.id === 'number';
    const attributes: Record<string, AttrValue> = { 'mcp.method.name': method };
    if (isRequest) attributes['jsonrpc.request.id'] = String(f.json.id);
    let target: string | undefined;
    if (method === 'tools/call' && typeof params.name === 'string') {
      target = params.name;
      attributes['gen_ai.tool.name'] = params.name;
      attributes['gen_ai.operation.name'] = 'execute_tool';
      if (options.payloads && params.arguments !== undefined) attributes['gen_ai.tool.call.arguments'] = JSON.stringify(params.arguments);
    } else if (method === 'prompts/get' && typeof params.name === 'string') {
      target = params.name;
      attributes['gen_ai.prompt.name'] = params.name;
    } else if (typeof params.uri === 'string' && (method.startsWith('resources/') || method === 'notifications/resources/updated')) {
      target = params.uri;
      attributes['mcp.resource.uri'] = params.uri;
    }
    const heard = f.exchange === undefined ? undefined : requestHeaders.get(f.exchange);
    const version = header(heard, 'mcp-protocol-version') ?? negotiated;
    if (version) attributes['mcp.protocol.version'] = version;
    const sessionId = header(heard, 'mcp-session-id');
    if (sessionId && !(version && version >= SESSIONLESS_FROM)) attributes['mcp.session.id'] = sessionId;
    attributes['network.transport'] = http ? 'tcp' : 'pipe';
    if (options.server && f.fromClient) {
      attributes['server.address'] = options.server.address;
      attributes['server.port'] = options.server.port;
    }
    // The answer: the first later message the other way with this id and no method.
    const answer = isRequest
      ? flat.slice(i + 1).find((a) => a.fromClient !== f.fromClient && a.json.method === undefined && a.json.id === f.json.id)
      : undefined;
    if (answer && isObj(answer.json.error)) {
      attributes['error.type'] = String(answer.json.error.code);
      attributes['rpc.response.status_code'] = String(answer.json.error.code);
    } else if (answer && method === 'tools/call' && isObj(answer.json.result)) {
      if (answer.json.result.isError === true) attributes['error.type'] = 'tool_error';
      else if (options.payloads) attributes['gen_ai.tool.call.result'] = JSON.stringify(answer.json.result);
    }
    const meta = isObj(params._meta) ? params._meta : {};
    const parent = typeof meta.traceparent === 'string' ? W3C_TRACEPARENT.exec(meta.traceparent) : null;
    out.push({
      name: target === undefined ? method : `${method} ${target}`,
      kind: f.fromClient ? SPAN_KIND_CLIENT : SPAN_KIND_SERVER,
      attributes,
      traceId: parent?.[1] ?? '',
      parentSpanId: parent?.[2] ?? '',
      start: f.time,
      ...(!isRequest ? { end: f.time } : answer ? { end: answer.time } : {}),
    });
  });
  return out;
}

/** What must match exactly: name, kind, every attribute, and the parent link (with its trace). */
export function spanShape(s: Pick<ExpectedSpan, 'name' | 'kind' | 'attributes' | 'traceId' | 'parentSpanId'>): string {
  return JSON.stringify([
    s.name,
    s.kind,
    Object.entries(s.attributes).sort(([a], [b]) => (a < b ? -1 : 1)),
    s.parentSpanId,
    s.parentSpanId ? s.traceId : '',
  ]);
}

/** Epoch milliseconds of an OTLP `*UnixNano` value. */
export const epochMs = (unixNano: string): number => Number(BigInt(unixNano) / 1000n) / 1000;

/**
 * The received spans are the expected ones (as a multiset of shapes), and each starts when the
 * message that opened it was heard and ends when its answer was, within `toleranceMs` (the two
 * times are taken at different points of the proxy's path).
 */
export function checkAgainstTraffic(t: ExecutionContext, received: DecodedSpan[], expected: ExpectedSpan[], toleranceMs: number): void {
  t.deepEqual(received.map(spanShape).sort(), expected.map(spanShape).sort(), 'the spans the traffic makes');
  const left = [...received];
  for (const e of expected) {
    const shape = spanShape(e);
    // The span of this shape nearest in time (notifications of one method may repeat).
    let best = -1;
    for (let i = 0; i < left.length; i++)
      if (
        spanShape(left[i]!) === shape &&
        (best === -1 ||
          Math.abs(epochMs(left[i]!.startTimeUnixNano) - e.start) < Math.abs(epochMs(left[best]!.startTimeUnixNano) - e.start))
      )
        best = i;
    if (best === -1) continue;
    const [r] = left.splice(best, 1);
    const start = epochMs(r!.startTimeUnixNano);
    const end = epochMs(r!.endTimeUnixNano);
    t.true(Math.abs(start - e.start) <= toleranceMs, `${e.name}: starts at ${start}, the message at ${e.start}`);
    if (e.end !== undefined) t.true(Math.abs(end - e.end) <= toleranceMs, `${e.name}: ends at ${end}, its answer at ${e.end}`);
  }
}
