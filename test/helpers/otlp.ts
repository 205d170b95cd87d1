import { createServer, type IncomingMessage } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { ExecutionContext } from 'ava';
import { delay } from './proc.js';

/**
 * What an OpenTelemetry Collector's OTLP/HTTP receiver would take in, for tests (no Collector
 * installs here): a 127.0.0.1 server that keeps every POST, and decoders for both encodings. Both
 * go through the message types generated from opentelemetry-proto that @opentelemetry/
 * otlp-transformer shipped (installed as `otlp-proto-decoders`, a version that still has them):
 * protobuf bodies with `decode`, OTLP/JSON with `fromObject` (after the one way OTLP/JSON departs
 * from protobuf's JSON mapping: hex trace and span ids), then both read back with the same
 * `toObject`. Nothing here uses the project's own telemetry code.
 */

interface Decoder {
  decode(buf: Uint8Array): unknown;
  encode(message: unknown): { finish(): Uint8Array };
  fromObject(object: unknown): unknown;
  toObject(message: unknown, options: Record<string, unknown>): Record<string, unknown>;
}
const root = createRequire(import.meta.url)('otlp-proto-decoders/build/src/generated/root.js') as {
  opentelemetry: { proto: { collector: Record<string, Record<string, Record<string, Decoder>>> } };
};
const TRACE_REQUEST = root.opentelemetry.proto.collector.trace!.v1!.ExportTraceServiceRequest!;
const METRICS_REQUEST = root.opentelemetry.proto.collector.metrics!.v1!.ExportMetricsServiceRequest!;

export interface Post {
  path: string;
  contentType: string;
  body: Buffer;
}

export interface Receiver {
  url: string;
  posts: Post[];
  /** Waits (polling, bounded) until `ready` holds for what arrived. */
  until(ready: (posts: Post[]) => boolean, timeoutMs?: number): Promise<void>;
}

export async function startOtlpReceiver(t: ExecutionContext): Promise<Receiver> {
  const posts: Post[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push({ path: req.url ?? '', contentType: String(req.headers['content-type'] ?? ''), body: Buffer.concat(chunks) });
      const json = String(req.headers['content-type']).includes('json');
      res.writeHead(200, { 'content-type': json ? 'application/json' : 'application/x-protobuf' });
      res.end(json ? '{}' : '');
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    posts,
    async until(ready, timeoutMs = 20_000) {
      const end = Date.now() + timeoutMs;
      while (!ready(posts) && Date.now() < end) await delay(50);
    },
  };
}

export type AttrValue = string | number | boolean;

export interface DecodedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, AttrValue>;
  events: { name: string; timeUnixNano: string; attributes: Record<string, AttrValue> }[];
  status: { code: number; message: string };
  resource: Record<string, AttrValue>;
  scope: string;
}

type Obj = Record<string, unknown>;

function anyValue(v: Obj | undefined): AttrValue {
  if (!v) return '';
  if (typeof v.stringValue === 'string') return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return Number(v.doubleValue);
  if (v.boolValue !== undefined) return Boolean(v.boolValue);
  return JSON.stringify(v);
}

function attrs(list: unknown): Record<string, AttrValue> {
  const out: Record<string, AttrValue> = {};
  for (const kv of (list as Obj[] | undefined) ?? []) out[String(kv.key)] = anyValue(kv.value as Obj);
  return out;
}

/** Ids come base64 from protobuf's toObject. */
function hex(id: unknown): string {
  if (id === undefined || id === '') return '';
  return Buffer.from(String(id), 'base64').toString('hex');
}

const TO_OBJECT = { longs: String, enums: Number, bytes: String, defaults: false, arrays: true };

/** OTLP/JSON's ids (`traceId`, `spanId`, `parentSpanId`, in spans, links and exemplars) are
 * case-insensitive hex where protobuf's JSON mapping has base64 (the OTLP specification, "JSON
 * Protobuf Encoding"): as bytes for `fromObject`. An id that is not hex throws. */
