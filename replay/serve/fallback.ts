/**
 * The real server behind `serve`, over stdio. Record mode `new_episodes`: requests the cassette
 * cannot answer go to the real server, started on first need, and what it answers is appended to
 * the cassette as a new session when serving ends. With an empty cassette it carries every
 * request: `serve --listen` in record and passthrough modes bridges HTTP clients to a stdio
 * server this way (`cassette` unset: passthrough, nothing kept).
 *
 * Each live client (the stdio client, or one HTTP session) gets a server process of its own, as
 * it would have without us. A 2025-era client already had its `initialize` answered from the
 * cassette, so its server gets the same `initialize` (and `notifications/initialized`) first.
 * Server→client requests and notifications are relayed to the client (on the stream of the
 * request they belong to), and the client's answers and notifications relayed back.
 */
import { progressTokenOf } from '../../lib/progress-token.js';
import { messageText, parseMessageText } from '../../lib/json-depth.js';
import type { ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { appendSessions } from '../../lib/cassette/store.js';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { sessionFacts } from '../../lib/cassette/session-info.js';
import { LineSplitter } from '../../lib/framing/line-splitter.js';
import type { Logger } from '../../lib/log.js';
import { classify, frameToMessage, type Direction, type RecordedMessage } from '../../lib/message.js';
import { redactArgv } from '../../lib/redact.js';
import { killGroup, spawnServer } from '../../lib/server-process.js';
import { packageVersion } from '../../lib/version.js';
import { isObject } from '../diff.js';
import type { Fallback, LiveSession, Outlet } from './live-session.js';
import { idKey, type Json } from './interactions.js';

export interface FallbackOptions {
  /** Append what the real server said to this cassette; unset: passthrough, nothing kept. */
  cassette?: string;
  logger?: Logger;
  /** The label of the sessions written. */
  label?: string;
}

/** A request relayed to the real server and not answered yet. */
export interface OpenForward {
  clientId: unknown;
  upstreamId: string;
  outlet: Outlet;
  progressToken: unknown;
}

/** Where a frame the real server sent on its own belongs: the open request its progress token
 * names, else the latest open request, else the client's session stream. */
export function routeFrame(frame: Json, open: Iterable<OpenForward>, live: LiveSession): Outlet | undefined {
  const list = [...open];
  if (frame.method === 'notifications/progress' && isObject(frame.params)) {
    const token = idKey(frame.params.progressToken);
    const owner = list.find((f) => f.progressToken !== undefined && idKey(f.progressToken) === token);
    if (owner) return owner.outlet;
  }
  return list.at(-1)?.outlet ?? live.outlet;
}

class StdioConnection {
  readonly #child: ChildProcess;
  readonly #messages: RecordedMessage[] = [];
  readonly #startedAt = new Date();
  readonly #t0 = performance.now();
  readonly #waiting = new Map<string, (answer: Json) => void>();
  readonly #open = new Map<string, OpenForward>();
  /** Server→client requests relayed to the client, by id. */
  readonly #serverRequests = new Set<string>();
  readonly #exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ready: Promise<void>;
  /** We sent our own `notifications/initialized` (after a replayed `initialize`). */
  #ownInitialized = false;
  #next = 0;
  #ended?: Promise<RecordedSession | undefined>;

  constructor(
    private readonly command: readonly string[],
    private readonly live: LiveSession,
    first: Json,
    private readonly logger?: Logger,
  ) {
    this.#child = spawnServer(command);
    const child = this.#child;
    this.#exit = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
    child.stderr!.on('data', (c: Buffer) => process.stderr.write(c));
    child.stdin!.on('error', () => {}); // a server that exits early; its exit is reported instead
    const splitter = new LineSplitter((f) => this.#onServerFrame(f));
    child.stdout!.on('data', (c: Buffer) => splitter.push(c));
    this.ready = (async () => {
      await new Promise<void>((resolve, reject) => {
        child.once('spawn', () => resolve());
        child.once('error', reject);
      });
      if (live.initialize && first.method !== 'initialize') {
        await this.#ask({ ...live.initialize, id: `mcp-cassette-initialize-${randomUUID()}` });
        this.#write({ jsonrpc: '2.0', method: 'notifications/initialized' });
        this.#ownInitialized = true;
      }
    })();
    this.ready.catch(() => {});
  }

  #record(json: Json, direction: Direction): void {
    this.#messages.push(
      frameToMessage(Buffer.from(messageText(json)), {
        seq: this.#messages.length + 1,
        t: Math.round((performance.now() - this.#t0) * 1000) / 1000,
        direction,
        channel: direction === 'client-to-server' ? 'stdin' : 'stdout',
        terminated: true,
      }),
    );
  }

  #write(json: Json): void {
    this.#record(json, 'client-to-server');
    if (this.#child.stdin!.writable) this.#child.stdin!.write(messageText(json) + '\n');
  }

  #onServerFrame(frame: Buffer): void {
    let json: Json;
    try {
      json = parseMessageText(frame.toString('utf8')) as Json;
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
    if (kind === 'request') this.#serverRequests.add(idKey(json.id));
    routeFrame(json, this.#open.values(), this.live)?.send(json);
  }

  #ask(message: Json): Promise<Json> {
    return new Promise((resolve, reject) => {
      this.#waiting.set(idKey(message.id), resolve);
      void this.#exit.then(() => reject(new Error('the real server exited before answering')));
      this.#write(message);
    });
  }

  async forward(request: Json, outlet: Outlet): Promise<Json> {
    await this.ready;
    const upstreamId = `mcp-cassette-${++this.#next}`;
    const open: OpenForward = { clientId: request.id, upstreamId, outlet, progressToken: progressTokenOf(request) };
    this.#open.set(idKey(request.id), open);
    try {
      return await this.#ask({ ...request, id: upstreamId });
    } finally {
      this.#open.delete(idKey(request.id));
    }
  }

  notify(message: Json): void {
    if (message.method === 'notifications/initialized' && this.#ownInitialized) return;
    if (message.method === 'notifications/cancelled' && isObject(message.params)) {
      const open = this.#open.get(idKey(message.params.requestId));
      if (!open) return;
      this.#write({ ...message, params: { ...message.params, requestId: open.upstreamId } });
      return;
    }
    this.#write(message);
  }

  deliver(message: Json): boolean {
    if (!this.#serverRequests.delete(idKey(message.id))) return false;
    this.#write(message);
    return true;
  }

  /** Closes the server's stdin (SIGTERM after 2 s, SIGKILL after 2 more) and returns its session. */
  end(): Promise<RecordedSession | undefined> {
    this.#ended ??= (async () => {
      this.#child.stdin!.end();
      const term = setTimeout(() => killGroup(this.#child, 'SIGTERM'), 2000);
      const kill = setTimeout(() => killGroup(this.#child, 'SIGKILL'), 4000);
      const end = await this.#exit;
      clearTimeout(term);
      clearTimeout(kill);
      if (this.#messages.length === 0) return undefined;
      // The recorded ids are the real server's; the cassette keeps its view of the wire.
      const facts = sessionFacts(this.#messages);
      return {
        id: randomUUID(),
        label: 'recorded by mcp-cassette serve',
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
      } satisfies RecordedSession;
    })();
    return this.#ended;
  }
}

export class StdioFallback implements Fallback {
  readonly #connections = new Map<LiveSession, StdioConnection>();
  readonly #sessions: RecordedSession[] = [];

  constructor(
    private readonly command: readonly string[],
    private readonly options: FallbackOptions = {},
  ) {}

  async forward(request: Json, live: LiveSession, outlet: Outlet): Promise<void> {
    let connection = this.#connections.get(live);
    if (!connection) {
      connection = new StdioConnection(this.command, live, request, this.options.logger);
      this.#connections.set(live, connection);
    }
    try {
      await connection.ready;
    } catch (err) {
      outlet.send({
        jsonrpc: '2.0',
        id: request.id,
        error: { code: -32603, message: `mcp-cassette: the real server could not be started: ${(err as Error).message}` },
      });
      return;
    }
    try {
      const answer = await connection.forward(request, outlet);
      if (request.method === 'initialize' && isObject(answer.result) && typeof answer.result.protocolVersion === 'string')
        live.revision = answer.result.protocolVersion;
      outlet.send({ ...answer, id: request.id });
    } catch (err) {
      outlet.send({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: `mcp-cassette: ${(err as Error).message}` } });
    }
  }

  async notify(message: Json, live: LiveSession): Promise<void> {
    this.#connections.get(live)?.notify(message);
  }

  deliver(message: Json, live: LiveSession): boolean {
    return this.#connections.get(live)?.deliver(message) ?? false;
  }

  async release(live: LiveSession): Promise<void> {
    const connection = this.#connections.get(live);
    if (!connection) return;
    this.#connections.delete(live);
    const session = await connection.end();
    if (session) this.#sessions.push(session);
  }

  /** Stops every real server and appends what they said, a session each. */
  async close(): Promise<void> {
    await Promise.all([...this.#connections.keys()].map((live) => this.release(live)));
    await writeSessions(this.#sessions, this.options);
  }
}

/** Appends recorded sessions to the cassette (nothing in passthrough). */
export async function writeSessions(sessions: RecordedSession[], options: FallbackOptions): Promise<void> {
  if (!options.cassette || sessions.length === 0) return;
  const labelled = options.label ? sessions.map((s) => ({ ...s, label: options.label! })) : sessions;
  await appendSessions(options.cassette, labelled);
  options.logger?.info(
    { cassette: options.cassette, sessions: sessions.length },
    'serve: appended what the real server said to the cassette',
  );
}
