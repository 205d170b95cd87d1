import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { Agent, type Dispatcher } from 'undici';
import { ensureCassetteFolder, JOURNAL_FORMAT, JOURNAL_VERSION, type JournalSink, openSessionJournal } from '../lib/cassette/journal.js';
import type { OpenJournal } from './rotation/dir-recording.js';
import type { Logger } from '../lib/log.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import { packageVersion } from '../lib/version.js';
import { LiveTap, type LiveOutcome } from './live-tap.js';
import { callerOf, tokenClaims } from './http-callers.js';
import { checkHostAndOrigin } from '../lib/loopback-guard.js';
import { clientResponseHeaders, redactHeaders, upstreamRequestHeaders } from './proxy-headers.js';
import { redactArgv } from '../lib/redact.js';
import { bracketHost, listenOn } from '../lib/listen.js';

export interface HttpRecordOptions {
  cassette: string;
  upstream: URL;
  listenHost: string;
  listenPort: number;
  label?: string;
  redactHeaders: string[];
  /** Request bodies above this many bytes are refused with 413 before anything is forwarded. */
  maxBodyBytes: number;
  allowHosts: string[];
  allowOrigins: string[];
  logger: Logger;
  /** Validate live in a worker thread. */
  live?: LiveWorkerSpec;
  /** Called once the journal is open, before any record (the capture filter goes on here), with
   * the journal's session id (what the sessions of the cassette are named by). */
  onJournal?: (journal: JournalSink, sessionId: string) => void;
  /** Where the journal goes (default: one file beside the cassette; `--cassette-dir`: a series). */
  openJournal?: OpenJournal;
}

export interface HttpRecorder {
  /** The MCP endpoint clients should use instead of the upstream URL. */
  url: string;
  sessionId: string;
  journal: string;
  /** Stops listening, ends open streams and finishes the journal. Resolves with whether live
   * validation saw violations at the --fail-on level, and (`live`) how live validation went
   * (undefined when it was off). */
  close(): Promise<{ validationFailed: boolean; live?: LiveOutcome & { workers: number } }>;
}

/**
 * The Streamable HTTP recording proxy: a reverse proxy on loopback that forwards every request
 * to the upstream (undici, keep-alive) and streams every response back chunk by chunk, SSE
 * included, while the chunks are journaled for the cassette. Paths other than the MCP endpoint
 * (OAuth discovery and the like) pass through the same way and are noted, not parsed.
 */
