import { errorCodeLabel, methodLabel, type MetricsSink } from '../../lib/metrics.js';
import { isObject } from '../../lib/plain-object.js';

interface Pending {
  /** The method's label (methodLabel). */
  method: string;
  t: number;
  key: string;
}

/** Requests waiting for their response are forgotten past this many (a peer that never answers). */
const MAX_PENDING = 10_000;

/**
 * Request counts and durations for the metrics, from the messages the capture filter sees: a
 * client request is timed from the moment it crossed the proxy to its response (OpenTelemetry's
 * `mcp.client.operation.duration`, as a client would measure it); requests the server sends are
 * counted. On HTTP a response to a client request comes back in the same exchange, so the key
 * is the exchange and the id; on stdio, the id.
 */
export class OperationTimer {
  readonly #pending = new Map<string, Pending>();
  readonly #transport: string;

  constructor(
    private readonly metrics: MetricsSink,
    transport: 'stdio' | 'http',
  ) {
    this.#transport = transport === 'stdio' ? 'pipe' : 'tcp';
  }

  frame(direction: 'client-to-server' | 'server-to-client', json: unknown, t: number, exchange?: number): void {
    if (Array.isArray(json)) {
      for (const m of json) this.frame(direction, m, t, exchange);
      return;
    }
    if (!isObject(json) || json.jsonrpc !== '2.0') return;
    const fromClient = direction === 'client-to-server';
    const hasId = typeof json.id === 'string' || typeof json.id === 'number';
    if (typeof json.method === 'string') {
      // The method as sent is the client's to choose: only the spec's methods are labels of their own.
      const method = methodLabel(json.method);
      this.metrics.count('mcp_cassette_requests_total', { mcp_method_name: method, sender: fromClient ? 'client' : 'server' });
      if (!hasId) return;
      const key = fromClient ? `c:${exchange ?? ''}:${JSON.stringify(json.id)}` : `s:${JSON.stringify(json.id)}`;
      if (this.#pending.size >= MAX_PENDING) this.#pending.delete(this.#pending.keys().next().value!);
      this.#pending.set(key, { method, t, key });
      return;
    }
    if (!hasId) return;
    const key = fromClient ? `s:${JSON.stringify(json.id)}` : `c:${exchange ?? ''}:${JSON.stringify(json.id)}`;
    const request = this.#pending.get(key);
    if (!request) return;
    this.#pending.delete(key);
    if (fromClient) return; // the server's own request: counted, not timed
    const error = isObject(json.error)
      ? errorCodeLabel(json.error.code)
      : isObject(json.result) && json.result.isError === true
        ? 'tool_error'
        : '';
    this.metrics.observe('mcp_client_operation_duration_seconds', Math.max(0, t - request.t) / 1000, {
      mcp_method_name: request.method,
      error_type: error,
      network_transport: this.#transport,
    });
  }

  /** An HTTP exchange ended: its client requests still waiting will get no response there. */
  exchangeEnd(exchange: number | undefined): void {
    if (exchange === undefined) return;
    const prefix = `c:${exchange}:`;
    for (const key of this.#pending.keys()) if (key.startsWith(prefix)) this.#pending.delete(key);
  }
}
