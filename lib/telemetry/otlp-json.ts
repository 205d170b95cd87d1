import { createHash } from 'node:crypto';
import type { RecordedSession } from '../cassette/cassette.js';
import type { PayloadRedaction } from '../payload-redact.js';
import { packageVersion } from '../version.js';
import { McpSpanMapper, type AttributeValue, type Attributes, type McpSpanData, type SpanBase } from './spans.js';

/**
 * `export --format otlp-json`: a cassette's sessions as the OTLP File Exporter writes traces, one
 * `TracesData` JSON object per line (one line per session), which the Collector's `otlpjsonfile`
 * receiver reads. The OTLP/JSON encoding: trace and span ids as lowercase hex, 64-bit integers
 * (times, int attributes) as decimal strings, enums (span kind, status code) as integers, field
 * names in lowerCamelCase.
 */

/** The instrumentation scope every span of mcp-cassette carries. */
export const SCOPE_NAME = 'mcp-cassette';

/** OTLP `Span.SpanKind` and `Status.StatusCode` values. */
const SPAN_KIND = { server: 2, client: 3 } as const;
const STATUS_ERROR = 2;

/** The spans of one recorded session, in the order they started. */
export function sessionSpans(session: RecordedSession, payloads?: PayloadRedaction): McpSpanData[] {
  const startedAt = Date.parse(session.startedAt);
  const base: SpanBase = { transport: session.transport, ...(payloads ? { payloads } : {}) };
  if ('url' in session.target) {
    try {
      const url = new URL(session.target.url);
      base.server = { address: url.hostname, port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) };
    } catch {
      // a target URL that does not parse: no server.address
    }
  }
  const spans: McpSpanData[] = [];
  const mapper = new McpSpanMapper(base, (s) => spans.push(s));
  const timeOf = new Map<number, number>();
  for (const m of session.messages) {
    const time = startedAt + m.t;
    timeOf.set(m.seq, time);
    if (m.channel === 'stderr' || m.json === undefined) continue;
    mapper.message(m.direction, m.json, {
      time,
      seq: m.seq,
      ...(m.http ? { exchange: m.http.exchange } : {}),
      ...(session.mcpSessionId ? { sessionId: session.mcpSessionId } : {}),
      ...(session.protocol.revision ? { protocolVersion: session.protocol.revision } : {}),
    });
  }
  const last = session.messages.at(-1);
  mapper.finish(session.durationMs !== undefined ? startedAt + session.durationMs : startedAt + (last?.t ?? 0));
  for (const v of session.violations ?? []) mapper.violation(v, { seq: v.seq }, timeOf.get(v.seq) ?? startedAt);
  return spans.sort((a, b) => a.start - b.start);
}

/** 16 bytes (trace) or 8 bytes (span) of hex, the same for the same seed. */
function hexId(seed: string, bytes: 16 | 8): string {
  return createHash('sha256')
    .update(seed)
    .digest('hex')
    .slice(0, bytes * 2);
}

/** Epoch milliseconds as OTLP's nanoseconds, a decimal string. */
export function unixNano(ms: number): string {
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  return (BigInt(whole) * 1_000_000n + BigInt(nanos)).toString();
}

function anyValue(v: AttributeValue): Record<string, unknown> {
  if (typeof v === 'string') return { stringValue: v };
  return Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v };
}

function keyValues(attributes: Attributes): { key: string; value: Record<string, unknown> }[] {
  return Object.entries(attributes).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/** The resource: `service.name` from OTEL_SERVICE_NAME (else mcp-cassette), plus OTEL_RESOURCE_ATTRIBUTES. */
export function resourceAttributes(env: NodeJS.ProcessEnv = process.env): Attributes {
  const out: Attributes = {};
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) continue;
    try {
      out[decodeURIComponent(pair.slice(0, eq).trim())] = decodeURIComponent(pair.slice(eq + 1).trim());
    } catch {
      // a pair that is not percent-encoded properly is left out, as the SDK does
    }
  }
  out['service.name'] = env.OTEL_SERVICE_NAME || (out['service.name'] as string | undefined) || 'mcp-cassette';
  return out;
}

/** One session as one `TracesData` object. Ids are derived from the session id, so the same
 * cassette exports the same lines; a span whose request carried a `traceparent` joins that trace. */
export function tracesData(session: RecordedSession, spans: readonly McpSpanData[], resource: Attributes): unknown {
  const sessionTrace = hexId(`trace:${session.id}`, 16);
  return {
    resourceSpans: [
      {
        resource: { attributes: keyValues(resource) },
        scopeSpans: [
          {
            scope: { name: SCOPE_NAME, version: packageVersion() },
            spans: spans.map((s, i) => ({
              traceId: s.parent?.traceId ?? sessionTrace,
              spanId: hexId(`span:${session.id}:${i}`, 8),
              ...(s.parent ? { parentSpanId: s.parent.spanId } : {}),
              name: s.name,
              kind: SPAN_KIND[s.kind],
              startTimeUnixNano: unixNano(s.start),
              endTimeUnixNano: unixNano(s.end),
              attributes: keyValues(s.attributes),
              events: s.events.map((e) => ({ timeUnixNano: unixNano(e.time), name: e.name, attributes: keyValues(e.attributes) })),
              status: s.error ? { code: STATUS_ERROR, ...(s.error.message ? { message: s.error.message } : {}) } : {},
            })),
          },
        ],
      },
    ],
  };
}
