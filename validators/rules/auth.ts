import type { HttpExchange, HttpHeaders } from '../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../lib/message.js';
import type { ExchangeRule } from '../rule.js';
import { isObject, since } from '../rule.js';
import { MODERN_REVISION, revisionOf, sessionSlot, type SessionState } from '../session-state.js';
import { headerOf } from './wire-http.js';

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
        while (i < value.length && value[i] !== '"') v += value[i] === '\\' ? value[++i] ?? '' : value[i], i++;
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

const bearerOf = (x: HttpExchange): Challenge | undefined => parseChallenges(x.responseHeaders).find((c) => c.scheme.toLowerCase() === 'bearer');
const scopesOf = (c: Challenge): string[] => (c.params.scope ?? '').split(/\s+/).filter(Boolean);

/** The revision an exchange was made under: the body's envelope, the initialize offer, the
 * header, or the session's handshake. */
function revisionOfExchange(x: HttpExchange, first: RecordedMessage, state: SessionState): string | undefined {
  const json = first.direction === 'client-to-server' && isObject(first.json) ? first.json : undefined;
  const offered = json?.method === 'initialize' && isObject(json.params) ? json.params.protocolVersion : undefined;
  return (json && revisionOf(json)) ?? (typeof offered === 'string' ? offered : undefined) ?? headerOf(x.requestHeaders, 'mcp-protocol-version') ?? state.legacyRevision;
}

/** Exchanges the proxy answered itself (Host/Origin refusal, upstream down) are not the server's. */
const fromServer = (x: HttpExchange): boolean => x.status !== undefined && x.outcome !== 'refused' && x.outcome !== 'upstream-error';

/** RFC 6750 §3.1: the status each Bearer error code goes with. */
const STATUS_OF: Record<string, number> = { invalid_request: 400, invalid_token: 401, insufficient_scope: 403 };

/** AUTH-SCOPE-ONESHOT: the scopes challenged so far for each operation (method and params). */
const challenged = sessionSlot(() => new Map<string, Set<string>>());

function operationKey(first: RecordedMessage): string | undefined {
  const json = isObject(first.json) ? first.json : undefined;
  if (!json || typeof json.method !== 'string') return undefined;
  // The envelope and an MRTR retry's extras do not change which call it is.
  const params = Object.entries(isObject(json.params) ? json.params : {}).filter(([k]) => !['_meta', 'inputResponses', 'requestState'].includes(k));
  return JSON.stringify([json.method, params]);
}

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

function urlOf(text: string): URL | undefined {
  if (urls.has(text)) return urls.get(text);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (urls.size >= 64) urls.clear();
  urls.set(text, url);
  return url;
}
/** The session's target URL is parsed once, not once per exchange (only read, never changed). */
const urls = new Map<string, URL | undefined>();

