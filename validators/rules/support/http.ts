/** Rule support: HTTP headers, header value encoding, Bearer challenges and the exchanges a rule looks at. */
import type { HttpExchange, HttpHeaders } from '../../../lib/cassette/cassette.js';
import type { ExchangeFact, SessionDigest } from '../../session-digest.js';
import type { Observed } from '../../rule.js';
import { MODERN_REVISION, revisionOf, sessionSlot, type SessionState } from '../../session-state.js';

/** A header's first value, by case-insensitive name (its one home is lib/; rules import it from here). */
export { headerOf } from '../../../lib/http-headers.js';

// --- Base64 sentinel (streamable-http.mdx §Value Encoding) -------------------------------------

export const SENTINEL = /^=\?base64\?(.*)\?=$/s;

export const SENTINEL_ANY_CASE = /^=\?base64\?.*\?=$/is;

/** A value the client must send as `=?base64?…?=`: non-ASCII or control characters (a tab
 * inside is tolerated), leading or trailing whitespace, or a value that looks like a sentinel. */
export function mustEncode(value: string): boolean {
  return /[^\x20-\x7E\t]/.test(value) || /^[ \t]|[ \t]$/.test(value) || SENTINEL.test(value);
}

/** The header value with the Base64 sentinel decoded (servers compare this with the body). */
export function decodeHeaderValue(header: string): string {
  const m = SENTINEL.exec(header);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : header;
}

const sentinelOf = (value: string) => `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;

/** What is wrong with how `header` carries `value`, as far as the encoding goes. */
export function encodingProblem(name: string, header: string, value: string): string | undefined {
  if (mustEncode(value)) {
    if (SENTINEL.test(header) && decodeHeaderValue(header) === value) return undefined;
    const sent = header === value ? 'unencoded' : `as ${JSON.stringify(header)}`;
    return `${name} carries ${JSON.stringify(value)} ${sent}; a value that is not plain header-safe ASCII (or looks like a sentinel) must be sent as ${sentinelOf(value)}`;
  }
  if (header !== value && SENTINEL_ANY_CASE.test(header) && !SENTINEL.test(header))
    return `${name} is ${JSON.stringify(header)}: the =?base64? and ?= markers are lowercase and exact`;
  return undefined;
}

// --- helpers ---------------------------------------------------------------------------------

/** A 2026-07-28 request or notification POSTed by the client, by its envelope or its header. */
export function modernClientMessage(o: Observed, state: SessionState): Record<string, unknown> | undefined {
  if (o.msg.direction !== 'client-to-server' || !o.msg.http || !o.json || typeof o.json.method !== 'string') return undefined;
  const version = revisionOf(o.json) ?? state.header(o.msg, 'mcp-protocol-version');
  return (version !== undefined && version >= MODERN_REVISION) || o.era === 'modern' ? o.json : undefined;
}

/** One challenge of a WWW-Authenticate header (RFC 9110 §11.6.1): scheme and auth-params. */
export interface Challenge {
  scheme: string;
  params: Record<string, string>;
}

const TOKEN_CHAR = /[!#$%&'*+.^_`|~0-9A-Za-z-]/;

/** Parses WWW-Authenticate values (several challenges may share one value, comma-separated). */
export function parseChallenges(headers: HttpHeaders | undefined): Challenge[] {
  const raw = headers?.['www-authenticate'];
  const out: Challenge[] = [];
  for (const value of raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]) {
    let i = 0;
    let current: Challenge | undefined;
    const token = (): string => {
      const start = i;
      while (i < value.length && TOKEN_CHAR.test(value[i]!)) i++;
      return value.slice(start, i);
    };
    const spaces = (): void => {
      while (value[i] === ' ' || value[i] === '\t') i++;
    };
    while (i < value.length) {
      while (i < value.length && /[\s,]/.test(value[i]!)) i++;
      const name = token();
      if (!name) {
        i++;
        continue;
      }
      spaces();
      if (value[i] !== '=') {
        out.push((current = { scheme: name, params: {} }));
        continue;
      }
      i++;
      spaces();
      let v = '';
      if (value[i] === '"') {
        i++;
        while (i < value.length && value[i] !== '"') (v += value[i] === '\\' ? (value[++i] ?? '') : value[i]), i++;
        i++;
      } else {
        const start = i;
        while (i < value.length && value[i] !== ',' && !/\s/.test(value[i]!)) i++;
        v = value.slice(start, i);
      }
      if (current) current.params[name.toLowerCase()] = v;
    }
  }
  return out;
}

/** Exchanges the proxy answered itself (Host/Origin refusal, upstream down) are not the server's. */
export const fromServer = (x: HttpExchange): boolean => x.status !== undefined && x.outcome !== 'refused' && x.outcome !== 'upstream-error';

/** Exchanges the proxy answered itself (Host/Origin refusal, upstream down) are not the server's. */
export const factFromServer = (x: ExchangeFact): boolean =>
  x.status !== undefined && x.outcome !== 'refused' && x.outcome !== 'upstream-error';

export function exchangesOf(sessions: readonly SessionDigest[]): ExchangeFact[] {
  return sessions.flatMap((s) => [...s.exchanges.values()]).sort((a, b) => a.t - b.t || a.id - b.id);
}

/** Rule-private memory of one session, one WeakMap per concern. */
export const perSession = sessionSlot;

export const exchangeOf = (o: Observed, state: SessionState): HttpExchange | undefined =>
  o.msg.http ? state.exchanges.get(o.msg.http.exchange) : undefined;

export const is2xx = (x: HttpExchange): boolean => x.status !== undefined && x.status >= 200 && x.status < 300;

/** Statuses of layers before JSON-RPC dispatch (authorization, HTTP method, size, media type, rate limits). */
export const PRE_DISPATCH_STATUS = new Set([401, 403, 405, 406, 413, 415, 429]);

/** Errors a server may give before it looks at the method: parse, envelope, headers, version, capabilities. */
export const PRE_DISPATCH_CODES = new Set([-32700, -32600, -32020, -32021, -32022]);
