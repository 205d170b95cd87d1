/**
 * One exchange of the HTTP recording proxy with the upstream: sends the request and streams the
 * answer back. What arrives from the upstream is journaled (held) as it comes and forwarded on the
 * next tick, once the upstream's bytes at hand are parsed: one journal write then covers the
 * headers, the chunks and the end that came in one read, and each still reaches the disk before
 * any of its bytes leaves.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Agent, Dispatcher } from 'undici';
import type { JournalSink } from '../lib/cassette/journal.js';
import type { Logger } from '../lib/log.js';
import type { HttpRecordOptions } from './http-recorder.js';
import { requestId, sendJsonRpcError } from './http-replies.js';
import type { Route, RouteCache } from './http-route.js';
import { clientResponseHeaders, redactHeaders, upstreamRequestHeaders } from './proxy-headers.js';

/** What every exchange of one recording shares. `journal` is set once the port is known:
 * requests cannot arrive before that. */
export interface ProxyContext {
  journal: JournalSink;
  options: HttpRecordOptions;
  log: Logger;
  agent: Agent;
  routes: RouteCache;
}

export class UpstreamExchange {
  #controller: Dispatcher.DispatchController | undefined;
  /** Why the exchange stopped early: the client left (undefined while it has not). */
  #clientGone: Error | undefined;
  #done = false;
  #headersSent = false;
  // What the next flush forwards, in order.
  #head: { status: number; headers: string[]; stream: boolean } | undefined;
  #pending: Buffer[] = [];
  #end = false;
  #scheduled = false;

  constructor(
    private readonly ctx: ProxyContext,
    private readonly x: number,
    private readonly res: ServerResponse,
    private readonly body: Buffer,
  ) {}

  start(req: IncomingMessage, target: Route): void {
    // The client going away ends the exchange; on 2026-07-28 closing the stream is cancellation.
    this.res.on('close', () => {
      if (this.#done) return;
      this.#clientGone = new Error('client closed the connection');
      this.#controller?.abort(this.#clientGone);
    });
    // undici's dispatch API, not request(): no promise, AbortSignal or Readable per exchange (the
    // proxy forwards each chunk itself), which cost ~70 µs of CPU per exchange.
    this.ctx.agent.dispatch(
      {
        origin: target.origin,
        path: target.upstreamPath,
        method: (req.method ?? 'GET') as Dispatcher.HttpMethod,
        headers: upstreamRequestHeaders(req.rawHeaders),
        ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body: this.body }),
      },
      {
        onRequestStart: (c) => {
          this.#controller = c;
          if (this.#clientGone) c.abort(this.#clientGone);
        },
        onResponseStart: (_c, status, headers) => this.#responseStart(status, headers),
        onResponseData: (_c, chunk) => {
          this.ctx.journal.chunk('http-response', chunk, this.x, true);
          this.#pending.push(chunk);
          this.#schedule();
        },
        onResponseEnd: () => {
          this.#done = true;
          this.ctx.journal.event('http-end', { x: this.x, outcome: 'complete' }, true);
          this.#end = true;
          this.#schedule();
        },
        onResponseError: (_c, err) => this.#responseError(err),
      },
    );
  }

  #responseStart(status: number, headers: Record<string, string | string[] | undefined>): void {
    if (status < 200) return; // informational (100 Continue, 103 Early Hints): not forwarded
    this.ctx.journal.event('http-response', { x: this.x, status, headers: redactHeaders(headers, this.ctx.options.redactHeaders) }, true);
    this.#head = {
      status,
      headers: clientResponseHeaders(headers),
      stream: String(headers['content-type'] ?? '').startsWith('text/event-stream'),
    };
    this.#schedule();
  }

  #responseError(err: Error): void {
    const { journal, options, log } = this.ctx;
    const x = this.x;
    this.#done = true;
    if (this.#clientGone) {
      journal.event('http-end', { x, outcome: 'client-aborted' });
    } else if (!this.#headersSent && !this.#head) {
      const cause = (err as { code?: string }).code ?? err.message;
      const message = `the upstream server ${options.upstream.href} cannot be reached (${cause}); is it running?`;
      log.error({ exchange: x, upstream: options.upstream.href, cause }, 'upstream unreachable');
      sendJsonRpcError(this.res, 502, requestId(this.body), `mcp-cassette: ${message}`, { upstream: options.upstream.href, cause });
      journal.event('http-response', { x, status: 502, headers: { 'content-type': 'application/json' } });
      journal.event('http-end', { x, outcome: 'upstream-error', error: message });
    } else {
      log.error({ exchange: x, err: err.message }, 'upstream response cut off');
      // What arrived before the error still goes out first.
      journal.event('http-end', { x, outcome: 'upstream-error', error: `upstream response cut off: ${err.message}` }, true);
      if (this.#scheduled) this.#flush();
      else journal.flush();
      this.res.destroy(); // the client sees the same abrupt end it would see from the upstream
    }
  }

  #flush(): void {
    this.#scheduled = false;
    this.ctx.journal.flush(); // before anything it describes leaves
    if (this.#clientGone) return;
    const res = this.res;
    const head = this.#head;
    if (head) {
      res.writeHead(head.status, head.headers);
      // An event stream must reach the client before its first event.
      if (head.stream && this.#pending.length === 0 && !this.#end) res.flushHeaders();
      this.#head = undefined;
      this.#headersSent = true;
    }
    const chunks = this.#pending;
    this.#pending = [];
    for (const chunk of chunks) {
      // A slow client pauses the upstream instead of growing a buffer here.
      const controller = this.#controller;
      if (!res.write(chunk) && controller && !controller.paused) {
        controller.pause();
        res.once('drain', () => controller.resume());
      }
    }
    if (this.#end) res.end();
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // After the upstream's bytes at hand are parsed (nextTick: no AsyncResource per call, as
    // queueMicrotask makes).
    process.nextTick(() => {
      try {
        this.#flush();
      } catch (err) {
        this.ctx.log.error({ err, exchange: this.x }, 'proxy error');
        this.res.destroy();
      }
    });
  }
}
