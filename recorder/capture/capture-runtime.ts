import type { RecordedSession } from '../../lib/cassette/cassette.js';
import type { JournalSink } from '../../lib/cassette/journal.js';
import type { LiveRef } from '../../lib/live-observer.js';
import { NO_METRICS, type MetricsSink } from '../../lib/metrics.js';
import type { Violation } from '../../lib/violation.js';
import type { CaptureArgs } from './capture-options.js';
import { isPassThrough, maskedMessage, redactEventFields } from './frame-transform.js';
import { noRedactionCounts } from '../../lib/payload-redact.js';
import { CaptureFilter } from './journal-filter.js';
import { DeferredMetrics } from '../metrics/deferred-metrics.js';
import { countSampling, sampleCounts, sampleSessions, type SampleCounts } from './sampling.js';
import type { SpanFeed } from '../otel/span-feed.js';
import type { OtelSdk } from '../otel/otel-sdk.js';
import type { LiveSource } from '../../lib/view/live-source.js';
import type { ViewServer } from '../../lib/view/view-server.js';

/** What --otel and --ui need, loaded only when they are given (CaptureRuntime.create): a host's
 * server command loads nothing it does not use before its first answer. */
interface Optional {
  SpanFeed?: typeof SpanFeed;
  view?: typeof import('../../lib/view/live-feed.js') &
    typeof import('../../lib/view/live-source.js') &
    typeof import('../../lib/view/view-server.js');
}

/**
 * Production capture for one `record` run: the journal filter (redaction, capture level), the
 * sampling of folded sessions, and the metrics endpoint. `metrics` is the sink every other part
 * of the proxy reports to (rotation, retention, shed work: see lib/metrics.ts).
 */
export class CaptureRuntime {
  /** Totals over the run, for the end-of-session summary. */
  readonly sampled = { kept: 0, keptForViolations: 0, sessionsOut: 0, messagesOut: 0 };
  #close: () => Promise<void> = async () => {};
  metricsUrl: string | undefined;

  readonly metrics: MetricsSink;
  /** record --otel: the spans of what is written; the SDK joins it in serve(). */
  readonly otel: SpanFeed | undefined;
  #sdk: OtelSdk | undefined;

  /** A run's capture, with the modules its options need loaded. */
  static async create(args: CaptureArgs, transport: 'stdio' | 'http', upstream?: URL): Promise<CaptureRuntime> {
    const optional: Optional = {};
    if (args.otel) optional.SpanFeed = (await import('../otel/span-feed.js')).SpanFeed;
    if (args.uiListen) {
      const [feed, source, server] = await Promise.all([
        import('../../lib/view/live-feed.js'),
        import('../../lib/view/live-source.js'),
        import('../../lib/view/view-server.js'),
      ]);
      optional.view = { ...feed, ...source, ...server };
    }
    return new CaptureRuntime(args, transport, upstream, optional);
  }

  readonly #optional: Optional;

  /** `metrics`: where the proxy's parts report; with --metrics-listen a sink that holds what
   * comes before `serve()` has loaded prom-client (the stdio proxy spawns its server first).
   * `optional`: the modules of --otel and --ui (see `create`). */
  constructor(
    readonly args: CaptureArgs,
    readonly transport: 'stdio' | 'http',
    /** HTTP: the upstream endpoint (the spans' server.address and server.port). */
    upstream?: URL,
    optional: Optional = {},
  ) {
    this.#optional = optional;
    if ((args.otel && !optional.SpanFeed) || (args.uiListen && !optional.view))
      throw new Error('CaptureRuntime: --otel and --ui need their modules (use CaptureRuntime.create)');
    this.metrics = args.metricsListen ? new DeferredMetrics() : NO_METRICS;
    const server = upstream
      ? { address: upstream.hostname, port: Number(upstream.port || (upstream.protocol === 'https:' ? 443 : 80)) }
      : undefined;
    this.otel =
      args.otel && optional.SpanFeed
        ? new optional.SpanFeed(
            { transport: transport === 'stdio' ? 'stdio' : 'streamable-http', ...(server ? { server } : {}) },
            // The spans are made from the frames as they crossed (before the filter masked
            // them): the recording's whole redaction, paths included, applies to what goes on a span.
            args.otel.includePayloads ? args.settings.redaction : undefined,
          )
        : undefined;
    if (optional.view)
      this.#ui = { source: new optional.view.LiveSource(`record ${transport === 'http' ? 'Streamable HTTP' : 'stdio'} (live)`) };
  }

  /** --ui: the live view's traffic (bounded, lib/view/live-source.ts) and its server. */
  #ui: { source: LiveSource; server?: ViewServer } | undefined;