export async function startHttpRecorder(options: HttpRecordOptions): Promise<HttpRecorder> {
  const sessionId = randomUUID();
  ensureCassetteFolder(options.cassette);
  // Opened once the port is known; requests cannot arrive before that.
  let journal!: JournalSink;
  // SSE streams (the 2025 GET stream above all) may stay silent for minutes: no body timeout.
  const agent = new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 10_000, connections: 256 });
  let exchanges = 0;
  const log = options.logger;

  const server: Server = createServer((req, res) => {
    const x = ++exchanges;
    const fail = (err: unknown): void => {
      log.error({ err, exchange: x }, 'proxy error');
      if (!res.headersSent) sendJsonRpcError(res, 500, null, `mcp-cassette internal error: ${(err as Error).message}`);
      else res.destroy();
    };
    try {
      handle(x, req, res, fail);
    } catch (err) {
      fail(err);
    }
  });

  // Clients use one path, one Host and one Origin all along: each is worked out once, not per
  // request (URL parsing and the Host/Origin check were a visible share of the proxy's time).
  interface Route {
    path: string;
    mcp: boolean;
    origin: string;
    upstreamPath: string;
  }
  let route: Route | undefined;
  const routeOf = (path: string): Route => {
    if (route?.path !== path) {
      const url = new URL(path, options.upstream);
      route = {
        path,
        mcp: new URL(path, 'http://proxy').pathname === options.upstream.pathname,
        origin: url.origin,
        upstreamPath: url.pathname + url.search,
      };
    }
    return route;
  };
  let guarded: { host: string | undefined; origin: string | undefined; verdict: string | undefined } | undefined;
  const guardOf = (host: string | undefined, origin: string | undefined): string | undefined => {
    if (!guarded || guarded.host !== host || guarded.origin !== origin)
      guarded = { host, origin, verdict: checkHostAndOrigin(host, origin, options) };
    return guarded.verdict;
  };

  function handle(x: number, req: IncomingMessage, res: ServerResponse, fail: (err: unknown) => void): void {
    const path = req.url ?? '/';
    const target = routeOf(path);
    const mcp = target.mcp;
    // The token is masked in the journal; a JWT's iss and aud (public, not secret) are kept.
    const claims = tokenClaims(req.headers.authorization);
    // Who asked, for the validator's server context: a salted hash of the Authorization value.
    const caller = callerOf(req.headers.authorization);
    // The request's records are held and written in one go with `http-request-end`, before
    // anything is forwarded (every non-held write, here or in another exchange, takes them too).
    journal.event(
      'http-request',
      {
        x,
        method: req.method,
        path,
        headers: redactHeaders(req.headers, options.redactHeaders),
        mcp,
        ...(claims ? { tokenClaims: claims } : {}),
        ...(caller ? { caller } : {}),
      },
      true,
    );

    const refuse = (status: number, message: string): void => {
      log.warn({ exchange: x, status, path }, message);
      sendJsonRpcError(res, status, null, `mcp-cassette: ${message}`);
      journal.event('http-response', { x, status, headers: { 'content-type': 'application/json' } });
      journal.event('http-end', { x, outcome: 'refused', error: message });
    };

    const guard = guardOf(req.headers.host, req.headers.origin);
    if (guard) {
      req.resume();
      refuse(403, guard);
      return;
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > options.maxBodyBytes) {
      req.resume();
      res.setHeader('connection', 'close');
      refuse(413, `request body of ${declared} bytes is over the limit of ${options.maxBodyBytes}; raise it with --max-body-size`);
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    let ended = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return; // the rest is discarded, never kept; the connection closes after the answer
      size += chunk.length;
      if (size > options.maxBodyBytes) {
        refused = true;
        res.setHeader('connection', 'close');
        refuse(413, `request body is over the limit of ${options.maxBodyBytes} bytes; raise it with --max-body-size`);
        return;
      }
      chunks.push(chunk);
      journal.chunk('http-request', chunk, x, true);
    });
    req.on('error', () => {}); // a client gone mid-body: 'close' below tells
    req.on('close', () => {
      // The client went away while sending its body; nothing was forwarded.
      if (!ended && !refused)
        journal.event('http-end', {
          x,
          outcome: 'client-aborted',
          error: 'the client closed the connection while sending the request body',
        });
    });
    req.on('end', () => {
      ended = true;
      if (refused) return;
      journal.event('http-request-end', { x });
      try {
        forward(x, req, res, target, Buffer.concat(chunks, size));
      } catch (err) {
        fail(err);
      }
    });
  }

  /**
   * Sends the request upstream and streams the answer back. What arrives from the upstream is
   * journaled (held) as it comes and forwarded on the next tick, once the upstream's bytes at hand
   * are parsed: one journal write then covers the headers, the chunks and the end that came in
   * one read, and each still reaches the disk before any of its bytes leaves.
   */
  function forward(x: number, req: IncomingMessage, res: ServerResponse, target: Route, body: Buffer): void {
    let controller: Dispatcher.DispatchController | undefined;
    /** Why the exchange stopped early: the client left (undefined while it has not). */
    let clientGone: Error | undefined;
    let done = false;
    let headersSent = false;
    // What the next flush forwards, in order.
    let head: { status: number; headers: string[]; stream: boolean } | undefined;
    let pending: Buffer[] = [];
    let end = false;
    let scheduled = false;

    const flush = (): void => {
      scheduled = false;
      journal.flush(); // before anything it describes leaves
      if (clientGone) return;
      if (head) {
        res.writeHead(head.status, head.headers);
        // An event stream must reach the client before its first event.
        if (head.stream && pending.length === 0 && !end) res.flushHeaders();
        head = undefined;
        headersSent = true;
      }
      const chunks = pending;
      pending = [];
      for (const chunk of chunks) {
        // A slow client pauses the upstream instead of growing a buffer here.
        if (!res.write(chunk) && controller && !controller.paused) {
          controller.pause();
          res.once('drain', () => controller!.resume());
        }
      }
      if (end) res.end();
    };
    const schedule = (): void => {
      if (scheduled) return;
      scheduled = true;
      // After the upstream's bytes at hand are parsed (nextTick: no AsyncResource per call, as
      // queueMicrotask makes).
      process.nextTick(() => {
        try {
          flush();
        } catch (err) {
          log.error({ err, exchange: x }, 'proxy error');
          res.destroy();
        }
      });
    };

    // The client going away ends the exchange; on 2026-07-28 closing the stream is cancellation.
    res.on('close', () => {
      if (done) return;
      clientGone = new Error('client closed the connection');
      controller?.abort(clientGone);
    });
    // undici's dispatch API, not request(): no promise, AbortSignal or Readable per exchange (the
    // proxy forwards each chunk itself), which cost ~70 µs of CPU per exchange.
    agent.dispatch(
      {
        origin: target.origin,
        path: target.upstreamPath,
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: upstreamRequestHeaders(req.rawHeaders),
        ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
      },
      {
        onRequestStart(c) {
          controller = c;
          if (clientGone) c.abort(clientGone);
        },
        onResponseStart(_c, status, headers) {
          if (status < 200) return; // informational (100 Continue, 103 Early Hints): not forwarded
          journal.event('http-response', { x, status, headers: redactHeaders(headers, options.redactHeaders) }, true);
          head = {
            status,
            headers: clientResponseHeaders(headers),
            stream: String(headers['content-type'] ?? '').startsWith('text/event-stream'),
          };
          schedule();
        },
        onResponseData(_c, chunk) {
          journal.chunk('http-response', chunk, x, true);
          pending.push(chunk);
          schedule();
        },
        onResponseEnd() {
          done = true;
          journal.event('http-end', { x, outcome: 'complete' }, true);
          end = true;
          schedule();
        },
        onResponseError(_c, err) {
          done = true;
          if (clientGone) {
            journal.event('http-end', { x, outcome: 'client-aborted' });
          } else if (!headersSent && !head) {
            const cause = (err as { code?: string }).code ?? err.message;
            const message = `the upstream server ${options.upstream.href} cannot be reached (${cause}); is it running?`;
            log.error({ exchange: x, upstream: options.upstream.href, cause }, 'upstream unreachable');
            sendJsonRpcError(res, 502, requestId(body), `mcp-cassette: ${message}`, { upstream: options.upstream.href, cause });
            journal.event('http-response', { x, status: 502, headers: { 'content-type': 'application/json' } });
            journal.event('http-end', { x, outcome: 'upstream-error', error: message });
          } else {
            log.error({ exchange: x, err: err.message }, 'upstream response cut off');
            // What arrived before the error still goes out first.
            journal.event('http-end', { x, outcome: 'upstream-error', error: `upstream response cut off: ${err.message}` }, true);
            if (scheduled) flush();
            else journal.flush();
            res.destroy(); // the client sees the same abrupt end it would see from the upstream
          }
        },
      },
    );
  }

  await listenOn(server, options.listenPort, options.listenHost);
  const port = (server.address() as AddressInfo).port;
  const url = `http://${bracketHost(options.listenHost)}:${port}${options.upstream.pathname}${options.upstream.search}`;
  journal = (options.openJournal ?? openSessionJournal)(
    options.cassette,
    {
      format: JOURNAL_FORMAT,
      version: JOURNAL_VERSION,
      sessionId,
      startedAt: new Date().toISOString(),
      pid: process.pid,
      hostname: hostname(),
      session: {
        transport: 'streamable-http',
        ...(options.label ? { label: options.label } : {}),
        // A password or a token-named query parameter in the upstream URL is masked, as in argv.
        target: { url: redactArgv([options.upstream.href])[0]!, listen: redactArgv([url])[0]! },
        proxy: { pid: process.pid, version: packageVersion() },
        // Judged live: every session keeps a (maybe empty) list of violations (see fold-http).
        ...(options.live ? { violations: [] } : {}),
      },
    },
    performance.now(),
  );
  options.onJournal?.(journal, sessionId);
  let live: LiveTap | undefined;
  if (options.live) {
    live = new LiveTap(journal, (message) => log.warn(message));
    // The target lets live rules that depend on where the server runs judge as the cassette will.
    live.start({
      ...options.live,
      data: { ...options.live.data, sessionId, transport: 'streamable-http', target: { url: options.upstream.href, listen: url } },
    });
    // After onJournal: a hook it set (the --ui view) hears the records too.
    const before = journal.onRecord;
    journal.onRecord = before
      ? (record, line) => {
          live!.record(record, line);
          before(record, line);
        }
      : (record, line) => live!.record(record, line);
  }

  return {
    url,
    sessionId,
    journal: journal.path,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Open SSE streams never end by themselves.
        setTimeout(() => server.closeAllConnections(), 200).unref();
      });
      // Every client connection is gone, so whatever is still in flight upstream is abandoned.
      await agent.destroy().catch(() => undefined);
      journal.event('stopped');
      const verdict = live ? await live.finish() : undefined;
      journal.close();
      return {
        validationFailed: verdict?.failed ?? false,
        ...(verdict ? { live: { ...verdict, workers: options.live?.workers ?? 1 } } : {}),
      };
    },
  };
}

function requestId(body: Buffer): string | number | null {
  try {
    const id = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

function sendJsonRpcError(res: ServerResponse, status: number, id: string | number | null, message: string, data?: unknown): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message, ...(data ? { data } : {}) } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
