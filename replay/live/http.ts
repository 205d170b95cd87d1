/**
 * One replayed Streamable HTTP session against a live MCP endpoint (undici). Each recorded
 * request body is POSTed with the recorded request's MCP headers; JSON answers and every SSE
 * event's data are handed to the player as they arrive, so server→client requests inside an SSE
 * stream can be answered while that stream is still open. A 2025 `Mcp-Session-Id` is taken from
 * the live server's answer and sent instead of the recorded one. The client's own GET (the
 * listen stream of a sessionful server) and DELETE (the session end) are replayed when the
 * player asks for them (`openStream`, `closeStream`, `endSession`), with the live session id.
 */
import { messageText, parseMessageText } from '../../lib/json-depth.js';
import { type Agent, request } from 'undici';
import type { HttpExchange, HttpHeaders } from '../../lib/cassette/cassette.js';
import { SseSplitter, sseFields } from '../../lib/framing/sse-splitter.js';
import type { RecordedMessage } from '../../lib/message.js';
import { redactHeaderValues } from '../../lib/redact.js';
import type { ExchangeAnswer, LiveConnection, MessageSource } from './connection.js';
import type { LiveTape } from './tape.js';

/** Headers that describe the recorded connection rather than the MCP request. */
const DROP = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'upgrade',
  'te',
  'trailer',
  'proxy-connection',
  'last-event-id',
  'mcp-session-id',
  'content-type',
]);

export interface HttpOptions {
  url: string;
  agent: Agent;
  /** Extra headers for every request (e.g. a real Authorization instead of a redacted one). */
  headers?: Record<string, string>;
  /** Keeps every exchange and frame, for `--update`; response headers with these names are masked. */
  tape?: { tape: LiveTape; secretHeaders: readonly string[] };
}

type Method = 'POST' | 'GET' | 'DELETE';

/** A listen stream the replay opened. */
interface OpenStream {
  abort: AbortController;
  done: Promise<void>;
}

export class HttpConnection implements LiveConnection {
  onMessage: LiveConnection['onMessage'] = () => {};
  onFailure: LiveConnection['onFailure'] = () => {};
  onStatus?: LiveConnection['onStatus'];
  /** Recorded headers that were not replayed because the cassette holds them redacted. */
  readonly redactedHeaders = new Set<string>();
  #sessionId: string | undefined;
  readonly #inflight = new Set<Promise<void>>();
  readonly #streams = new Map<number, OpenStream>();
  readonly #abort = new AbortController();
  #closed = false;
  /** The replay sent the recorded DELETE itself: `close` must not end the session again. */
  #ended = false;

  constructor(private readonly options: HttpOptions) {}

  get hasSession(): boolean {
    return this.#sessionId !== undefined;
  }

  send(message: Record<string, unknown>, recorded: RecordedMessage, exchange?: HttpExchange, text?: string): Promise<void> {
    const p = this.#post(message, recorded, exchange, text).finally(() => this.#inflight.delete(p));
    this.#inflight.add(p);
    return p;
  }

  #headers(recorded: HttpHeaders | undefined, method: Method): Record<string, string> {
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
    if (method === 'POST') {
      out['content-type'] = 'application/json';
      out.accept ??= 'application/json, text/event-stream';
    } else if (method === 'GET') {
      out.accept ??= 'text/event-stream';
    }
    if (this.#sessionId !== undefined) out['mcp-session-id'] = this.#sessionId;
    for (const [k, v] of Object.entries(this.options.headers ?? {})) out[k.toLowerCase()] = v;
    return out;
  }

  /** The exchange `--update` will store: the recorded request headers (already redacted; never
   * the --header values, which may be real secrets) with the live session id. */
  #tapeExchange(method: Method, exchange: HttpExchange | undefined, recorded?: RecordedMessage): HttpExchange | undefined {
    const tape = this.options.tape?.tape;
    if (!tape) return undefined;
    const id = exchange?.id ?? recorded?.http?.exchange ?? Math.max(0, ...tape.exchanges.map((x) => x.id)) + 1;
    const requestHeaders: HttpHeaders = {
      ...(exchange?.requestHeaders ?? (method === 'POST' ? { 'content-type': 'application/json' } : {})),
    };
    delete requestHeaders['mcp-session-id'];
    if (this.#sessionId !== undefined) requestHeaders['mcp-session-id'] = this.#sessionId;
    const record: HttpExchange = {
      id,
      t: tape.now(),
      method,
      path: exchange?.path ?? new URL(this.options.url).pathname,
      requestHeaders,
      outcome: 'complete',
      mcp: true,
      // What the recorded token claimed: the request headers stored are the recorded ones too.
      ...(exchange?.tokenClaims ? { tokenClaims: exchange.tokenClaims } : {}),
    };
    tape.exchanges.push(record);
    return record;
  }

