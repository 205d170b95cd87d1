/**
 * `serve --listen`: the cassette as a Streamable HTTP server. Every revision is served from the
 * same endpoint: 2026-07-28 stateless POSTs, and 2025 sessions (an `Mcp-Session-Id` is handed out
 * on `initialize` when the recorded server was stateful: any stdio recording, or an HTTP one that
 * had a session id). An answer that has frames before it (progress, logs, server→client requests)
 * is an SSE stream, as is one whose recording was; otherwise plain JSON. The listener binds
 * 127.0.0.1 unless told otherwise and refuses (403) a Host or Origin that is not loopback.
 */
import { messageText, parseMessageText } from '../../lib/json-depth.js';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkHostAndOrigin } from '../../lib/loopback-guard.js';
import { classify } from '../../lib/message.js';
import type { ServeEngine } from './engine.js';
import { LiveSession, type Outlet } from './live-session.js';
import type { Json } from './interactions.js';
import { bracketHost, listenOn } from '../../lib/listen.js';

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

const JSON_TYPE = { 'content-type': 'application/json' };

function jsonError(res: ServerResponse, status: number, message: string, code = -32000, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...JSON_TYPE, ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What a real Streamable HTTP server behind a bridge may need from the client's request. */
const FORWARDED = /^(authorization|mcp-method|mcp-name|mcp-param-.*|mcp-protocol-version|x-api-key)$/;

function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && FORWARDED.test(name)) out[name] = value;
  }
  return out;
}

function sseEvent(frame: Json): string {
  return `event: message\ndata: ${messageText(frame)}\n\n`;
}

