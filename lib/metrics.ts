/**
 * The metrics a recording proxy reports, by name, and the small interface every part of the
 * proxy feeds them through. The names follow the OpenTelemetry MCP semantic conventions where
 * one exists (`mcp.client.operation.duration` becomes `mcp_client_operation_duration_seconds`,
 * attributes become labels: `mcp.method.name` is `mcp_method_name`); the rest are ours, under
 * `mcp_cassette_`. recorder/metrics/prometheus.ts serves them (prom-client) at `/metrics`; code
 * that has nothing to report to gets NO_METRICS, which costs nothing.
 *
 * To add a metric: one entry in METRICS (name, kind, help, labels); then call `count`,
 * `observe` or `set` with that name wherever the thing happens.
 */
import { isSpecMethod } from './mcp-spec.js';

export type MetricKind = 'counter' | 'histogram' | 'gauge';

export interface MetricSpec {
  kind: MetricKind;
  help: string;
  labels: readonly string[];
  /** Histograms: bucket upper bounds. */
  buckets?: readonly number[];
}

/** Request latencies from 0.5 ms to a minute: MCP tool calls range from local lookups to LLM calls. */
const DURATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export const METRICS = {
  mcp_client_operation_duration_seconds: {
    kind: 'histogram',
    help: 'MCP request duration as the proxy saw it, from the request leaving the client to its response (OpenTelemetry mcp.client.operation.duration); methods the spec does not define are "other"',
    labels: ['mcp_method_name', 'error_type', 'network_transport'],
    buckets: DURATION_BUCKETS,
  },
  mcp_cassette_requests_total: {
    kind: 'counter',
    help: 'JSON-RPC requests that crossed the proxy, by method (methods the spec does not define: "other") and by who sent them (client or server)',
    labels: ['mcp_method_name', 'sender'],
  },
  mcp_cassette_violations_total: {
    kind: 'counter',
    help: 'Spec violations the live validator raised, by rule and severity',
    labels: ['rule', 'severity'],
  },
  mcp_cassette_recorded_messages_total: {
    kind: 'counter',
    help: 'Frames written to the journal (after redaction and the capture level), by channel',
    labels: ['channel'],
  },
  mcp_cassette_recorded_bytes_total: {
    kind: 'counter',
    help: 'Bytes of traffic written to the journal (after redaction and the capture level), by channel',
    labels: ['channel'],
  },
  mcp_cassette_redacted_values_total: {
    kind: 'counter',
    help: 'Values masked before they reached the disk, by what masked them (secret, path, value)',
    labels: ['by'],
  },
  mcp_cassette_sessions_kept_total: {
    kind: 'counter',
    help: 'Sessions (stateless HTTP: exchanges) written to a cassette',
    labels: ['reason'],
  },
  mcp_cassette_sessions_sampled_out_total: {
    kind: 'counter',
    help: 'Sessions (stateless HTTP: exchanges) not written to a cassette because --sample left them out',
    labels: [],
  },
  mcp_cassette_messages_sampled_out_total: { kind: 'counter', help: 'Messages of the sessions --sample left out', labels: [] },
  mcp_cassette_work_shed_total: {
    kind: 'counter',
    help: 'Work the proxy shed under load (forwarding untouched): bytes of traffic the live validator did not judge live (what="bytes", as it sheds), and those messages (what="messages", counted when the cassette write judged them)',
    labels: ['what'],
  },
  mcp_cassette_unrecorded_total: {
    kind: 'counter',
    help: 'Traffic not recorded while recording was paused (full or unwritable cassette directory; traffic went on), in bytes and in messages (unit), by reason (no_space, unwritable)',
    labels: ['unit', 'reason'],
  },
  mcp_cassette_cassettes_rotated_total: {
    kind: 'counter',
    help: 'Cassettes of --cassette-dir closed and written, by what closed them (size, interval, sessions; end: the recording ended)',
    labels: ['trigger'],
  },
  mcp_cassette_cassettes_pruned_total: {
    kind: 'counter',
    help: 'Closed cassettes deleted by retention, by rule (keep-files, keep-age, keep-bytes)',
    labels: ['rule'],
  },
  mcp_cassette_otel_spans_lost_total: {
    kind: 'counter',
    help: 'record --otel: spans not delivered to the OTLP endpoint, by reason (queue_full: the bounded queue was full; export_failed: the collector was down or refused)',
    labels: ['reason'],
  },
  mcp_cassette_recording_paused: {
    kind: 'gauge',
    help: '1 while recording is paused because writes fail (full or unwritable disk), else 0',
    labels: [],
  },
  mcp_cassette_build_info: {
    kind: 'gauge',
    help: 'Always 1; the labels say which mcp-cassette and transport this proxy is',
    labels: ['version', 'network_transport'],
  },
} as const satisfies Record<string, MetricSpec>;

export type MetricName = keyof typeof METRICS;
export type Labels = Record<string, string>;

/** What the proxy's parts report through; one implementation serves Prometheus, NO_METRICS
 * drops everything. */
export interface MetricsSink {
  /** Adds `by` (default 1) to a counter. */
  count(name: MetricName, labels?: Labels, by?: number): void;
  /** Records one observation of a histogram (seconds for durations). */
  observe(name: MetricName, value: number, labels?: Labels): void;
  /** Sets a gauge. */
  set(name: MetricName, value: number, labels?: Labels): void;
  /** False for NO_METRICS: lets a caller skip work (parsing a frame) done only for metrics. */
  readonly enabled: boolean;
}

export const NO_METRICS: MetricsSink = { count() {}, observe() {}, set() {}, enabled: false };

/**
 * Label values that come from the traffic are bounded: every distinct value is a series of its
 * own, which Prometheus keeps in memory, and a client (or a server) can send any `method` or
 * error code it likes. A value outside the bound is OTHER.
 */
export const OTHER = 'other';

/** `mcp_method_name`: a method some revision of the specification defines (lib/mcp-spec.ts), else
 * OTHER. */
export function methodLabel(method: string): string {
  return isSpecMethod(method) ? method : OTHER;
}

/** JSON-RPC's reserved error codes (-32768 to -32000): the spec's and the SDKs' are all there. */
const RESERVED_MIN = -32768;
const RESERVED_MAX = -32000;

/** `error_type` of a JSON-RPC error: its code when it is an integer in JSON-RPC's reserved range
 * (769 values at most, a handful in practice), else OTHER. */
export function errorCodeLabel(code: unknown): string {
  return Number.isInteger(code) && (code as number) >= RESERVED_MIN && (code as number) <= RESERVED_MAX ? String(code) : OTHER;
}
