import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { Agent } from 'undici';
import { ensureCassetteFolder, JOURNAL_FORMAT, JOURNAL_VERSION, type JournalSink, openSessionJournal } from '../lib/cassette/journal.js';
import type { OpenJournal } from './rotation/dir-recording.js';
import type { Logger } from '../lib/log.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import { packageVersion } from '../lib/version.js';
import { LiveTap, type LiveOutcome } from './live-tap.js';
import type { ProxyContext } from './upstream-exchange.js';
import { handleRequest } from './http-intake.js';
import { sendJsonRpcError } from './http-replies.js';
import { RouteCache } from './http-route.js';
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
 * (OAuth discovery and the like) pass through the same way and are noted, not parsed. The request
 * side is recorder/http-intake.ts, the upstream side recorder/http-exchange.ts.
 */
export async function startHttpRecorder(options: HttpRecordOptions): Promise<HttpRecorder> {
  const sessionId = randomUUID();
  ensureCassetteFolder(options.cassette);
  const log = options.logger;
  const ctx: ProxyContext = {
    // Opened once the port is known; requests cannot arrive before that.
    journal: undefined as unknown as JournalSink,
    options,
    log,
    // SSE streams (the 2025 GET stream above all) may stay silent for minutes: no body timeout.
    agent: new Agent({ headersTimeout: 0, bodyTimeout: 0, keepAliveTimeout: 10_000, connections: 256 }),
    routes: new RouteCache(options.upstream, options),
  };
  let exchanges = 0;

  const server: Server = createServer((req, res) => {
    const x = ++exchanges;
    const fail = (err: unknown): void => {
      log.error({ err, exchange: x }, 'proxy error');
      if (!res.headersSent) sendJsonRpcError(res, 500, null, `mcp-cassette internal error: ${(err as Error).message}`);
      else res.destroy();
    };
    try {
      handleRequest(ctx, x, req, res, fail);
    } catch (err) {
      fail(err);
    }
  });

  await listenOn(server, options.listenPort, options.listenHost);
  const port = (server.address() as AddressInfo).port;
  const url = `http://${bracketHost(options.listenHost)}:${port}${options.upstream.pathname}${options.upstream.search}`;
  const journal = openHttpJournal(options, sessionId, url);
  ctx.journal = journal;
  options.onJournal?.(journal, sessionId);
  const live = options.live ? startLive(options, options.live, journal, sessionId, url) : undefined;

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
      await ctx.agent.destroy().catch(() => undefined);
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

/** The session's journal, with its header: where it listens and what it forwards to. */
function openHttpJournal(options: HttpRecordOptions, sessionId: string, url: string): JournalSink {
  return (options.openJournal ?? openSessionJournal)(
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
}

/** Live validation in worker threads, fed every record of the journal. */
function startLive(options: HttpRecordOptions, spec: LiveWorkerSpec, journal: JournalSink, sessionId: string, url: string): LiveTap {
  const live = new LiveTap(journal, (message) => options.logger.warn(message));
  // The target lets live rules that depend on where the server runs judge as the cassette will.
  live.start({
    ...spec,
    data: { ...spec.data, sessionId, transport: 'streamable-http', target: { url: options.upstream.href, listen: url } },
  });
  // After onJournal: a hook it set (the --ui view) hears the records too.
  const before = journal.onRecord;
  journal.onRecord = before
    ? (record, line) => {
        live.record(record, line);
        before(record, line);
      }
    : (record, line) => live.record(record, line);
  return live;
}
