import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type Histogram,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { detectResources, envDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import type { MetricsSink } from '../../lib/metrics.js';
import { SCOPE_NAME } from '../../lib/telemetry/otlp-json.js';
import type { McpSpanData } from '../../lib/telemetry/spans.js';
import { packageVersion } from '../../lib/version.js';
import type { SpanSink } from './span-feed.js';
import { otlpProtocol } from './otlp-protocol.js';

/**
 * The official OpenTelemetry JS SDK behind `record --otel`, loaded by dynamic import only then.
 * Spans go through a BatchSpanProcessor to the OTLP trace exporter, the duration histograms
 * through a PeriodicExportingMetricReader to the OTLP metric exporter; both exporters read the
 * standard OTEL_EXPORTER_OTLP_* variables themselves (endpoint, headers, timeout).
 */

/** The conventions' ExplicitBucketBoundaries for both operation-duration histograms. */
export const OPERATION_BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

function positiveInt(value: string | undefined, fallback: number): number {
  const n = Number(value);
  return Number.isInteger(n) && n > 0 ? n : fallback;
}

/** How long one export may take, retries included, unless the standard variables say otherwise. */
export const EXPORT_TIMEOUT_MS = 1500;

export interface OtelCounts {
  /** Spans handed to the batch processor. */
  queued: number;
  /** Spans dropped because the queue was full (the collector too slow or down). */
  dropped: number;
  /** Spans in exports that failed (collector down or refusing). */
  exportFailed: number;
  /** Spans still queued or in an export when the SDK was stopped (the end did not wait for them). */
  unsent: number;
}

/** Counts what the processor hands the exporter, so the queue's fill is known exactly. */
class CountingExporter implements SpanExporter {
  inFlight = 0;
  constructor(
    private readonly inner: SpanExporter,
    private readonly failed: (n: number, error: Error | undefined) => void,
  ) {}
  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.inner.export(spans, (result) => {
      this.inFlight -= spans.length;
      if (result.code !== ExportResultCode.SUCCESS) this.failed(spans.length, result.error);
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

export interface OtelSdk extends SpanSink {
  readonly counts: OtelCounts;
  /** Flushes spans and metrics, at most `timeoutMs`, then stops the SDK. */
  shutdown(timeoutMs: number): Promise<void>;
}

interface OtelOptions {
  metrics: MetricsSink;
  /** Called once, on the first failed export. */
  onExportError: (message: string) => void;
  env?: NodeJS.ProcessEnv;
}

type Resource = ReturnType<typeof resourceFromAttributes>;

export async function startOtelSdk(options: OtelOptions): Promise<OtelSdk> {
  const env = options.env ?? process.env;
  const tracesProtocol = otlpProtocol('TRACES', env);
  const metricsProtocol = otlpProtocol('METRICS', env);
  const [traceMod, metricMod] = await Promise.all([
    tracesProtocol === 'http/json' ? import('@opentelemetry/exporter-trace-otlp-http') : import('@opentelemetry/exporter-trace-otlp-proto'),
    metricsProtocol === 'http/json'
      ? import('@opentelemetry/exporter-metrics-otlp-http')
      : import('@opentelemetry/exporter-metrics-otlp-proto'),
  ]);
  // service.name is ours unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say otherwise.
  const resource = resourceFromAttributes({ 'service.name': 'mcp-cassette', 'service.version': packageVersion() }).merge(
    detectResources({ detectors: [envDetector] }),
  );
  const counts: OtelCounts = { queued: 0, dropped: 0, exportFailed: 0, unsent: 0 };
  let warned = false;
  const exporter = new CountingExporter(new traceMod.OTLPTraceExporter(exportTimeout('TRACES', env)), (n, error) => {
    counts.exportFailed += n;
    options.metrics.count('mcp_cassette_otel_spans_lost_total', { reason: 'export_failed' }, n);
    if (!warned) options.onExportError(error?.message ?? 'export failed');
    warned = true;
  });
  const maxQueueSize = positiveInt(env.OTEL_BSP_MAX_QUEUE_SIZE, 2048);
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [
      new BatchSpanProcessor(exporter, {
        maxQueueSize,
        maxExportBatchSize: Math.min(positiveInt(env.OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512), maxQueueSize),
        scheduledDelayMillis: positiveInt(env.OTEL_BSP_SCHEDULE_DELAY, 1000),
      }),
    ],
  });
  const tracer = tracerProvider.getTracer(SCOPE_NAME, packageVersion());
  const { meterProvider, durations } = durationMetrics(
    new metricMod.OTLPMetricExporter(exportTimeout('METRICS', env)) as PushMetricExporter,
    resource,
    env,
  );

  return {
    counts,
    send(span: McpSpanData): void {
      // The metric's attributes are the span's, bounded (lib/telemetry/metric-attributes.ts).
      if (span.request) durations[span.kind].record((span.end - span.start) / 1000, (span.metric ?? {}) as Attributes);
      // The queue is bounded: past it the span is dropped here, counted, and forwarding goes on.
      if (exporter.inFlight >= maxQueueSize) {
        counts.dropped += 1;
        options.metrics.count('mcp_cassette_otel_spans_lost_total', { reason: 'queue_full' });
        return;
      }
      const s = startSpan(tracer, span);
      if (s.isRecording()) {
        exporter.inFlight += 1;
        counts.queued += 1;
      }
      s.end(span.end);
    },
    async shutdown(timeoutMs: number): Promise<void> {
      const stop = Promise.allSettled([tracerProvider.shutdown(), meterProvider.shutdown()]);
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, timeoutMs);
        timer.unref();
      });
      await Promise.race([stop, late]);
      clearTimeout(timer);
      counts.unsent = exporter.inFlight;
    },
  };
}

