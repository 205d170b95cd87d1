import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { bracketHost, listenOn } from '../../lib/listen.js';
import { liveValidationStats } from '../../lib/live-stats.js';
import { METRICS, type Labels, type MetricName, type MetricsSink } from '../../lib/metrics.js';
import { packageVersion } from '../../lib/version.js';

type Metric = Counter | Histogram | Gauge;

/** The metrics of lib/metrics.ts in a prom-client registry, with the process's own (CPU, memory,
 * event-loop lag, handles: prom-client's default metrics). */
export class PrometheusMetrics implements MetricsSink {
  readonly enabled = true;
  readonly registry = new Registry();
  readonly #metrics = new Map<MetricName, Metric>();

  constructor(transport: 'stdio' | 'http') {
    for (const [name, spec] of Object.entries(METRICS) as [MetricName, (typeof METRICS)[MetricName]][]) {
      const common = { name, help: spec.help, labelNames: [...spec.labels], registers: [this.registry] };
      const metric =
        spec.kind === 'counter'
          ? new Counter({ ...common, ...(name === 'mcp_cassette_work_shed_total' ? { collect: shedBytesCollector() } : {}) })
          : spec.kind === 'gauge'
            ? new Gauge(common)
            : new Histogram({ ...common, buckets: [...('buckets' in spec ? spec.buckets : [])] });
      this.#metrics.set(name, metric);
    }
    collectDefaultMetrics({ register: this.registry });
    this.set('mcp_cassette_build_info', 1, { version: packageVersion(), network_transport: transport === 'stdio' ? 'pipe' : 'tcp' });
    this.set('mcp_cassette_recording_paused', 0);
  }

  count(name: MetricName, labels: Labels = {}, by = 1): void {
    (this.#metrics.get(name) as Counter).inc(labels, by);
  }

  observe(name: MetricName, value: number, labels: Labels = {}): void {
    (this.#metrics.get(name) as Histogram).observe(labels, value);
  }

  set(name: MetricName, value: number, labels: Labels = {}): void {
    (this.#metrics.get(name) as Gauge).set(labels, value);
  }
}

/**
 * `mcp_cassette_work_shed_total{what="bytes"}`: the traffic the live validator did not judge live
 * because it shed (lib/live-stats.ts counts it as it happens, on the forwarding thread), read at
 * each scrape. The messages it stands for are counted (`what="messages"`) once the cassette write
 * has judged them, which is the end of a run: a scrape sees the shedding while it goes on here.
 */
function shedBytesCollector(): (this: Counter) => void {
  const stats = liveValidationStats();
  let counted = 0;
  return function collect(this: Counter): void {
    const now = stats.shedBytes;
    if (now > counted) this.inc({ what: 'bytes' }, now - counted);
    counted = Math.max(counted, now);
  };
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/** Serves `/metrics` (Prometheus text) and `/healthz` (200 `ok` while the proxy runs). */
export async function serveMetrics(metrics: PrometheusMetrics, host: string, port: number): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path === '/healthz') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end('ok\n');
      return;
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found: try /metrics or /healthz\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      (err: Error) => res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`${err.message}\n`),
    );
  });
  server.keepAliveTimeout = 5_000;
  await listenOn(server, port, host, '--metrics-listen');
  server.unref(); // never what keeps the proxy alive
  const address = server.address() as AddressInfo;
  return {
    url: `http://${bracketHost(address.address)}:${address.port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
