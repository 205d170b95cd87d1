import type { Labels, MetricName, MetricsSink } from '../../lib/metrics.js';

/** Calls held before the real sink exists, past which the oldest are forgotten. */
const MAX_QUEUED = 10_000;

/**
 * A sink that exists from the first moment: the stdio proxy spawns its server before anything
 * is awaited, while the Prometheus sink (prom-client) loads afterwards. Calls made meanwhile are
 * queued and replayed once `connect` gives the real sink.
 */
export class DeferredMetrics implements MetricsSink {
  readonly enabled = true;
  #target: MetricsSink | undefined;
  #queue: ((sink: MetricsSink) => void)[] = [];

  connect(target: MetricsSink): void {
    this.#target = target;
    for (const call of this.#queue) call(target);
    this.#queue = [];
  }

  #call(call: (sink: MetricsSink) => void): void {
    if (this.#target) return call(this.#target);
    if (this.#queue.length >= MAX_QUEUED) this.#queue.shift();
    this.#queue.push(call);
  }

  count(name: MetricName, labels?: Labels, by = 1): void {
    this.#call((s) => s.count(name, labels, by));
  }

  observe(name: MetricName, value: number, labels?: Labels): void {
    this.#call((s) => s.observe(name, value, labels));
  }

  set(name: MetricName, value: number, labels?: Labels): void {
    this.#call((s) => s.set(name, value, labels));
  }
}