  /** Loads the OpenTelemetry SDK when --otel asks for it (never otherwise: cold start is unchanged). */
  async startOtel(onExportError: (message: string) => void): Promise<void> {
    if (!this.otel || this.#sdk) return;
    const { startOtelSdk } = await import('../otel/otel-sdk.js');
    this.#sdk = await startOtelSdk({ metrics: this.metrics, onExportError });
    this.otel.connect(this.#sdk);
  }

  /** Starts the live view (--ui) and the metrics endpoint when asked for (prom-client is loaded
   * only then). The view's URL goes to stderr: stdout of a stdio record is the protocol's. */
  async serve(): Promise<void> {
    if (this.#ui && !this.#ui.server) {
      const listen = this.args.uiListen!;
      const view = await this.#optional.view!.startViewServer(this.#ui.source, { host: listen.host, port: listen.port, option: '--ui' });
      this.#ui.server = view;
      process.stderr.write(`mcp-cassette: live view at ${view.url}\n`);
    }
    await this.#serveMetrics();
  }

  async #serveMetrics(): Promise<void> {
    if (!this.args.metricsListen || !(this.metrics instanceof DeferredMetrics)) return;
    const { PrometheusMetrics, serveMetrics } = await import('../metrics/prometheus.js');
    const prometheus = new PrometheusMetrics(this.transport);
    const server = await serveMetrics(prometheus, this.args.metricsListen!.host, this.args.metricsListen!.port);
    this.metrics.connect(prometheus);
    this.metricsUrl = server.url;
    this.#close = () => server.close();
  }

  /** Puts the filter on a new journal (nothing when frames go to disk as they are and nobody
   * wants metrics or spans), and with --ui feeds the live view what the journal hears (its
   * sessions named by `sessionId`, the journal's, as the cassette names them). */
  attach(journal: JournalSink, sessionId: string): void {
    if (this.#ui) {
      const feed = this.#optional.view!.liveFeed(
        this.#ui.source,
        this.transport === 'http' ? 'streamable-http' : 'stdio',
        this.#ui.source.title,
        sessionId,
        isPassThrough(this.args.settings) ? undefined : (m) => maskedMessage(this.args.settings, m),
      );
      const before = journal.onRecord;
      journal.onRecord = (record, line) => {
        before?.(record, line);
        feed.record(record);
      };
      // The live validator's violations reach the journal as events that onRecord does not hear.
      const event = journal.event.bind(journal);
      journal.event = (ev, fields, hold) => {
        // Masked as the journal will keep it: a verdict's message may quote the traffic.
        if (ev === 'violation' && fields?.violation) {
          const v = redactEventFields(this.args.settings, fields.violation, noRedactionCounts()) as Violation;
          feed.violation({ ...v, ...(fields.ref ? { ref: fields.ref as LiveRef } : {}) });
        }
        event(ev, fields, hold);
      };
    }
    if (isPassThrough(this.args.settings) && !this.metrics.enabled && !this.otel) return;
    journal.filter = new CaptureFilter(this.args.settings, this.metrics, this.transport, this.otel?.observer());
  }

  /** The sessions of a folded journal that the cassette keeps (all without --sample). */
  select(sessions: RecordedSession[]): RecordedSession[] {
    if (!this.args.sampling) return sessions;
    const outcome = sampleSessions(sessions, this.args.sampling);
    this.addSampling(sampleCounts(outcome));
    return outcome.kept;
  }

  /** Adds what one sampling decided (here, or in a rotation's fold worker) to the run's totals
   * and the metrics. */
  addSampling(c: SampleCounts): void {
    this.sampled.kept += c.kept;
    this.sampled.keptForViolations += c.keptForViolations;
    this.sampled.sessionsOut += c.sessionsOut;
    this.sampled.messagesOut += c.messagesOut;
    countSampling(c, this.metrics);
  }

  /** The summary's fields on sampling (none without --sample). */
  summary(): Record<string, unknown> {
    const otel = this.otelSummary();
    if (!this.args.sampling) return otel ? { otel } : {};
    const s = this.sampled;
    return {
      ...(otel ? { otel } : {}),
      sampling: {
        fraction: this.args.sampling.fraction,
        kept: s.kept,
        keptForViolations: s.keptForViolations,
        sampledOut: { sessions: s.sessionsOut, messages: s.messagesOut },
      },
    };
  }

  /** What --otel sent and lost so far (undefined without --otel). */
  otelSummary(): { spans: number; dropped: number; exportFailed: number; unsent: number } | undefined {
    if (!this.otel) return undefined;
    const c = this.#sdk?.counts;
    return {
      spans: c?.queued ?? 0,
      dropped: this.otel.dropped + (c?.dropped ?? 0),
      exportFailed: c?.exportFailed ?? 0,
      unsent: c?.unsent ?? 0,
    };
  }

  /** Sends what is held and stops the SDK (at most 2 s: a collector that is down delays the end
   * no longer), then the live view and the metrics endpoint. */
  async close(): Promise<void> {
    if (this.otel && this.#sdk) {
      this.otel.drain();
      await this.#sdk.shutdown(2000);
    }
    await this.#ui?.server?.close();
    return this.#close();
  }
}
