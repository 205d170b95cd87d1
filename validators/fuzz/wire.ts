/**
 * One connection to the server under fuzz that keeps every frame it carries, numbered as a
 * cassette numbers them: the fuzzer judges a case by the frames it drew, and writes a finding's
 * minimal session from the frames of the run that reproduced it. stdio: a fresh server process
 * per connection (lib/server-process.ts: no shell, its own process group), the three pipes framed
 * by lib/framing/stdio-framer.ts as the recorder frames them. Streamable HTTP: POSTs on a pool of
 * one connection (lib/raw-client/http.ts), each an exchange with its frames.
 */
import type { ChildProcess } from 'node:child_process';
import type { Agent } from 'undici';
import type { HttpExchange, TransportKind } from '../../lib/cassette/cassette.js';
import { StdioFramer } from '../../lib/framing/stdio-framer.js';
import { frameToMessage, type RecordedMessage } from '../../lib/message.js';
import { isObject } from '../../lib/plain-object.js';
import { freshConnection, rawHttp } from '../../lib/raw-client/http.js';
import { killGroup, spawnServer } from '../../lib/server-process.js';
import { modernHeaders } from '../probes/target.js';
import type { FuzzStep, Json } from './types.js';

export interface StepResult {
  answer?: Json;
  timedOut?: boolean;
  /** The server went away (exited, or stopped accepting connections): why. */
  gone?: string;
}

export interface Wire {
  readonly transport: TransportKind;
  /** Every frame so far (stdio: stdin, stdout and stderr; HTTP: bodies and SSE events). */
  readonly messages: RecordedMessage[];
  /** HTTP: the exchanges the frames belong to. */
  readonly exchanges: HttpExchange[];
  /** The negotiated revision, once a handshake settled one. */
  revision?: string;
  /** 2025 sessionful HTTP: the session id the server handed out. */
  mcpSessionId?: string;
  /** Sends one step and, when it waits, waits for the answer with the step's id. */
  send(step: FuzzStep, timeoutMs: number): Promise<StepResult>;
  /** Whether an answer with this id came (HTTP: each POST's answer is read whole). */
  answered(id: unknown): boolean;
  readonly alive: boolean;
  /** How the stdio server ended, once it did. */
  readonly exit?: { code: number | null; signal: string | null };
  /** Milliseconds since the connection opened (the frames' `t`). */
  now(): number;
  close(): Promise<void>;
}

const key = (id: unknown): string => JSON.stringify(id ?? null);

/** Lets the reads already waiting on the pipes in: when this process was busy past a request's
 * deadline, the timer fires before the answer that came in the meantime is read, and a busy
 * fuzzer must not call that a hang. */
export async function pendingReads(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r));
}
const textOf = (step: FuzzStep): string => step.raw ?? JSON.stringify(step.message);

/** The answer to a server→client request, so a server never waits on the fuzzer: `ping` gets
 * `{}`, anything else -32601. */
function answerServerRequest(request: Json): Json {
  return request.method === 'ping'
    ? { jsonrpc: '2.0', id: request.id, result: {} }
    : { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } };
}

export class StdioWire implements Wire {
  readonly transport = 'stdio' as const;
  readonly messages: RecordedMessage[] = [];
  readonly exchanges: HttpExchange[] = [];
  revision?: string;
  exit?: { code: number | null; signal: string | null };
  readonly #child: ChildProcess;
  readonly #start = performance.now();
  readonly #framer: StdioFramer;
  readonly #waiters = new Map<string, (answer: Json) => void>();
  readonly #answered = new Set<string>();
  readonly #exited: Promise<void>;
  #spawnError?: string;
  #closing = false;

