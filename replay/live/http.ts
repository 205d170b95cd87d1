/**
 * One replayed Streamable HTTP session against a live MCP endpoint (undici). Each recorded
 * request body is POSTed with the recorded request's MCP headers; JSON answers and every SSE
 * event's data are handed to the player as they arrive, so server→client requests inside an SSE
 * stream can be answered while that stream is still open. A 2025 `Mcp-Session-Id` is taken from
 * the live server's answer and sent instead of the recorded one.
 */
import { Agent, request } from 'undici';
import type { HttpExchange, HttpHeaders } from '../../lib/cassette/cassette.js';
import { SseSplitter, sseFields } from '../../lib/framing/sse-splitter.js';
import type { RecordedMessage } from '../../lib/message.js';
import { redactHeaderValues } from '../../lib/redact.js';
import type { LiveConnection } from './connection.js';
import type { LiveTape } from './tape.js';

/** Headers that describe the recorded connection rather than the MCP request. */
const DROP = new Set(['host', 'connection', 'keep-alive', 'content-length', 'transfer-encoding', 'accept-encoding', 'upgrade', 'te', 'trailer', 'proxy-connection', 'last-event-id', 'mcp-session-id']);

export interface HttpOptions {
  url: string;
  agent: Agent;
  /** Extra headers for every request (e.g. a real Authorization instead of a redacted one). */
  headers?: Record<string, string>;
  /** Keeps every exchange and frame, for `--update`; response headers with these names are masked. */
  tape?: { tape: LiveTape; secretHeaders: readonly string[] };
}

export class HttpConnection implements LiveConnection {
  onMessage: (message: unknown) => void = () => {};
  onFailure: LiveConnection['onFailure'] = () => {};
  onStatus?: LiveConnection['onStatus'];
  /** Recorded headers that were not replayed because the cassette holds them redacted. */
  readonly redactedHeaders = new Set<string>();
  #sessionId: string | undefined;
  readonly #inflight = new Set<Promise<void>>();
  readonly #abort = new AbortController();
  #closed = false;

  constructor(private readonly options: HttpOptions) {}

  send(message: Record<string, unknown>, recorded: RecordedMessage, exchange?: HttpExchange): void {
    const p = this.#post(message, recorded, exchange).finally(() => this.#inflight.delete(p));
    this.#inflight.add(p);
  }

