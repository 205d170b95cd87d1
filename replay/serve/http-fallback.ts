/**
 * The real server behind `serve`, over Streamable HTTP: the `{ url }` of `withCassette` and
 * `serve --upstream <url>`. As with the stdio fallback, it answers what the cassette lacks
 * (`new_episodes`), or everything (record and passthrough bridges), and what it exchanged is
 * appended to the cassette as Streamable HTTP sessions, shaped as `record --upstream` shapes
 * them: a 2025-era client's requests share the real server's `Mcp-Session-Id` (one session),
 * every 2026-07-28 request is a stateless exchange and a session of its own.
 *
 * A 2025-era client whose `initialize` the cassette answered gets the same `initialize` (and
 * `notifications/initialized`) replayed to the real server first. Frames the real server streams
 * (progress, logs, server→client requests, on the POST's SSE stream or the session's GET
 * stream) are relayed to the client as they arrive; the client's answers go back as POSTs.
 * Secret headers are masked in the cassette as `record` masks them.
 */
import { progressTokenOf } from '../../lib/progress-token.js';
import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'undici';
import { classify } from '../../lib/message.js';
import { redactHeaderValues } from '../../lib/redact.js';
import { isObject } from '../diff.js';
import { routeFrame, writeSessions, type FallbackOptions, type OpenForward } from './fallback.js';
import { HttpRecording } from './http-recording.js';
import { idKey, type Json } from './interactions.js';
import type { Fallback, LiveSession, Outlet } from './live-session.js';
import { isModern } from './matcher.js';
import { flat, listenUpstream, mcpName, NAME_SOURCES, postUpstream, revisionOf } from './upstream-http.js';

export interface HttpFallbackOptions extends FallbackOptions {
  /** Headers sent with every request to the real server (`--header "Authorization: Bearer …"`). */
  headers?: Record<string, string>;
}

/** A 2025-era client's connection to the real server: its `Mcp-Session-Id` and revision. */
interface LegacyConnection {
  live: LiveSession;
  recording: HttpRecording;
  ready: Promise<void>;
  sessionId?: string;
  protocolVersion?: string;
  /** We sent our own `notifications/initialized` (after a replayed `initialize`). */
  ownInitialized: boolean;
  get?: AbortController;
}

interface Open extends OpenForward {
  abort: AbortController;
  connection?: LegacyConnection;
}

export class HttpFallback implements Fallback {
  readonly #url: URL;
  readonly #legacy = new Map<LiveSession, LegacyConnection>();
  readonly #recordings: HttpRecording[] = [];
  /** Requests relayed and not answered yet, per client. */
  readonly #open = new Map<LiveSession, Map<string, Open>>();
  /** Server→client requests relayed to the client: which connection their answer goes to. */
  readonly #serverRequests = new Map<string, { connection?: LegacyConnection; recording: HttpRecording }>();
  /** Background work (GET streams, relayed answers and notifications) that `close` waits for. */
  readonly #background = new Set<Promise<unknown>>();
  #next = 0;

  constructor(
    url: string,
    private readonly options: HttpFallbackOptions = {},
  ) {
    this.#url = new URL(url);
  }

  #track(p: Promise<unknown>): void {
    const q = p.catch((err: unknown) => this.options.logger?.warn({ err }, 'serve: talking to the real server failed'));
    this.#background.add(q);
    void q.finally(() => this.#background.delete(q));
  }

