import type { RecordedSession } from '../../lib/cassette/cassette.js';
import type { JournalSink } from '../../lib/cassette/journal.js';
import { NO_METRICS, type MetricsSink } from '../../lib/metrics.js';
import type { CaptureArgs } from './capture-options.js';
import { isPassThrough } from './frame-transform.js';
import { CaptureFilter } from './journal-filter.js';
import { DeferredMetrics } from '../metrics/deferred-metrics.js';
import { countSampling, sampleCounts, sampleSessions, type SampleCounts } from './sampling.js';

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

  /** `metrics`: where the proxy's parts report; with --metrics-listen a sink that holds what
   * comes before `serve()` has loaded prom-client (the stdio proxy spawns its server first). */
  constructor(
    readonly args: CaptureArgs,
    readonly transport: 'stdio' | 'http',
  ) {
    this.metrics = args.metricsListen ? new DeferredMetrics() : NO_METRICS;
  }

  /** Starts the metrics endpoint when asked for (prom-client is loaded only then). */
  async serve(): Promise<void> {
    if (!this.args.metricsListen || !(this.metrics instanceof DeferredMetrics)) return;
    const { PrometheusMetrics, serveMetrics } = await import('../metrics/prometheus.js');
    const prometheus = new PrometheusMetrics(this.transport);
    const server = await serveMetrics(prometheus, this.args.metricsListen!.host, this.args.metricsListen!.port);
    this.metrics.connect(prometheus);
    this.metricsUrl = server.url;
    this.#close = () => server.close();
  }

  /** Puts the filter on a new journal (nothing when frames go to disk as they are and nobody
   * wants metrics). */
  attach(journal: JournalSink): void {
    if (isPassThrough(this.args.settings) && !this.metrics.enabled) return;
    journal.filter = new CaptureFilter(this.args.settings, this.metrics, this.transport);
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
    if (!this.args.sampling) return {};
    const s = this.sampled;
    return {
      sampling: {
        fraction: this.args.sampling.fraction,
        kept: s.kept,
        keptForViolations: s.keptForViolations,
        sampledOut: { sessions: s.sessionsOut, messages: s.messagesOut },
      },
    };
  }

  close(): Promise<void> {
    return this.#close();
  }
}
