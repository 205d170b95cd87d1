/**
 * An HTTP exchange's record (what a cassette's `exchanges` hold), built from the journal's
 * events: by the cassette fold (fold-http.ts) and by the live validator's framer
 * (validators/live-http.ts) with these same functions, so that the exchanges judged live and those
 * judged offline agree by construction.
 */
import { isUtf8 } from 'node:buffer';
import { storedHeader } from '../http-headers.js';
import { isObject } from '../plain-object.js';
import type { HttpExchange, HttpHeaders, TokenClaims } from './cassette.js';

/** The largest non-MCP response body a cassette keeps. */
export const KEPT_BODY_MAX = 64 * 1024;
const PRM_PATH = /^\/\.well-known\/oauth-protected-resource(\/|\?|$)/;

/** The fields of a journal event, as both readers see them. */
type EventFields = { t: number; [k: string]: unknown };

/**
 * Bodies outside the MCP endpoint are forwarded, not kept, except the OAuth Protected Resource
 * Metadata (GET /.well-known/oauth-protected-resource[/…]): small, public, and what the
 * authorization rules judge.
 */
export class KeptBody {
  readonly #chunks: Buffer[] = [];
  #size = 0;

  static for(record: Pick<HttpExchange, 'mcp' | 'method' | 'path'>): KeptBody | undefined {
    return !record.mcp && record.method === 'GET' && PRM_PATH.test(record.path) ? new KeptBody() : undefined;
  }

  push(chunk: Buffer): void {
    if (this.#size <= KEPT_BODY_MAX) this.#chunks.push(chunk);
    this.#size += chunk.length;
  }

  /** The body as text: nothing when it is too large, cut short, or not UTF-8. */
  text(outcome: HttpExchange['outcome']): string | undefined {
    const body = Buffer.concat(this.#chunks);
    return outcome === 'complete' && this.#size <= KEPT_BODY_MAX && isUtf8(body) ? body.toString('utf8') : undefined;
  }
}

/** The token claims a recorder noted on an `http-request` event, if any (only `iss` and `aud`). */
export function tokenClaimsOf(v: unknown): TokenClaims | undefined {
  if (!isObject(v)) return undefined;
  const out: TokenClaims = {};
  if (typeof v.iss === 'string') out.iss = v.iss;
  if (typeof v.aud === 'string' || (Array.isArray(v.aud) && v.aud.every((a) => typeof a === 'string')))
    out.aud = v.aud as string | string[];
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The exchange an `http-request` event opens (outcome `complete` until its end says otherwise). */
export function exchangeOfRequest(r: EventFields): HttpExchange {
  const claims = tokenClaimsOf(r.tokenClaims);
  return {
    id: Number(r.x),
    t: r.t,
    method: String(r.method),
    path: String(r.path),
    requestHeaders: (r.headers ?? {}) as HttpHeaders,
    outcome: 'complete',
    mcp: r.mcp === true,
    ...(claims ? { tokenClaims: claims } : {}),
    ...(typeof r.caller === 'string' ? { caller: r.caller } : {}),
  };
}

/** An `http-response` event: the status and headers. Returns whether the answer is an MCP event
 * stream (its body is split into events, each a message). */
export function answerExchange(record: HttpExchange, r: EventFields): boolean {
  record.status = Number(r.status);
  record.responseHeaders = (r.headers ?? {}) as HttpHeaders;
  const type = storedHeader(record.responseHeaders, 'content-type');
  if (type) record.contentType = type;
  return record.mcp && (type?.toLowerCase().startsWith('text/event-stream') ?? false);
}

/** The end of an exchange (an `http-end` event, or the journal's end for one still open): its
 * end time, outcome and error, and the body the cassette keeps, if any. */
export function endExchange(
  record: HttpExchange,
  t: number,
  outcome: HttpExchange['outcome'] | undefined,
  error: unknown,
  kept: KeptBody | undefined,
): void {
  record.endT = t;
  record.outcome = outcome ?? 'complete';
  if (typeof error === 'string' && error !== '') record.error = error;
  const body = kept?.text(record.outcome);
  if (body !== undefined) record.responseBody = body;
}
