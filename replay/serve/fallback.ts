/**
 * Record mode `new_episodes`: requests the cassette cannot answer go to the real (stdio) server,
 * started on first need, and what it answers is appended to the cassette as a new session when
 * serving ends. A 2025-era client already had its `initialize` answered from the cassette, so the
 * real server gets the same `initialize` (and `notifications/initialized`) first. Server→client
 * requests and notifications the real server sends are relayed to the client, and the client's
 * answers relayed back.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendSessions } from '../../lib/cassette/store.js';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { sessionFacts } from '../../lib/cassette/session-info.js';
import { LineSplitter } from '../../lib/framing/line-splitter.js';
import type { Logger } from '../../lib/log.js';
import { classify, frameToMessage, type Direction, type RecordedMessage } from '../../lib/message.js';
import { redactArgv } from '../../lib/redact.js';
import { packageVersion } from '../../lib/version.js';
import type { Fallback, LiveSession, Outlet } from './engine.js';
import type { Json } from './interactions.js';

const idKey = (v: unknown): string => JSON.stringify(v ?? null);

export class StdioFallback implements Fallback {
  #child?: ChildProcess;
  #ready?: Promise<void>;
  #next = 0;
  readonly #waiting = new Map<string, (answer: Json) => void>();
  /** Server→client requests relayed to the client: client-visible id → the id the server used. */
  readonly #serverRequests = new Map<string, unknown>();
  #lastOutlet?: Outlet;
  readonly #messages: RecordedMessage[] = [];
  readonly #startedAt = new Date();
  readonly #t0 = performance.now();
  #exit?: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(
    private readonly command: readonly string[],
    private readonly cassettePath: string,
    private readonly logger?: Logger,
  ) {}

  #record(json: Json, direction: Direction): void {
    this.#messages.push(frameToMessage(Buffer.from(JSON.stringify(json)), {
      seq: this.#messages.length + 1,
      t: Math.round((performance.now() - this.#t0) * 1000) / 1000,
      direction,
      channel: direction === 'client-to-server' ? 'stdin' : 'stdout',
      terminated: true,
    }));
  }

  #write(json: Json): void {
    this.#record(json, 'client-to-server');
    this.#child!.stdin!.write(JSON.stringify(json) + '\n');
  }

  #onServerFrame(frame: Buffer): void {
    let json: Json;
    try {
      json = JSON.parse(frame.toString('utf8')) as Json;
    } catch {
      this.logger?.warn({ line: frame.toString('utf8').slice(0, 200) }, 'serve: the real server wrote a non-JSON line; not relayed');
      return;
    }
    this.#record(json, 'server-to-client');
    const kind = classify(json);
    if (kind === 'response' || kind === 'error') {
      const waiter = this.#waiting.get(idKey(json.id));
      if (waiter) {
        this.#waiting.delete(idKey(json.id));
        waiter(json);
      }
      return;
    }
    if (kind === 'request') this.#serverRequests.set(idKey(json.id), json.id);
    this.#lastOutlet?.send(json);
  }

  #ask(message: Json): Promise<Json> {
    return new Promise((resolve, reject) => {
      this.#waiting.set(idKey(message.id), resolve);
      void this.#exit?.then(() => reject(new Error('the real server exited before answering')));
      this.#write(message);
    });
  }

  #start(live: LiveSession): Promise<void> {
    this.#ready ??= (async () => {
      const [cmd, ...args] = this.command;
      const child = spawn(cmd!, args, { stdio: ['pipe', 'pipe', 'inherit'] });
      this.#child = child;
      this.#exit = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      });
      const splitter = new LineSplitter((f) => this.#onServerFrame(f));
      child.stdout!.on('data', (c: Buffer) => splitter.push(c));
      if (live.initialize) {
        await this.#ask({ ...live.initialize, id: `mcp-cassette-initialize-${randomUUID()}` });
        this.#write({ jsonrpc: '2.0', method: 'notifications/initialized' });
      }
    })();
    return this.#ready;
  }

  async forward(request: Json, live: LiveSession, outlet: Outlet): Promise<void> {
    try {
      await this.#start(live);
    } catch (err) {
      outlet.send({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: `mcp-cassette: the real server could not be started for new_episodes: ${(err as Error).message}` } });
      return;
    }
    this.#lastOutlet = outlet;
    const upstreamId = `mcp-cassette-${++this.#next}`;
    try {
      const answer = await this.#ask({ ...request, id: upstreamId });
      outlet.send({ ...answer, id: request.id });
    } catch (err) {
      outlet.send({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: `mcp-cassette: ${(err as Error).message}` } });
    }
  }

  deliver(message: Json): boolean {
    if (!this.#serverRequests.has(idKey(message.id)) || !this.#child) return false;
    this.#serverRequests.delete(idKey(message.id));
    this.#write(message);
    return true;
  }

  /** Stops the real server and appends what it said, as a session of its own. */
  async close(): Promise<void> {
    if (!this.#child) return;
    this.#child.stdin!.end();
    const timer = setTimeout(() => this.#child?.kill('SIGTERM'), 2000);
    const end = await this.#exit!;
    clearTimeout(timer);
    // The recorded ids are the upstream ones; the cassette keeps the server's view of the wire.
    const facts = sessionFacts(this.#messages);
    const session: RecordedSession = {
      id: randomUUID(),
      label: 'new episodes (mcp-cassette serve)',
      transport: 'stdio',
      startedAt: this.#startedAt.toISOString(),
      endedAt: new Date().toISOString(),
      durationMs: Math.round(performance.now() - this.#t0),
      target: { command: redactArgv(this.command), cwd: process.cwd() },
      protocol: facts.protocol,
      ...(facts.clientInfo ? { clientInfo: facts.clientInfo } : {}),
      ...(facts.serverInfo ? { serverInfo: facts.serverInfo } : {}),
      proxy: { pid: process.pid, version: packageVersion() },
      end: { reason: 'exit', exitCode: end.code, signal: end.signal, initiatedBy: 'host-eof' },
      messages: this.#messages,
    };
    await appendSessions(this.cassettePath, [session]);
    this.logger?.info({ cassette: this.cassettePath, messages: this.#messages.length }, 'serve: appended the new episodes to the cassette');
  }
}