  #openOf(live: LiveSession): Map<string, Open> {
    let m = this.#open.get(live);
    if (!m) {
      m = new Map();
      this.#open.set(live, m);
    }
    return m;
  }

  /** Sends one message to the real server as a POST (upstream-http.ts): resolves with its answer,
   * relaying the other frames to the request's outlet, or else where they belong (#relay). */
  #post(
    recording: HttpRecording,
    connection: LegacyConnection | undefined,
    message: Json,
    live: LiveSession,
    outlet: Outlet | undefined,
    extra: Record<string, string> = {},
    abort = new AbortController(),
  ): Promise<Json | undefined> {
    const relay = (frame: Json) => this.#relay(frame, recording, connection, live, outlet);
    return postUpstream(this.#url, this.options.headers, recording, connection, message, relay, extra, abort);
  }

  /** A frame the real server sent on its own: to the request it belongs to, or the session. */
  #relay(
    frame: Json,
    recording: HttpRecording,
    connection: LegacyConnection | undefined,
    live: LiveSession,
    outlet: Outlet | undefined,
  ): void {
    if (classify(frame) === 'request') this.#serverRequests.set(idKey(frame.id), { ...(connection ? { connection } : {}), recording });
    const target = outlet ?? routeFrame(frame, this.#openOf(live).values(), live);
    target?.send(frame);
  }

  /** The 2025-era connection of a live client, set up on first need. */
  #connection(live: LiveSession, first: Json): LegacyConnection {
    let connection = this.#legacy.get(live);
    if (connection) return connection;
    const recording = new HttpRecording();
    this.#recordings.push(recording);
    connection = { live, recording, ready: Promise.resolve(), ownInitialized: false };
    if (first.method !== 'initialize' && !live.initialize && live.revision && !isModern(live.revision))
      connection.protocolVersion = live.revision;
    this.#legacy.set(live, connection);
    const c = connection;
    if (live.initialize && first.method !== 'initialize') {
      c.ready = (async () => {
        const answer = await this.#post(
          recording,
          c,
          { ...live.initialize!, id: `mcp-cassette-initialize-${randomUUID()}` },
          live,
          undefined,
        );
        if (isObject(answer?.result) && typeof answer.result.protocolVersion === 'string')
          c.protocolVersion = answer.result.protocolVersion;
        else throw new Error(`the real server did not accept the initialize: ${JSON.stringify(answer?.error ?? answer)}`);
        await this.#post(recording, c, { jsonrpc: '2.0', method: 'notifications/initialized' }, live, undefined);
        c.ownInitialized = true;
        this.#openGet(c);
      })();
      c.ready.catch(() => {});
    }
    return connection;
  }

  /** The session's standalone GET stream, relayed to the client while it lasts. */
  #openGet(c: LegacyConnection): void {
    if (!c.sessionId || c.get) return;
    const abort = new AbortController();
    c.get = abort;
    const upstream = { sessionId: c.sessionId, ...(c.protocolVersion ? { protocolVersion: c.protocolVersion } : {}) };
    const relay = (frame: Json) => this.#relay(frame, c.recording, c, c.live, undefined);
    this.#track(listenUpstream(this.#url, this.options.headers, c.recording, upstream, abort, relay));
  }

  async forward(request: Json, live: LiveSession, outlet: Outlet): Promise<void> {
    const upstreamId = `mcp-cassette-${++this.#next}`;
    const revision = revisionOf(request);
    const open: Open = { clientId: request.id, upstreamId, outlet, progressToken: progressTokenOf(request), abort: new AbortController() };
    const opens = this.#openOf(live);
    try {
      let answer: Json | undefined;
      if (revision !== undefined && isModern(revision)) {
        // 2026-07-28: a stateless exchange, a session of its own.
        const recording = new HttpRecording();
        this.#recordings.push(recording);
        const extra: Record<string, string> = {
          ...outlet.requestHeaders,
          'mcp-protocol-version': revision,
          'mcp-method': String(request.method),
        };
        const field = NAME_SOURCES[String(request.method)];
        const name = field && isObject(request.params) ? request.params[field] : undefined;
        if (typeof name === 'string' && !outlet.requestHeaders?.['mcp-name']) extra['mcp-name'] = mcpName(name);
        opens.set(idKey(request.id), open);
        answer = await this.#post(recording, undefined, { ...request, id: upstreamId }, live, outlet, extra, open.abort);
        recording.end();
      } else {
        const connection = this.#connection(live, request);
        open.connection = connection;
        await connection.ready;
        const extra: Record<string, string> = {};
        if (outlet.requestHeaders?.authorization) extra.authorization = outlet.requestHeaders.authorization;
        opens.set(idKey(request.id), open);
        answer = await this.#post(connection.recording, connection, { ...request, id: upstreamId }, live, outlet, extra, open.abort);
        if (request.method === 'initialize' && isObject(answer?.result) && typeof answer.result.protocolVersion === 'string') {
          connection.protocolVersion = answer.result.protocolVersion;
          live.revision = answer.result.protocolVersion;
        }
      }
      if (answer) outlet.send({ ...answer, id: request.id });
    } catch (err) {
      outlet.send({ jsonrpc: '2.0', id: request.id, error: { code: -32603, message: `mcp-cassette: ${(err as Error).message}` } });
    } finally {
      opens.delete(idKey(request.id));
    }
  }

  async notify(message: Json, live: LiveSession): Promise<void> {
    const opens = this.#open.get(live);
    if (message.method === 'notifications/cancelled' && isObject(message.params)) {
      const open = opens?.get(idKey(message.params.requestId));
      if (!open) return;
      if (!open.connection) {
        open.abort.abort(); // 2026-07-28: cancelling is closing the request's connection
        return;
      }
      this.#track(
        this.#post(
          open.connection.recording,
          open.connection,
          { ...message, params: { ...message.params, requestId: open.upstreamId } },
          live,
          undefined,
        ),
      );
      return;
    }
    const connection = this.#legacy.get(live);
    if (!connection) return; // nothing was forwarded for this client yet
    if (message.method === 'notifications/initialized') {
      if (connection.ownInitialized) return;
      await connection.ready;
      await this.#post(connection.recording, connection, message, live, undefined);
      this.#openGet(connection);
      return;
    }
    this.#track(connection.ready.then(() => this.#post(connection.recording, connection, message, live, undefined)));
  }

  deliver(message: Json, live: LiveSession): boolean {
    const origin = this.#serverRequests.get(idKey(message.id));
    if (!origin) return false;
    this.#serverRequests.delete(idKey(message.id));
    this.#track(this.#post(origin.recording, origin.connection, message, origin.connection?.live ?? live, undefined));
    return true;
  }

  async release(live: LiveSession): Promise<void> {
    const c = this.#legacy.get(live);
    if (!c) return;
    this.#legacy.delete(live);
    await c.ready.catch(() => {});
    c.get?.abort();
    if (c.sessionId) {
      const headers: Record<string, string> = { ...this.options.headers, 'mcp-session-id': c.sessionId };
      if (c.protocolVersion) headers['mcp-protocol-version'] = c.protocolVersion;
      const ex = c.recording.exchange('DELETE', this.#url.pathname, headers);
      try {
        const res = await httpRequest(this.#url, { method: 'DELETE', headers, signal: AbortSignal.timeout(5000) });
        ex.status = res.statusCode;
        ex.responseHeaders = redactHeaderValues(flat(res.headers));
        await res.body.dump().catch(() => {});
      } catch (err) {
        ex.outcome = 'upstream-error';
        ex.error = (err as Error).message;
      }
      ex.endT = c.recording.now();
    }
    c.recording.end();
  }

  /** Ends every real-server session and appends what was exchanged to the cassette. */
  async close(): Promise<void> {
    await Promise.all([...this.#legacy.keys()].map((live) => this.release(live)));
    for (const opens of this.#open.values()) for (const open of opens.values()) open.abort.abort();
    await Promise.all([...this.#background]);
    const sessions = this.#recordings.filter((r) => r.messages.length > 0).map((r) => r.session(this.#url.href));
    await writeSessions(sessions, this.options);
  }
}
