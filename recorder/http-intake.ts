/**
 * The request side of the HTTP recording proxy: journals a client's request, refuses it when its
 * Host or Origin fails or its body is over the limit, and reads the body before anything is
 * forwarded upstream (recorder/http-exchange.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { callerOf, tokenClaims } from './http-callers.js';
import { type ProxyContext, UpstreamExchange } from './upstream-exchange.js';
import { sendJsonRpcError } from './http-replies.js';
import type { Route } from './http-route.js';
import { redactHeaders } from './proxy-headers.js';

/** Answers the request itself with `status` and journals that it did. */
type Refuse = (status: number, message: string) => void;

export function handleRequest(ctx: ProxyContext, x: number, req: IncomingMessage, res: ServerResponse, fail: (err: unknown) => void): void {
  const { journal, options, log } = ctx;
  const path = req.url ?? '/';
  const target = ctx.routes.routeOf(path);
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

  const refuse: Refuse = (status, message) => {
    log.warn({ exchange: x, status, path }, message);
    sendJsonRpcError(res, status, null, `mcp-cassette: ${message}`);
    journal.event('http-response', { x, status, headers: { 'content-type': 'application/json' } });
    journal.event('http-end', { x, outcome: 'refused', error: message });
  };

  const guard = ctx.routes.guardOf(req.headers.host, req.headers.origin);
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
  readBody(ctx, x, req, res, target, refuse, fail);
}

/** Journals the body as it comes (held) and forwards the request once it is whole; a body over
 * the limit is refused, one the client abandons is noted. */
function readBody(
  ctx: ProxyContext,
  x: number,
  req: IncomingMessage,
  res: ServerResponse,
  target: Route,
  refuse: Refuse,
  fail: (err: unknown) => void,
): void {
  const { journal, options } = ctx;
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
      journal.event('http-end', { x, outcome: 'client-aborted', error: 'the client closed the connection while sending the request body' });
  });
  req.on('end', () => {
    ended = true;
    if (refused) return;
    journal.event('http-request-end', { x });
    try {
      new UpstreamExchange(ctx, x, res, Buffer.concat(chunks, size)).start(req, target);
    } catch (err) {
      fail(err);
    }
  });
}
