/**
 * `serve --listen`: the cassette as a Streamable HTTP server. Every revision is served from the
 * same endpoint: 2026-07-28 stateless POSTs, and 2025 sessions (an `Mcp-Session-Id` is handed out
 * on `initialize` when the recorded server was stateful: any stdio recording, or an HTTP one that
 * had a session id). An answer that has frames before it (progress, logs, server→client requests)
 * is an SSE stream, as is one whose recording was; otherwise plain JSON. The listener binds
 * 127.0.0.1 unless told otherwise and refuses (403) a Host or Origin that is not loopback. POSTs
 * are answered in http-post.ts; what lives across requests is in http-sessions.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkHostAndOrigin } from '../../lib/loopback-guard.js';
import type { ServeEngine } from './engine.js';
import { bracketHost, listenOn } from '../../lib/listen.js';
import { post } from './http-post.js';
import { HttpSessions } from './http-sessions.js';
import { jsonError } from './http-wire.js';

export interface HttpServeOptions {
  host?: string;
  port?: number;
  /** The MCP endpoint's path (default `/mcp`). */
  path?: string;
  allowHosts?: readonly string[];
  allowOrigins?: readonly string[];
  maxBodySize?: number;
}

export interface HttpServer {
  url: string;
  close(): Promise<void>;
}

export async function serveHttp(engine: ServeEngine, options: HttpServeOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const s = new HttpSessions(engine, options.maxBodySize ?? 16 * 1024 * 1024);

  const server = createServer((req, res) => {
    route(s, req, res, host, path, options).catch((err: unknown) => {
      engine.logger?.error({ err }, 'serve: request failed');
      if (!res.headersSent) jsonError(res, 500, 'mcp-cassette: internal error', -32603);
      else res.destroy();
    });
  });

  await listenOn(server, options.port ?? 0, host);
  const address = server.address() as AddressInfo;
  return {
    url: `http://${bracketHost(address.address)}:${address.port}${path}`,
    close: async () => {
      for (const res of s.standalone.values()) res.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const live of [...s.byId.values(), s.stateless]) for (const waiter of live.pending.values()) waiter(undefined);
      await Promise.all([...s.inFlight]);
    },
  };
}

/** One request to the listener: checked (Host/Origin, path, session), then a POST is played, a GET
 * opens the session's stream, a DELETE ends the session. */
async function route(
  s: HttpSessions,
  req: IncomingMessage,
  res: ServerResponse,
  host: string,
  path: string,
  options: HttpServeOptions,
): Promise<void> {
  const refusal = checkHostAndOrigin(req.headers.host, req.headers.origin, {
    listenHost: host,
    allowHosts: options.allowHosts ?? [],
    allowOrigins: options.allowOrigins ?? [],
  });
  if (refusal) return jsonError(res, 403, `Forbidden: ${refusal}`);
  const url = new URL(req.url ?? '/', 'http://localhost');
  if (url.pathname !== path) return jsonError(res, 404, `Not found: the MCP endpoint is ${path}`);
  const header = req.headers['mcp-session-id'];
  const sessionHeader = typeof header === 'string' ? header : undefined;
  let live = s.stateless;
  if (sessionHeader !== undefined) {
    const known = s.byId.get(sessionHeader);
    if (!known) return jsonError(res, 404, 'Session not found', -32001);
    live = known;
  }
  if (req.method === 'POST') return post(s, req, res, live, sessionHeader);
  if (req.method === 'GET' && live !== s.stateless) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'mcp-session-id': live.id });
    res.flushHeaders();
    s.standalone.get(live)?.end();
    s.standalone.set(live, res);
    res.on('close', () => {
      if (s.standalone.get(live) === res) s.standalone.delete(live);
    });
    return;
  }
  if (req.method === 'DELETE' && live !== s.stateless) {
    s.byId.delete(live.id);
    s.standalone.get(live)?.end();
    s.standalone.delete(live);
    await s.track(s.engine.release(live));
    res.writeHead(200);
    res.end();
    return;
  }
  return jsonError(res, 405, 'Method not allowed.', -32000, { allow: 'POST' });
}