/** An export (with its retries) gives up after OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT, or
 * EXPORT_TIMEOUT_MS when neither is set (the SDK's 10 s would keep the proxy alive that long after
 * its end while a collector is down). */
function exportTimeout(signal: string, env: NodeJS.ProcessEnv): { timeoutMillis?: number } {
  return env[`OTEL_EXPORTER_OTLP_${signal}_TIMEOUT`] || env.OTEL_EXPORTER_OTLP_TIMEOUT ? {} : { timeoutMillis: EXPORT_TIMEOUT_MS };
}

/** The two operation-duration histograms of the conventions, exported periodically. */
function durationMetrics(exporter: PushMetricExporter, resource: Resource, env: NodeJS.ProcessEnv) {
  const meterProvider = new MeterProvider({
    resource,
    readers: [new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: positiveInt(env.OTEL_METRIC_EXPORT_INTERVAL, 60_000) })],
  });
  const meter = meterProvider.getMeter(SCOPE_NAME, packageVersion());
  const histogram = (name: string, description: string): Histogram =>
    meter.createHistogram(name, { unit: 's', description, advice: { explicitBucketBoundaries: OPERATION_BUCKETS } });
  const durations = {
    client: histogram(
      'mcp.client.operation.duration',
      'The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.',
    ),
    server: histogram(
      'mcp.server.operation.duration',
      'MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.',
    ),
  };
  return { meterProvider, durations };
}

/** The span, started at its recorded time under its parent when it has one (the caller ends it). */
function startSpan(tracer: Tracer, span: McpSpanData): Span {
  const parent = span.parent
    ? trace.setSpanContext(ROOT_CONTEXT, {
        traceId: span.parent.traceId,
        spanId: span.parent.spanId,
        traceFlags: span.parent.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE,
        isRemote: true,
      })
    : ROOT_CONTEXT;
  const s = tracer.startSpan(
    span.name,
    { kind: span.kind === 'client' ? SpanKind.CLIENT : SpanKind.SERVER, startTime: span.start, attributes: span.attributes },
    parent,
  );
  for (const e of span.events) s.addEvent(e.name, e.attributes, e.time);
  if (span.error) s.setStatus({ code: SpanStatusCode.ERROR, ...(span.error.message ? { message: span.error.message } : {}) });
  return s;
}
