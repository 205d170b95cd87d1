import type { RecordedSession } from '../../lib/cassette/cassette.js';
import type { JournalSink } from '../../lib/cassette/journal.js';
import type { LiveRef } from '../../lib/live-observer.js';
import { NO_METRICS, type MetricsSink } from '../../lib/metrics.js';
import type { Violation } from '../../lib/violation.js';
import type { CaptureArgs } from './capture-options.js';
import { isPassThrough } from './frame-transform.js';
import { CaptureFilter } from './journal-filter.js';
import { DeferredMetrics } from '../metrics/deferred-metrics.js';
import { sampleSessions, type SampleOutcome } from './sampling.js';
import { liveFeed } from '../../lib/view/live-feed.js';
import { LiveSource } from '../../lib/view/live-source.js';
import { startViewServer, type ViewServer } from '../../lib/view/view-server.js';

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
    if (args.uiListen) this.#ui = { source: new LiveSource(`record ${transport === 'http' ? 'Streamable HTTP' : 'stdio'} (live)`) };
  }

  /** --ui: the live view's traffic (bounded, lib/view/live-source.ts) and its server. */
  #ui: { source: LiveSource; server?: ViewServer } | undefined;

  /** Starts the live view (--ui) and the metrics endpoint when asked for (prom-client is loaded
   * only then). The view's URL goes to stderr: stdout of a stdio record is the protocol's. */
  async serve(): Promise<void> {
    if (this.#ui && !this.#ui.server) {
      const listen = this.args.uiListen!;
      const view = await startViewServer(this.#ui.source, { host: listen.host, port: listen.port, option: '--ui' });
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
   * wants metrics), and with --ui feeds the live view what the journal hears. */
  attach(journal: JournalSink): void {
    if (this.#ui) {
      const feed = liveFeed(this.#ui.source, this.transport === 'http' ? 'streamable-http' : 'stdio', this.#ui.source.title);
      const before = journal.onRecord;
      journal.onRecord = (record, line) => {
        before?.(record, line);
        feed.record(record);
      };
      // The live validator's violations reach the journal as events that onRecord does not hear.
      const event = journal.event.bind(journal);
      journal.event = (ev, fields, hold) => {
        if (ev === 'violation' && fields?.violation)
          feed.violation({ ...(fields.violation as Violation), ...(fields.ref ? { ref: fields.ref as LiveRef } : {}) });
        event(ev, fields, hold);
      };
    }
    if (isPassThrough(this.args.settings) && !this.metrics.enabled) return;
    journal.filter = new CaptureFilter(this.args.settings, this.metrics, this.transport);
  }

  /** The sessions of a folded journal that the cassette keeps (all without --sample). */
  select(sessions: RecordedSession[]): RecordedSession[] {
    if (!this.args.sampling) return sessions;
    const outcome: SampleOutcome = sampleSessions(sessions, this.args.sampling, this.metrics);
    this.sampled.kept += outcome.kept.length;
    this.sampled.keptForViolations += outcome.keptForViolations;
    this.sampled.sessionsOut += outcome.sampledOut.sessions;
    this.sampled.messagesOut += outcome.sampledOut.messages;
    return outcome.kept;
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

  async close(): Promise<void> {
    await this.#ui?.server?.close();
    return this.#close();
  }
}