  constructor(
    readonly command: readonly string[],
    cwd?: string,
  ) {
    this.#framer = new StdioFramer((m) => this.#onFrame(m));
    this.#child = spawnServer(command, cwd ? { cwd } : {});
    this.#child.stdout!.on('data', (c: Buffer) => this.#framer.push('stdout', c, this.now()));
    this.#child.stderr!.on('data', (c: Buffer) => this.#framer.push('stderr', c, this.now()));
    this.#child.stdin!.on('error', () => {}); // EPIPE once the server died shows up as its exit
    this.#exited = new Promise((resolve) => {
      this.#child.once('error', (err) => {
        this.#spawnError = `could not start \`${command.join(' ')}\`: ${err.message}`;
        this.exit = { code: null, signal: null };
        resolve();
      });
      this.#child.once('close', (code, signal) => {
        this.#framer.endAll();
        this.exit = { code, signal };
        resolve();
      });
    });
  }

  get alive(): boolean {
    return this.exit === undefined;
  }

  now(): number {
    return Math.round((performance.now() - this.#start) * 1000) / 1000;
  }

  #onFrame(m: RecordedMessage): void {
    this.messages.push(m);
    if (m.channel !== 'stdout' || !isObject(m.json)) return;
    const json = m.json;
    if (typeof json.method === 'string' && 'id' in json) {
      if (!this.#closing) this.#write(JSON.stringify(answerServerRequest(json)));
      return;
    }
    if (!('result' in json || 'error' in json)) return;
    this.#answered.add(key(json.id));
    const waiter = this.#waiters.get(key(json.id));
    if (waiter) waiter(json);
    // An error with a null id is the answer to a request whose id the server could not read
    // (JSON-RPC 2.0 §5): it answers the request sent last.
    else if ('error' in json && (json.id === null || json.id === undefined)) [...this.#waiters.values()].at(-1)?.(json);
  }

  #write(text: string): boolean {
    if (!this.alive || !this.#child.stdin!.writable) return false;
    const bytes = Buffer.from(`${text}\n`, 'utf8');
    this.#framer.push('stdin', bytes, this.now());
    this.#child.stdin!.write(bytes);
    return true;
  }

  answered(id: unknown): boolean {
    return this.#answered.has(key(id));
  }

  /** Why the server is gone, with the end of its stderr. */
  goneReason(): string {
    if (this.#spawnError) return this.#spawnError;
    const how = this.exit?.signal ? `was killed by ${this.exit.signal}` : `exited with code ${String(this.exit?.code)}`;
    return `the server ${how}`;
  }

  async send(step: FuzzStep, timeoutMs: number): Promise<StepResult> {
    const isRequest = typeof step.message.method === 'string' && 'id' in step.message;
    const wait = isRequest && step.wait !== 'none';
    const id = key(step.message.id);
    const answered = wait ? new Promise<Json>((resolve) => this.#waiters.set(id, resolve)) : undefined;
    if (!this.#write(textOf(step))) return { gone: this.goneReason() };
    if (!answered) return {};
    let got: Json | undefined;
    void answered.then((a) => (got = a));
    let timer: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      answered.then((answer) => ({ answer })),
      this.#exited.then(() => ({ gone: true as const })),
      new Promise<{ timeout: true }>((r) => (timer = setTimeout(() => r({ timeout: true }), timeoutMs))),
    ]);
    clearTimeout(timer);
    if ('timeout' in outcome) await pendingReads();
    this.#waiters.delete(id);
    if ('answer' in outcome) return { answer: outcome.answer };
    if (got) return { answer: got };
    if ('gone' in outcome || !this.alive) return { gone: this.goneReason() };
    return { timedOut: true };
  }

  /** stdin EOF, then SIGTERM to the group, then SIGKILL: the server is gone when this resolves. */
  async close(graceMs = 500): Promise<void> {
    this.#closing = true;
    if (!this.alive) return;
    this.#child.stdin!.end();
    for (const signal of [undefined, 'SIGTERM', 'SIGKILL'] as const) {
      if (signal) killGroup(this.#child, signal);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([this.#exited, new Promise((r) => (timer = setTimeout(r, graceMs)))]);
      clearTimeout(timer);
      if (!this.alive) return;
    }
    await this.#exited;
  }
}

export interface HttpWireOptions {
  url: string;
  era: 'modern' | 'legacy';
  headers: Record<string, string>;
}

export class HttpWire implements Wire {
  readonly transport = 'streamable-http' as const;
  readonly messages: RecordedMessage[] = [];
  readonly exchanges: HttpExchange[] = [];
  revision?: string;
  mcpSessionId?: string;
  readonly #agent: Agent = freshConnection();
  readonly #start = performance.now();
  #gone?: string;
  readonly #path: string;

  constructor(readonly options: HttpWireOptions) {
    const u = new URL(options.url);
    this.#path = `${u.pathname}${u.search}`;
  }

  get alive(): boolean {
    return this.#gone === undefined;
  }

  now(): number {
    return Math.round((performance.now() - this.#start) * 1000) / 1000;
  }

  answered(): boolean {
    return true;
  }

  #headers(message: Json): Record<string, string> {
    const h: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (this.options.era === 'modern') Object.assign(h, modernHeaders(message));
    else {
      if (this.revision) h['mcp-protocol-version'] = this.revision;
      if (this.mcpSessionId) h['mcp-session-id'] = this.mcpSessionId;
    }
    for (const [k, v] of Object.entries(this.options.headers)) h[k.toLowerCase()] = v;
    return h;
  }

  #frame(text: string, direction: RecordedMessage['direction'], http: RecordedMessage['http']): RecordedMessage {
    const m = frameToMessage(Buffer.from(text, 'utf8'), {
      seq: this.messages.length + 1,
      t: this.now(),
      direction,
      channel: 'http',
      terminated: true,
      ...(http ? { http } : {}),
    });
    this.messages.push(m);
    return m;
  }

  async send(step: FuzzStep, timeoutMs: number): Promise<StepResult> {
    const isRequest = typeof step.message.method === 'string' && 'id' in step.message;
    const text = textOf(step);
    const headers = this.#headers(step.message);
    const exchange: HttpExchange = {
      id: this.exchanges.length + 1,
      t: this.now(),
      method: 'POST',
      path: this.#path,
      requestHeaders: headers,
      outcome: 'complete',
      mcp: true,
    };
    this.exchanges.push(exchange);
    this.#frame(text, 'client-to-server', { exchange: exchange.id, part: 'request' });
    const res = await rawHttp({
      url: this.options.url,
      method: 'POST',
      headers,
      body: text,
      timeoutMs,
      dispatcher: this.#agent,
      ...(isRequest ? { untilId: step.message.id } : {}),
    });
    if (res.status !== undefined) {
      exchange.status = res.status;
      exchange.responseHeaders = res.headers;
      if (res.contentType !== undefined) exchange.contentType = res.contentType;
    }
    for (const f of res.frames)
      this.#frame(f.text, 'server-to-client', { exchange: exchange.id, part: f.part, ...(f.sse ? { sse: f.sse } : {}) });
    exchange.endT = this.now();
    if (res.error) {
      exchange.outcome = 'upstream-error';
      exchange.error = res.error;
      // Refused or reset: the server is gone (a crash), unless it answered before.
      if (res.status === undefined) this.#gone = `could not reach ${this.options.url}: ${res.error}`;
      return this.#gone ? { gone: this.#gone } : {};
    }
    if (res.timedOut) {
      exchange.outcome = 'client-aborted';
      return isRequest && step.wait !== 'none' ? { timedOut: true } : {};
    }
    const sid = res.headers['mcp-session-id'];
    if (sid && !this.mcpSessionId) this.mcpSessionId = sid;
    const answer =
      res.messages.find((m): m is Json => isObject(m) && !('method' in m) && key(m.id) === key(step.message.id)) ??
      // An error with a null id answers a request whose id the server could not read.
      res.messages.find((m): m is Json => isObject(m) && 'error' in m && (m.id === null || m.id === undefined));
    return answer ? { answer } : {};
  }

  async close(): Promise<void> {
    if (this.mcpSessionId && this.#gone === undefined) {
      await rawHttp({
        url: this.options.url,
        method: 'DELETE',
        headers: { 'mcp-session-id': this.mcpSessionId, ...this.options.headers },
        timeoutMs: 2000,
        dispatcher: this.#agent,
        headersOnly: true,
      });
    }
    await this.#agent.close().catch(() => {});
  }
}
