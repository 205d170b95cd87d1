/**
 * Headers as the HTTP recording proxy passes them on and keeps them: which it forwards each way
 * (never the hop-by-hop ones) and which it masks before the cassette. The `--header` options and
 * the lookup of one stored header are lib/http-headers.ts.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { HttpHeaders } from '../lib/cassette/cassette.js';
import { redactHeaderValues, SECRET_HEADERS } from '../lib/redact.js';

/** Hop-by-hop headers (RFC 9110 §7.6.1) belong to one connection and are never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authenticate',
  'proxy-authorization',
]);

/** Headers whose values never reach a cassette (shared with replay --update): always masked;
 * `--redact-header` adds more. */
export const DEFAULT_REDACTED = SECRET_HEADERS;

/**
 * Request headers for the upstream, from the raw list so that repeated headers stay repeated.
 * `Host` is the upstream's (undici sets it from the URL) and `Content-Length` is recomputed.
 */
export function upstreamRequestHeaders(rawHeaders: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower === 'host' || lower === 'content-length' || lower === 'expect') continue;
    out.push(name, rawHeaders[i + 1]!);
  }
  return out;
}

/** Response headers for the client, flattened for `writeHead`, with repeats kept. */
export function clientResponseHeaders(headers: Record<string, string | string[] | undefined>): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name.toLowerCase())) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.push(name, v);
  }
  return out;
}

/** Masks secret header values (the shared list plus `--redact-header`), keeping an auth scheme
 * ("Bearer [REDACTED]") so the cassette still says how the client authenticated. */
export function redactHeaders(
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>,
  extra: readonly string[],
): HttpHeaders {
  return redactHeaderValues(headers, [...DEFAULT_REDACTED, ...extra]);
}