  /** Notes the live answer's status and headers on the taped exchange. */
  #tapeAnswer(taped: HttpExchange | undefined, res: Awaited<ReturnType<typeof request>>): void {
    if (!taped) return;
    taped.status = res.statusCode;
    taped.responseHeaders = redactHeaderValues(res.headers, this.options.tape!.secretHeaders);
    const type = String(res.headers['content-type'] ?? '');
    if (type) taped.contentType = type;
  }

  #unreachable(err: unknown): void {
    const cause = (err as { code?: string; cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code ?? '';
    this.onFailure({
      code: 'MCPC_REPLAY_HTTP_FAILED',
      message: `could not reach ${this.options.url}: ${(err as Error).message}${cause ? ` (${cause})` : ''}; is the server running and is --url right?`,
    });
  }

  #takeSessionId(res: Awaited<ReturnType<typeof request>>): void {
    const sid = res.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      this.#sessionId = sid;
      if (this.options.tape) this.options.tape.tape.mcpSessionId = sid;
    }
  }

  /** Reads an event stream to its end, handing every event's data to the player. */
  async #readEvents(
    res: Awaited<ReturnType<typeof request>>,
    taped: HttpExchange | undefined,
    emit: (data: string) => void,
  ): Promise<void> {
    const tape = this.options.tape?.tape;
    const splitter = new SseSplitter((event) => {
      if (taped)
        tape!.http(Buffer.from(event.data, 'utf8'), 'server-to-client', { exchange: taped.id, part: 'sse', sse: sseFields(event) });
      if (!event.hasData || event.data.trim() === '') return;
      emit(event.data);
    });
    for await (const chunk of res.body) splitter.push(chunk as Buffer);
    splitter.end();
  }

  async #post(message: Record<string, unknown>, recorded: RecordedMessage, exchange?: HttpExchange, text?: string): Promise<void> {
    let res: Awaited<ReturnType<typeof request>>;
    const body = text ?? messageText(message);
    const headers = this.#headers(exchange?.requestHeaders, 'POST');
    const taped = this.#tapeExchange('POST', exchange, recorded);
    const tape = this.options.tape?.tape;
    if (taped) tape!.http(Buffer.from(body, 'utf8'), 'client-to-server', { exchange: taped.id, part: 'request' });
    try {
      res = await request(this.options.url, { method: 'POST', headers, body, dispatcher: this.options.agent, signal: this.#abort.signal });
    } catch (err) {
      if (taped) Object.assign(taped, { outcome: 'upstream-error', endT: tape!.now(), error: (err as Error).message });
      if (this.#closed) return;
      this.#unreachable(err);
      return;
    }
    this.#takeSessionId(res);
    if (exchange?.status !== undefined && exchange.status !== res.statusCode) this.onStatus?.(recorded, exchange.status, res.statusCode);
    const type = String(res.headers['content-type'] ?? '');
    this.#tapeAnswer(taped, res);
    try {
      if (type.includes('text/event-stream')) {
        await this.#readEvents(res, taped, (data) => this.#emit(data, message, res.statusCode));
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
      this.onFailure({
        code: 'MCPC_REPLAY_HTTP_FAILED',
        message: `the response from ${this.options.url} broke off: ${(err as Error).message}`,
      });
    }
  }

  async openStream(exchange: HttpExchange): Promise<ExchangeAnswer | undefined> {
    const tape = this.options.tape?.tape;
    const abort = new AbortController();
    const onClose = () => abort.abort();
    this.#abort.signal.addEventListener('abort', onClose, { once: true });
    const taped = this.#tapeExchange('GET', exchange);
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(this.options.url, {
        method: 'GET',
        headers: this.#headers(exchange.requestHeaders, 'GET'),
        dispatcher: this.options.agent,
        signal: abort.signal,
      });
    } catch (err) {
      this.#abort.signal.removeEventListener('abort', onClose);
      if (taped)
        Object.assign(taped, {
          outcome: abort.signal.aborted ? 'client-aborted' : 'upstream-error',
          endT: tape!.now(),
          ...(abort.signal.aborted ? {} : { error: (err as Error).message }),
        });
      if (!this.#closed && !abort.signal.aborted) this.#unreachable(err);
      return undefined;
    }
    this.#tapeAnswer(taped, res);
    const contentType = String(res.headers['content-type'] ?? '');
    const answer: ExchangeAnswer = { status: res.statusCode, ...(contentType ? { contentType } : {}) };
    const stream: OpenStream = { abort, done: Promise.resolve() };
    const via: MessageSource = { stream: exchange.id };
    const read = async (): Promise<void> => {
      try {
        if (contentType.includes('text/event-stream')) {
          await this.#readEvents(res, taped, (data) => this.#emitStream(data, via));
        } else {
          // A refused GET (405, 400, 404): its body only explains the status.
          const bytes = Buffer.from(await res.body.arrayBuffer());
          if (taped && bytes.length > 0) tape!.http(bytes, 'server-to-client', { exchange: taped.id, part: 'response' });
        }
        if (taped) taped.endT = tape!.now();
      } catch (err) {
        if (taped)
          Object.assign(taped, {
            endT: tape!.now(),
            ...(abort.signal.aborted ? { outcome: 'client-aborted' } : { outcome: 'upstream-error', error: (err as Error).message }),
          });
      } finally {
        this.#abort.signal.removeEventListener('abort', onClose);
        this.#streams.delete(exchange.id);
      }
    };
    if (contentType.includes('text/event-stream')) {
      // The stream stays open while the session goes on.
      this.#streams.set(exchange.id, stream);
      stream.done = read();
      answer.ended = stream.done;
    } else {
      await read();
    }
    return answer;
  }

  closeStream(exchange: HttpExchange): void {
    const stream = this.#streams.get(exchange.id);
    if (!stream) return;
    stream.abort.abort();
  }

  async endSession(exchange: HttpExchange): Promise<ExchangeAnswer | undefined> {
    this.#ended = true;
    const tape = this.options.tape?.tape;
    const taped = this.#tapeExchange('DELETE', exchange);
    try {
      const res = await request(this.options.url, {
        method: 'DELETE',
        headers: this.#headers(exchange.requestHeaders, 'DELETE'),
        dispatcher: this.options.agent,
        signal: this.#abort.signal,
      });
      this.#tapeAnswer(taped, res);
      const bytes = Buffer.from(await res.body.arrayBuffer());
      if (taped && bytes.length > 0) tape!.http(bytes, 'server-to-client', { exchange: taped.id, part: 'response' });
      if (taped) taped.endT = tape!.now();
      const contentType = String(res.headers['content-type'] ?? '');
      return { status: res.statusCode, ...(contentType ? { contentType } : {}) };
    } catch (err) {
      if (taped) Object.assign(taped, { outcome: 'upstream-error', endT: tape!.now(), error: (err as Error).message });
      if (!this.#closed) this.#unreachable(err);
      return undefined;
    }
  }

  #emit(text: string, sent: Record<string, unknown>, status: number): void {
    let json: unknown;
    try {
      json = parseMessageText(text);
    } catch {
      if (status >= 400 && 'id' in sent && 'method' in sent) this.#synthetic(sent, status, text);
      return;
    }
    for (const m of Array.isArray(json) ? json : [json]) this.onMessage(m);
  }

  #emitStream(text: string, via: MessageSource): void {
    let json: unknown;
    try {
      json = parseMessageText(text);
    } catch {
      return;
    }
    for (const m of Array.isArray(json) ? json : [json]) this.onMessage(m, via);
  }

  /** A failed HTTP request without a JSON-RPC body still answers its request, as an error. */
  #synthetic(sent: Record<string, unknown>, status: number, body: string): void {
    this.onMessage({
      jsonrpc: '2.0',
      id: sent.id,
      error: { code: -32000, message: `HTTP ${status}${body ? `: ${body.slice(0, 200)}` : ''}`, data: { httpStatus: status } },
    });
  }

  async close(): Promise<void> {
    // Streams still open after the player is done (a hung server) are cut after a short grace.
    await Promise.race([Promise.allSettled([...this.#inflight]), new Promise((r) => setTimeout(r, 1000).unref())]);
    this.#closed = true;
    const streams = [...this.#streams.values()];
    this.#abort.abort();
    // Listen streams still open end here, as they would when the client goes away.
    await Promise.allSettled(streams.map((s) => s.done));
    if (this.#sessionId !== undefined && !this.#ended) {
      // End the live 2025 session the way a client would (the recording had no DELETE to replay,
      // so this one is not taped); its answer does not matter.
      try {
        const res = await request(this.options.url, {
          method: 'DELETE',
          headers: { 'mcp-session-id': this.#sessionId },
          dispatcher: this.options.agent,
        });
        await res.body.dump();
      } catch {
        /* the server may not support DELETE */
      }
    }
    this.options.tape?.tape.end();
  }
}