export async function serveHttp(engine: ServeEngine, options: HttpServeOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const limit = options.maxBodySize ?? 16 * 1024 * 1024;
  const stateless = new LiveSession('http');
  const sessions = new Map<string, LiveSession>();
  const standalone = new Map<LiveSession, ServerResponse>();
  const inFlight = new Set<Promise<void>>();

  const streamOf = (live: LiveSession): Outlet => ({
    send: (frame) => {
      const res = standalone.get(live);
      if (res && !res.destroyed) res.write(sseEvent(frame));
      else engine.logger?.debug({ method: frame.method }, 'serve: no standalone stream for a frame sent outside a request');
    },
    closed: () => false,
  });
  stateless.outlet = streamOf(stateless);

  const track = (p: Promise<void>) => {
    const q = p.catch((err: unknown) => engine.logger?.error({ err }, 'serve: playing an interaction failed'));
    inFlight.add(q);
    void q.finally(() => inFlight.delete(q));
    return q;
  };

  async function post(req: IncomingMessage, res: ServerResponse, live: LiveSession, sessionHeader: string | undefined): Promise<void> {
    const body = await readBody(req, limit);
    if (!body) return jsonError(res, 413, `request body over ${limit} bytes`);
    let json: unknown;
    try {
      json = parseMessageText(body.toString('utf8'));
    } catch {
      return jsonError(res, 400, 'Parse error', -32700);
    }
    const messages = (Array.isArray(json) ? json : [json]) as Json[];
    const requests = messages.filter((m) => classify(m) === 'request');
    for (const m of messages) {
      const kind = classify(m);
      if (kind === 'response' || kind === 'error') {
        if (!engine.deliver(m, live)) {
          // Without a session id the answer may belong to any session's server→client request.
          const delivered = [...sessions.values()].some((s) => s !== live && engine.deliver(m, s));
          if (!delivered) engine.logger?.debug({ id: m.id }, 'serve: a client answer nobody waits for');
        }
      } else if (kind === 'notification') {
        void track(engine.notify(m, live, streamOf(live)));
      } else if (kind !== 'request') {
        return jsonError(res, 400, 'Invalid Request', -32600);
      }
    }
    if (requests.length === 0) {
      res.writeHead(202);
      res.end();
      return;
    }
    const revisionHeader = req.headers['mcp-protocol-version'];
    const hints = typeof revisionHeader === 'string' ? { revision: revisionHeader } : {};
    const accepts = String(req.headers.accept ?? '');
    const canStream = accepts.includes('text/event-stream');

    if (requests.length > 1 || Array.isArray(json)) {
      // A batch (2025-03-26): one JSON array of answers, or, when frames come before the answers
      // and the client takes SSE, a stream of those frames and each answer as its own event.
      const ids = new Set(requests.map((r) => JSON.stringify(r.id)));
      const answers: Json[] = [];
      let streaming = false;
      const sink: Outlet = {
        send: (f) => {
          const k = classify(f);
          const answer = (k === 'response' || k === 'error') && ids.has(JSON.stringify(f.id));
          if (answer && !streaming) return void answers.push(f);
          if (!answer && !canStream) return streamOf(live).send(f);
          if (!streaming) {
            streaming = true;
            res.writeHead(200, {
              'content-type': 'text/event-stream',
              'cache-control': 'no-cache, no-transform',
              ...(sessionHeader ? { 'mcp-session-id': sessionHeader } : {}),
            });
            for (const a of answers.splice(0)) res.write(sseEvent(a));
          }
          if (!res.destroyed) res.write(sseEvent(f));
        },
        closed: () => res.destroyed,
        requestHeaders: forwardedHeaders(req),
      };
      for (const r of requests) await track(engine.play(engine.plan(r, live, hints), r, live, sink));
      if (streaming) {
        res.end();
        return;
      }
      res.writeHead(200, { ...JSON_TYPE, ...(sessionHeader ? { 'mcp-session-id': sessionHeader } : {}) });
      res.end(`[${answers.map(messageText).join(',')}]`);
      return;
    }

    const request = requests[0]!;
    let target = live;
    if (request.method === 'initialize' && !sessionHeader) {
      target = new LiveSession(randomUUID());
      target.outlet = streamOf(target);
    }
    const plan = engine.plan(request, target, hints);
    const headers: Record<string, string> = {};
    // A forwarded `initialize` (record and passthrough bridges) gets a session too: the real
    // server behind us keeps one connection per client.
    if (target !== live && ((plan.kind === 'matched' && plan.interaction.stateful) || plan.kind === 'forward')) {
      sessions.set(target.id, target);
      headers['mcp-session-id'] = target.id;
    } else if (target !== live) {
      // A stateless 2025 server: the session's revision travels in MCP-Protocol-Version.
      target = live;
    }
    if (sessionHeader) headers['mcp-session-id'] = sessionHeader;
    const useSse =
      canStream && (engine.streams(plan, request) || (plan.kind === 'matched' && plan.interaction.contentType === 'text/event-stream'));
    const requestHeaders = forwardedHeaders(req);
    const isAnswer = (f: Json) => {
      const k = classify(f);
      return (k === 'response' || k === 'error') && JSON.stringify(f.id) === JSON.stringify(request.id);
    };
    if (useSse) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', ...headers });
      res.flushHeaders();
      let answered = false;
      const outlet: Outlet = {
        send: (f) => {
          // Frames recorded after the answer go to the session's GET stream when it has one
          // (the server closes a POST's stream once it answered).
          if (answered && standalone.has(target)) return streamOf(target).send(f);
          if (!res.destroyed) res.write(sseEvent(f));
          if (isAnswer(f)) answered = true;
        },
        closed: () => (answered && standalone.has(target) ? false : res.destroyed),
        requestHeaders,
      };
      await track(engine.play(plan, request, target, outlet));
      res.end();
      return;
    }
    let answer: Json | undefined;
    const outlet: Outlet = {
      send: (f) => {
        if (isAnswer(f) && answer === undefined) answer = f;
        else streamOf(target).send(f); // after the answer: the session's GET stream, if any
      },
      closed: () => res.destroyed,
      requestHeaders,
    };
    await track(engine.play(plan, request, target, outlet));
    if (res.destroyed) return;
    res.writeHead(200, { ...JSON_TYPE, ...headers });
    res.end(
      messageText(
        answer ?? {
          jsonrpc: '2.0',
          id: request.id,
          error: { code: -32603, message: 'mcp-cassette: the recorded session has no answer to this request' },
        },
      ),
    );
  }

  const server = createServer((req, res) => {
    void (async () => {
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
      let live = stateless;
      if (sessionHeader !== undefined) {
        const known = sessions.get(sessionHeader);
        if (!known) return jsonError(res, 404, 'Session not found', -32001);
        live = known;
      }
      if (req.method === 'POST') return post(req, res, live, sessionHeader);
      if (req.method === 'GET' && live !== stateless) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', 'mcp-session-id': live.id });
        res.flushHeaders();
        standalone.get(live)?.end();
        standalone.set(live, res);
        res.on('close', () => {
          if (standalone.get(live) === res) standalone.delete(live);
        });
        return;
      }
      if (req.method === 'DELETE' && live !== stateless) {
        sessions.delete(live.id);
        standalone.get(live)?.end();
        standalone.delete(live);
        await track(engine.release(live));
        res.writeHead(200);
        res.end();
        return;
      }
      return jsonError(res, 405, 'Method not allowed.', -32000, { allow: 'POST' });
    })().catch((err: unknown) => {
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
      for (const res of standalone.values()) res.end();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      for (const live of [...sessions.values(), stateless]) for (const waiter of live.pending.values()) waiter(undefined);
      await Promise.all([...inFlight]);
    },
  };
}