/** §20 and §22 of RULES.md: what the server's HTTP answers show about authorization. */
export const authRules: ExchangeRule[] = [
  {
    id: 'AUTH-STATUS-MAP', level: 'MUST', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Error Handling',
    revisions: since('2025-03-26'),
    title: '401 for a missing or invalid token, 403 for insufficient scope, 400 for a malformed request',
    on: [],
    check() {},
    checkExchange(x, _first, report) {
      const bearer = bearerOf(x);
      if (!bearer || !fromServer(x)) return;
      const error = bearer.params.error;
      const expected = error ? STATUS_OF[error] : undefined;
      if (expected !== undefined && x.status !== expected) report('', `HTTP ${x.status} with Bearer error="${error}"; that error goes with ${expected}`);
      else if (!error && x.status === 403 && headerOf(x.requestHeaders, 'authorization') === undefined) report('', 'a request without a token got 403 with a Bearer challenge; authorization required is 401');
    },
  },
  {
    id: 'AUTH-401-SCOPE', level: 'SHOULD', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Scope Selection Strategy',
    revisions: since('2025-11-25'),
    title: 'A 401 challenge names the scopes needed',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const bearer = bearerOf(x);
      // The scope guidance arrived with 2025-11-25.
      if (x.status !== 401 || !bearer || !fromServer(x) || (revisionOfExchange(x, first, state) ?? '') < '2025-11-25') return;
      if (bearer.params.scope === undefined) report('', 'the 401 Bearer challenge has no scope parameter; name the scopes this resource needs so the client can ask for just those');
    },
  },
  {
    id: 'AUTH-403-INSUFFICIENT', level: 'SHOULD', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Runtime Insufficient Scope Errors',
    revisions: since('2025-11-25'),
    title: 'An insufficient_scope 403 names the scopes and the resource metadata',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const bearer = bearerOf(x);
      if (x.status !== 403 || bearer?.params.error !== 'insufficient_scope' || !fromServer(x) || (revisionOfExchange(x, first, state) ?? '') < '2025-11-25') return;
      const missing = ['scope', 'resource_metadata'].filter((p) => bearer.params[p] === undefined);
      if (missing.length) report('', `the insufficient_scope challenge has no ${missing.join(' and no ')} parameter`);
    },
  },
  {
    // Compares the challenges for the same call (method and params) within one session; on
    // 2026-07-28 HTTP every exchange is a session of its own, so this shows on 2025 sessions
    // and in fixtures. The rule itself is 2026-07-28 text.
    id: 'AUTH-SCOPE-ONESHOT', level: 'SHOULD', obs: 'N', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Runtime Insufficient Scope Errors',
    revisions: since('2025-11-25'),
    title: 'One insufficient_scope challenge lists every scope the operation needs',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      if (x.status !== 403) return;
      const bearer = bearerOf(x);
      const key = operationKey(first);
      if (bearer?.params.error !== 'insufficient_scope' || !key || !fromServer(x) || (revisionOfExchange(x, first, state) ?? '') < MODERN_REVISION) return;
      const seen = challenged(state);
      const before = seen.get(key);
      const scopes = scopesOf(bearer);
      const added = before ? scopes.filter((s) => !before.has(s)) : [];
      if (before && added.length) report('', `a new challenge for the same call adds ${added.join(' ')} to the ${[...before].join(' ')} challenged before; list every scope the operation needs in one challenge`);
      seen.set(key, new Set([...(before ?? []), ...scopes]));
    },
  },
  {
    id: 'AUTH-NO-OFFLINE', level: 'SHOULD NOT', obs: '1', era: 'all', transport: 'streamable-http', source: 'basic/authorization/index.mdx §Refresh Tokens',
    revisions: since('2026-07-28'),
    title: 'No offline_access in the challenge scope',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const bearer = bearerOf(x);
      if (!bearer || !fromServer(x) || (revisionOfExchange(x, first, state) ?? '') < MODERN_REVISION) return;
      if (scopesOf(bearer).includes('offline_access')) report('', 'the Bearer challenge asks for offline_access; refresh tokens are not a resource requirement, leave offline_access to the client and the authorization server');
    },
  },
  {
    // Needs to know where the server runs: the session's target (offline and live).
    id: 'SEC-LOCAL-HTTP-OPEN', level: 'desc', obs: 'H', era: 'all', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Security & Endpoint', severity: 'info',
    title: 'A loopback HTTP server answers MCP requests without authorization',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const target = state.session.target;
      const url = target && 'url' in target ? urlOf(target.url) : undefined;
      const method = isObject(first.json) ? first.json.method : undefined;
      if (!url || !LOOPBACK.test(url.hostname) || !x.mcp || first.kind !== 'request' || method === 'server/discover' || method === 'ping') return;
      if (x.status === undefined || x.status < 200 || x.status >= 300 || !fromServer(x) || headerOf(x.requestHeaders, 'authorization') !== undefined) return;
      if (state.once('local-http-open')) report('', `the server on ${url.host} answered ${String(method)} without any Authorization: every local process (and a DNS-rebinding page, unless Origin is checked) can use it; require authentication`);
    },
  },
];
