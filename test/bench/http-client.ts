/**
 * A Streamable HTTP client for the benchmarks (undici, keep-alive): `initialize` (keeping an
 * `Mcp-Session-Id` if the server gives one), then POSTed requests whose answers, JSON or SSE, are
 * read to the end and counted, never kept.
 */
import { Agent, request } from 'undici';
import { INITIALIZE_PARAMS } from './line-client.js';

/** `timeoutMs` bounds the wait for headers and between body chunks (0: none). */
export function agent(connections: number, timeoutMs = 0): Agent {
  return new Agent({ keepAliveTimeout: 60_000, connections, headersTimeout: timeoutMs, bodyTimeout: timeoutMs });
}

export interface Answer {
  status: number;
  bytes: number;
  contentType: string;
  /** ms from sending to the first and the last body byte. */
  firstByteMs: number;
  lastByteMs: number;
  /** The first bytes of the body (latin1). */
  head: string;
}

export class HttpSession {
  #id = 0;
  #session: string | undefined;
  contentType = '';

  constructor(
    readonly url: string,
    private readonly dispatcher: Agent,
  ) {}

  async open(): Promise<void> {
    const init = await this.post('initialize', INITIALIZE_PARAMS, true);
    if (init.status !== 200) throw new Error(`initialize through ${this.url} answered HTTP ${init.status}`);
    await this.post('notifications/initialized', undefined);
  }

  echo(n: number): Promise<Answer> {
    return this.post('tools/call', { name: 'echo', arguments: { n } });
  }

  /** Sends one message (a notification when `params` is undefined and it is not a request). */
  async post(
    method: string,
    params: unknown,
    keepSession = false,
    onChunk?: (chunk: Buffer, ms: number) => void,
    deadlineMs?: number,
  ): Promise<Answer> {
    const notification = method.startsWith('notifications/');
    const body = notification
      ? `{"jsonrpc":"2.0","method":"${method}"}`
      : `{"jsonrpc":"2.0","id":${++this.#id},"method":"${method}","params":${JSON.stringify(params ?? {})}}`;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (method !== 'initialize') headers['mcp-protocol-version'] = INITIALIZE_PARAMS.protocolVersion;
    if (this.#session) headers['mcp-session-id'] = this.#session;
    const t0 = performance.now();
    const res = await request(this.url, {
      method: 'POST',
      dispatcher: this.dispatcher,
      headers,
      body,
      ...(deadlineMs ? { signal: AbortSignal.timeout(deadlineMs) } : {}),
    });
    if (keepSession) {
      const sid = res.headers['mcp-session-id'];
      if (typeof sid === 'string') this.#session = sid;
    }
    let bytes = 0;
    let first = NaN;
    let head = '';
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      const ms = performance.now() - t0;
      if (bytes === 0) first = ms;
      if (head.length < 512) head += chunk.subarray(0, 512 - head.length).toString('latin1');
      bytes += chunk.length;
      onChunk?.(chunk, ms);
    }
    const contentType = String(res.headers['content-type'] ?? '').split(';')[0]!;
    if (!notification) this.contentType = contentType;
    if (!notification && res.statusCode !== 200) throw new Error(`${method} through ${this.url} answered HTTP ${res.statusCode}`);
    return { status: res.statusCode, bytes, contentType, firstByteMs: first, lastByteMs: performance.now() - t0, head };
  }
}
