/**
 * A raw MCP client over stdio: it writes whatever JSON-RPC (or bytes) it is given, crafted or
 * mutated, and hands back what the server wrote, with no SDK in between to fix things up. The
 * server is started by lib/server-process.ts (no shell, its own process group, killed when we
 * exit), as replay's and serve's are. Used by the probes (validators/probes).
 */
import type { ChildProcess } from 'node:child_process';
import { killGroup, spawnStdioServer } from '../server-process.js';
import { isObject } from '../plain-object.js';

export interface RawStdioOptions {
  command: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** What one request got: the response with its id, or why there was none. */
export interface RawStdioExchange {
  response?: Record<string, unknown>;
  /** Notifications and server→client requests that arrived while waiting. */
  others: unknown[];
  timedOut: boolean;
  /** The process was gone (or never started) before the response came. */
  gone?: string;
}

type ServerRequestHandler = (request: Record<string, unknown>) => Record<string, unknown> | undefined;

export class RawStdioProcess {
  /** Every JSON value the server wrote to stdout, in order. */
  readonly received: unknown[] = [];
  /** stdout lines that were not JSON. */
  readonly noise: string[];
  readonly stderrTail: string[];
  /** Answers a server→client request (2025 era: `roots/list`, `ping`, `elicitation/create`…);
   * by default `ping` gets `{}` and anything else -32601, so a server never waits on us. */
  onServerRequest: ServerRequestHandler = (req) =>
    req.method === 'ping'
      ? { jsonrpc: '2.0', id: req.id, result: {} }
      : { jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'Method not found' } };
  readonly exited: Promise<ExitInfo>;
  spawnError?: string;
  readonly #child: ChildProcess;
  readonly #label: string;
  readonly #waiters = new Map<string, (msg: Record<string, unknown>) => void>();
  #exitInfo: ExitInfo | undefined;
  #listeners: ((msg: unknown) => void)[] = [];

  constructor(options: RawStdioOptions) {
    this.#label = options.command.join(' ');
    const server = spawnStdioServer(options, (json) => this.#onJson(json));
    this.#child = server.child;
    this.noise = server.noise;
    this.stderrTail = server.stderrTail;
    this.exited = new Promise((resolve) => {
      this.#child.on('error', (err: NodeJS.ErrnoException) => {
        this.spawnError = `could not start \`${this.#label}\`: ${err.message}`;
        this.#exitInfo = { code: null, signal: null };
        resolve(this.#exitInfo);
      });
      this.#child.on('close', (code, signal) => {
        this.#exitInfo = { code, signal };
        resolve(this.#exitInfo);
      });
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get alive(): boolean {
    return this.#exitInfo === undefined;
  }

  #onJson(json: unknown): void {
    this.received.push(json);
    for (const l of this.#listeners) l(json);
    if (!isObject(json)) return;
    if (typeof json.method === 'string' && 'id' in json) {
      const reply = this.onServerRequest(json);
      if (reply) this.send(reply);
      return;
    }
    if (typeof json.method !== 'string' && ('result' in json || 'error' in json)) {
      const key = JSON.stringify(json.id ?? null);
      const waiter = this.#waiters.get(key);
      if (waiter) {
        this.#waiters.delete(key);
        waiter(json);
      }
    }
  }

  /** Writes one message (an object is serialised; a string is written as it is) plus `\n`. */
  send(message: unknown): boolean {
    if (!this.alive || !this.#child.stdin!.writable) return false;
    this.#child.stdin!.write((typeof message === 'string' ? message : JSON.stringify(message)) + '\n');
    return true;
  }

  /** Sends a request and waits for the response that carries its id. */
  async request(message: Record<string, unknown>, timeoutMs: number): Promise<RawStdioExchange> {
    const others: unknown[] = [];
    const key = JSON.stringify(message.id ?? null);
    const collect = (m: unknown): void => {
      if (!(isObject(m) && JSON.stringify(m.id ?? null) === key && !('method' in m))) others.push(m);
    };
    this.#listeners.push(collect);
    try {
      const answer = new Promise<Record<string, unknown>>((resolve) => this.#waiters.set(key, resolve));
      if (!this.send(message)) return { others, timedOut: false, gone: this.#goneReason() };
      let timer: NodeJS.Timeout | undefined;
      const outcome = await Promise.race([
        answer.then((response) => ({ response })),
        this.exited.then(() => ({ gone: true as const })),
        new Promise<{ timeout: true }>((r) => (timer = setTimeout(() => r({ timeout: true }), timeoutMs))),
      ]);
      clearTimeout(timer);
      if ('response' in outcome) return { response: outcome.response, others, timedOut: false };
      if ('gone' in outcome) return { others, timedOut: false, gone: this.#goneReason() };
      return { others, timedOut: true };
    } finally {
      this.#waiters.delete(key);
      this.#listeners = this.#listeners.filter((l) => l !== collect);
    }
  }

  #goneReason(): string {
    if (this.spawnError) return this.spawnError;
    const e = this.#exitInfo;
    const how = e?.signal ? `was killed by ${e.signal}` : `exited with code ${String(e?.code)}`;
    const tail = this.stderrTail.length ? `; its stderr ended with: ${this.stderrTail.slice(-3).join(' | ')}` : '';
    return `the server \`${this.#label}\` ${how}${tail}`;
  }

  closeStdin(): void {
    if (this.#child.stdin!.writable) this.#child.stdin!.end();
  }

  /** Resolves with how the process ended, or undefined if it is still running after `ms`. */
  async waitForExit(ms: number): Promise<ExitInfo | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const r = await Promise.race([this.exited, new Promise<undefined>((res) => (timer = setTimeout(() => res(undefined), ms)))]);
    clearTimeout(timer);
    return r;
  }

  /** Ends the server: stdin EOF, then SIGTERM to its group after `graceMs`, then SIGKILL.
   * Always resolves once the process is gone. */
  async close(graceMs = 1000): Promise<ExitInfo> {
    if (!this.alive) return this.exited;
    this.closeStdin();
    if (await this.waitForExit(graceMs)) return this.exited;
    killGroup(this.#child, 'SIGTERM');
    if (await this.waitForExit(graceMs)) return this.exited;
    killGroup(this.#child, 'SIGKILL');
    return this.exited;
  }
}