  #headers(recorded: HttpHeaders | undefined): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(recorded ?? {})) {
      const n = name.toLowerCase();
      if (DROP.has(n)) continue;
      const v = Array.isArray(value) ? value.join(', ') : value;
      if (v.includes('[REDACTED]')) {
        this.redactedHeaders.add(n);
        continue;
      }
      out[n] = v;
    }
    out['content-type'] = 'application/json';
    out.accept ??= 'application/json, text/event-stream';
    if (this.#sessionId !== undefined) out['mcp-session-id'] = this.#sessionId;
    for (const [k, v] of Object.entries(this.options.headers ?? {})) out[k.toLowerCase()] = v;
    return out;
  }

  /** The exchange `--update` will store for this POST: the recorded request headers (already
   * redacted; never the --header values, which may be real secrets) with the live session id. */
  #tapeExchange(body: string, recorded: RecordedMessage, exchange: HttpExchange | undefined): HttpExchange | undefined {
    const tape = this.options.tape?.tape;
    if (!tape) return undefined;
    const id = exchange?.id ?? recorded.http?.exchange ?? Math.max(0, ...tape.exchanges.map((x) => x.id)) + 1;
    const requestHeaders: HttpHeaders = { ...(exchange?.requestHeaders ?? { 'content-type': 'application/json' }) };
    delete requestHeaders['mcp-session-id'];
    if (this.#sessionId !== undefined) requestHeaders['mcp-session-id'] = this.#sessionId;
    const record: HttpExchange = {
      id, t: tape.now(), method: 'POST', path: exchange?.path ?? new URL(this.options.url).pathname, requestHeaders, outcome: 'complete', mcp: true,
      // What the recorded token claimed: the request headers stored are the recorded ones too.
      ...(exchange?.tokenClaims ? { tokenClaims: exchange.tokenClaims } : {}),
    };
    tape.exchanges.push(record);
    tape.http(Buffer.from(body, 'utf8'), 'client-to-server', { exchange: id, part: 'request' });
    return record;
  }

  async #post(message: Record<string, unknown>, recorded: RecordedMessage, exchange?: HttpExchange): Promise<void> {
    let res: Awaited<ReturnType<typeof request>>;
    const body = JSON.stringify(message);
    const headers = this.#headers(exchange?.requestHeaders);
    const taped = this.#tapeExchange(body, recorded, exchange);
    const tape = this.options.tape?.tape;
    try {
      res = await request(this.options.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.options.agent,
        signal: this.#abort.signal,
      });
    } catch (err) {
      if (taped) Object.assign(taped, { outcome: 'upstream-error', endT: tape!.now(), error: (err as Error).message });
      if (this.#closed) return;
      const cause = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code ?? '';
      this.onFailure({ code: 'MCPC_REPLAY_HTTP_FAILED', message: `could not reach ${this.options.url}: ${(err as Error).message}${cause ? ` (${cause})` : ''}; is the server running and is --url right?` });
      return;
    }
    const sid = res.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      this.#sessionId = sid;
      if (tape) tape.mcpSessionId = sid;
    }
    if (exchange?.status !== undefined && exchange.status !== res.statusCode) this.onStatus?.(recorded, exchange.status, res.statusCode);
    const type = String(res.headers['content-type'] ?? '');
    if (taped) {
      taped.status = res.statusCode;
      taped.responseHeaders = redactHeaderValues(res.headers, this.options.tape!.secretHeaders);
      if (type) taped.contentType = type;
    }
    try {
      if (type.includes('text/event-stream')) {
        const splitter = new SseSplitter((event) => {
          if (taped) tape!.http(Buffer.from(event.data, 'utf8'), 'server-to-client', { exchange: taped.id, part: 'sse', sse: sseFields(event) });
          if (!event.hasData || event.data.trim() === '') return;
          this.#emit(event.data, message, res.statusCode);
        });
        for await (const chunk of res.body) splitter.push(chunk as Buffer);
        splitter.end();
      } else {
        const bytes = Buffer.from(await res.body.arrayBuffer());
        const text = bytes.toString('utf8');
        if (taped && bytes.length > 0) tape!.http(bytes, 'server-to-client', { exchange: taped.id, part: 'response' });
        if (text.trim() !== '') this.#emit(text, message, res.statusCode);
        else if (res.statusCode >= 400 && 'id' in message && 'method' in message) this.#synthetic(message, res.statusCode, '');
      }
      if (taped) taped.endT = tape!.now();
    } catch (err) {
      if (taped) Object.assign(taped, { outcome: 'upstream-error', endT: tape!.now(), error: (err as Error).message });
      if (this.#closed) return;
      this.onFailure({ code: 'MCPC_REPLAY_HTTP_FAILED', message: `the response from ${this.options.url} broke off: ${(err as Error).message}` });
    }
  }

  #emit(text: string, sent: Record<string, unknown>, status: number): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      if (status >= 400 && 'id' in sent && 'method' in sent) this.#synthetic(sent, status, text);
      return;
    }
    for (const m of Array.isArray(json) ? json : [json]) this.onMessage(m);
  }

  /** A failed HTTP request without a JSON-RPC body still answers its request, as an error. */
  #synthetic(sent: Record<string, unknown>, status: number, body: string): void {
    this.onMessage({ jsonrpc: '2.0', id: sent.id, error: { code: -32000, message: `HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`, data: { httpStatus: status } } });
  }

  async close(): Promise<void> {
    // Streams still open after the player is done (a hung server) are cut after a short grace.
    await Promise.race([Promise.allSettled([...this.#inflight]), new Promise((r) => setTimeout(r, 1000).unref())]);
    this.#closed = true;
    this.#abort.abort();
    if (this.#sessionId !== undefined) {
      // End the live 2025 session the way a client would; its answer does not matter.
      try {
        const res = await request(this.options.url, { method: 'DELETE', headers: { 'mcp-session-id': this.#sessionId }, dispatcher: this.options.agent });
        await res.body.dump();
      } catch {
        /* the server may not support DELETE */
      }
    }
    this.options.tape?.tape.end();
  }
}