function hexIdsAsBytes(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(hexIdsAsBytes);
  if (v === null || typeof v !== 'object') return v;
  return Object.fromEntries(
    Object.entries(v).map(([k, x]) => {
      if (!['traceId', 'spanId', 'parentSpanId'].includes(k) || typeof x !== 'string') return [k, hexIdsAsBytes(x)];
      if (!/^(?:[0-9a-fA-F]{2})*$/.test(x)) throw new Error(`OTLP/JSON ${k} ${JSON.stringify(x)} is not hex`);
      return [k, Buffer.from(x, 'hex')];
    }),
  );
}

/** An OTLP/JSON request read by the official message type (and written and read back as
 * protobuf, so it is a message that type can carry), as `toObject` gives it. */
function fromOtlpJson(type: Decoder, data: unknown): Obj {
  const message = type.fromObject(hexIdsAsBytes(data));
  return type.toObject(type.decode(type.encode(message).finish()), TO_OBJECT);
}

/** The spans of a TracesData / ExportTraceServiceRequest: OTLP/JSON as parsed (`json`), or
 * what the protobuf type's `toObject` gave. */
export function spansOf(data: Obj, json: boolean): DecodedSpan[] {
  if (json) return spansOf(fromOtlpJson(TRACE_REQUEST, data), false);
  const out: DecodedSpan[] = [];
  for (const rs of (data.resourceSpans as Obj[] | undefined) ?? [])
    for (const ss of (rs.scopeSpans as Obj[] | undefined) ?? [])
      for (const s of (ss.spans as Obj[] | undefined) ?? []) {
        const status = (s.status as Obj | undefined) ?? {};
        out.push({
          traceId: hex(s.traceId),
          spanId: hex(s.spanId),
          parentSpanId: hex(s.parentSpanId),
          name: String(s.name),
          kind: Number(s.kind),
          startTimeUnixNano: String(s.startTimeUnixNano),
          endTimeUnixNano: String(s.endTimeUnixNano),
          attributes: attrs(s.attributes),
          events: ((s.events as Obj[] | undefined) ?? []).map((e) => ({
            name: String(e.name),
            timeUnixNano: String(e.timeUnixNano),
            attributes: attrs(e.attributes),
          })),
          status: { code: Number(status.code ?? 0), message: String(status.message ?? '') },
          resource: attrs((rs.resource as Obj | undefined)?.attributes),
          scope: String((ss.scope as Obj | undefined)?.name ?? ''),
        });
      }
  return out;
}

export function decodeTraces(post: Post): DecodedSpan[] {
  if (post.contentType.includes('json')) return spansOf(JSON.parse(post.body.toString('utf8')) as Obj, true);
  return spansOf(TRACE_REQUEST.toObject(TRACE_REQUEST.decode(post.body), TO_OBJECT), false);
}

export interface DecodedHistogram {
  name: string;
  unit: string;
  points: { attributes: Record<string, AttrValue>; count: number; explicitBounds: number[] }[];
}

export function decodeHistograms(post: Post): DecodedHistogram[] {
  const json = post.contentType.includes('json');
  const data = json
    ? fromOtlpJson(METRICS_REQUEST, JSON.parse(post.body.toString('utf8')))
    : METRICS_REQUEST.toObject(METRICS_REQUEST.decode(post.body), TO_OBJECT);
  const out: DecodedHistogram[] = [];
  for (const rm of (data.resourceMetrics as Obj[] | undefined) ?? [])
    for (const sm of (rm.scopeMetrics as Obj[] | undefined) ?? [])
      for (const m of (sm.metrics as Obj[] | undefined) ?? []) {
        const h = m.histogram as Obj | undefined;
        if (!h) continue;
        out.push({
          name: String(m.name),
          unit: String(m.unit ?? ''),
          points: ((h.dataPoints as Obj[] | undefined) ?? []).map((p) => ({
            attributes: attrs(p.attributes),
            count: Number(p.count),
            explicitBounds: ((p.explicitBounds as unknown[] | undefined) ?? []).map(Number),
          })),
        });
      }
  return out;
}

/** Every span the receiver got on /v1/traces. */
export function receivedSpans(posts: Post[]): DecodedSpan[] {
  return posts.filter((p) => p.path.endsWith('/v1/traces')).flatMap(decodeTraces);
}

export function receivedHistograms(posts: Post[]): DecodedHistogram[] {
  return posts.filter((p) => p.path.endsWith('/v1/metrics')).flatMap(decodeHistograms);
}
