/**
 * The client side of `npm start`: the official v2 SDK client over a stdio transport that owns its
 * child process, so the story can show what the child prints on stderr (the live alerts) and can
 * wait for the proxy to save its cassette (the SDK's own stdio transport sends SIGTERM to a child
 * that has not exited 2 s after stdin closed, and a busy machine may need longer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Client, ReadBuffer, serializeMessage, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';

/** A stdio transport over a child it spawns; `close` ends stdin and waits for the child to exit
 * (up to `closeTimeoutMs`, then SIGTERM). */
export class ChildTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly #buffer = new ReadBuffer();
  readonly #child: ChildProcess;
  readonly #closeTimeoutMs: number;
  readonly #stderrWaiters = new Set<() => void>();
  readonly exited: Promise<number | null>;
  stderr = '';

  constructor(command: string, args: string[], options: { cwd?: string; closeTimeoutMs?: number } = {}) {
    this.#closeTimeoutMs = options.closeTimeoutMs ?? 60_000;
    this.#child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: process.env, ...(options.cwd ? { cwd: options.cwd } : {}) });
    this.exited = new Promise((resolve) => this.#child.on('close', (code) => resolve(code)));
    this.#child.stderr!.on('data', (c: Buffer) => {
      this.stderr += c.toString('utf8');
      for (const waiter of this.#stderrWaiters) waiter();
    });
    this.#child.stdout!.on('data', (c: Buffer) => {
      this.#buffer.append(c);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch {
          continue; // a line that is no JSON-RPC message (the seeded debug print): skipped, as hosts do
        }
        if (message === null) break;
        this.onmessage?.(message);
      }
    });
  }

  async start(): Promise<void> {}

  /** Resolves once the child's stderr matches `pattern`, or after `timeoutMs` (false then). */
  stderrMatch(pattern: RegExp, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!pattern.test(this.stderr)) return;
        done(true);
      };
      const done = (found: boolean): void => {
        clearTimeout(timer);
        this.#stderrWaiters.delete(check);
        resolve(found);
      };
      const timer = setTimeout(() => done(false), timeoutMs);
      this.#stderrWaiters.add(check);
      check();
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.#child.stdin!.write(serializeMessage(message));
  }

  /** Closes stdin (the end of the session for a stdio server) and waits for the child to exit. */
  async close(): Promise<void> {
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child.kill('SIGTERM'), this.#closeTimeoutMs);
    await this.exited;
    clearTimeout(timer);
    this.onclose?.();
  }
}

export interface ForecastRun {
  /** What get_forecast answered (its structured content, or the error text). */
  answer: string;
  /** The child's exit status and everything it wrote on stderr. */
  exitCode: number | null;
  stderr: string;
}

/** Lists the tools and asks for Paris's forecast, through the child command given. With
 * `until`, the session stays open until the child's stderr shows it (a live alert: the validator
 * judges in a worker thread, which a loaded machine may start late), 30 s at most. */
export async function askForecast(command: string, args: string[], until?: RegExp): Promise<ForecastRun> {
  const transport = new ChildTransport(command, args);
  const client = new Client({ name: 'demo-client', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } });
  await client.connect(transport);
  let answer: string;
  try {
    await client.listTools();
    const result = await client.callTool({ name: 'get_forecast', arguments: { city: 'Paris' } });
    answer = JSON.stringify(result.structuredContent ?? result.content);
    if (until) await transport.stderrMatch(until, 30_000);
  } finally {
    await client.close();
  }
  return { answer, exitCode: await transport.exited, stderr: transport.stderr };
}
