/** RULES.md §20: authorization (AUTH; HTTP only). */
import type { HttpExchange } from '../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../lib/message.js';
import { type BareExchangeRule, type ExchangeRule, isObject, type RecordingRule, type Rule, type SessionEndRule, since } from '../rule.js';
import { MODERN_REVISION, revisionOf, sessionSlot, type SessionState } from '../session-state.js';
import { type Challenge, exchangeOf, exchangesOf, factFromServer, fromServer, headerOf, is2xx, parseChallenges } from './support/http.js';
import { type Json, obj } from './support/messages.js';

const bearerOf = (x: HttpExchange): Challenge | undefined =>
  parseChallenges(x.responseHeaders).find((c) => c.scheme.toLowerCase() === 'bearer');

const scopesOf = (c: Challenge): string[] => (c.params.scope ?? '').split(/\s+/).filter(Boolean);

/** The revision an exchange was made under: the body's envelope, the initialize offer, the
 * header, or the session's handshake. */
function revisionOfExchange(x: HttpExchange, first: RecordedMessage, state: SessionState): string | undefined {
  const json = first.direction === 'client-to-server' && isObject(first.json) ? first.json : undefined;
  const offered = json?.method === 'initialize' && isObject(json.params) ? json.params.protocolVersion : undefined;
  return (
    (json && revisionOf(json)) ??
    (typeof offered === 'string' ? offered : undefined) ??
    headerOf(x.requestHeaders, 'mcp-protocol-version') ??
    state.legacyRevision
  );
}

/** RFC 6750 §3.1: the status each Bearer error code goes with. */
const STATUS_OF: Record<string, number> = { invalid_request: 400, invalid_token: 401, insufficient_scope: 403 };

/** AUTH-SCOPE-ONESHOT: the scopes challenged so far for each operation (method and params). */
const challenged = sessionSlot(() => new Map<string, Set<string>>());

function operationKey(first: RecordedMessage): string | undefined {
  const json = isObject(first.json) ? first.json : undefined;
  if (!json || typeof json.method !== 'string') return undefined;
  // The envelope and an MRTR retry's extras do not change which call it is.
  const params = Object.entries(isObject(json.params) ? json.params : {}).filter(
    ([k]) => !['_meta', 'inputResponses', 'requestState'].includes(k),
  );
  return JSON.stringify([json.method, params]);
}

const PRM = '/.well-known/oauth-protected-resource';

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

// --- AUTH-PRM-AS, AUTH-OWN-AS-ONLY ------------------------------------------------------------------

const PRM_PATH = /^\/\.well-known\/oauth-protected-resource(\/|\?|$)/;

/** The Protected Resource Metadata document a GET of the well-known URI got, when the cassette kept it. */
function prmOf(x: HttpExchange): Json | undefined {
  if (x.mcp || x.method !== 'GET' || !PRM_PATH.test(x.path) || !fromServer(x) || !is2xx(x) || x.responseBody === undefined)
    return undefined;
  try {
    return obj(JSON.parse(x.responseBody));
  } catch {
    return undefined;
  }
}

/** The latest PRM document of the session that was complete before `t`. */
function prmBefore(state: SessionState, t: number): Json | undefined {
  let found: { doc: Json; at: number } | undefined;
  for (const x of state.exchanges.values()) {
    const doc = prmOf(x);
    const at = x.endT ?? x.t;
    if (doc && at <= t && (!found || at >= found.at)) found = { doc, at };
  }
  return found?.doc;
}

const trimSlash = (s: string): string => s.replace(/\/+$/, '');

const LOCAL_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2})$/i;

function httpUrl(text: string): URL | undefined {
  try {
    const u = new URL(text);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/** An audience names the resource when both are the same origin and one path contains the other
 * (RFC 8707 lets a client ask for a less specific resource). */
function covers(aud: URL, resource: URL): boolean {
  if (aud.origin.toLowerCase() !== resource.origin.toLowerCase()) return false;
  const a = trimSlash(aud.pathname);
  const r = trimSlash(resource.pathname);
  return a === r || r.startsWith(`${a}/`) || a.startsWith(`${r}/`);
}

export const authRules: (Rule | ExchangeRule | RecordingRule | BareExchangeRule | SessionEndRule)[] = [
  {
    id: 'AUTH-NO-QUERY',
    level: 'MUST NOT',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Token Requirements',
    revisions: since('2025-03-26'),
    title: 'The access token never travels in the query string',
    on: ['client'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      // A path without a query has nothing to show now or later (the once is this rule's own).
      if (o.msg.direction !== 'client-to-server' || !x || !x.path.includes('?') || !state.onceIn(x.id, 'query')) return;
      const query = new URL(x.path, 'http://x').searchParams;
      for (const key of ['access_token', 'token', 'api_key', 'apikey', 'auth'])
        if (query.has(key)) report('', `a credential-like query parameter ${key} in ${x.method} ${x.path.split('?')[0]}`);
    },
  },
  {
    id: 'AUTH-BEARER',
    level: 'MUST',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Token Requirements',
    revisions: since('2025-03-26'),
    title: 'Tokens travel as Authorization: Bearer',
    on: ['client'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server') return;
      const auth = state.header(o.msg, 'authorization');
      if (
        auth !== undefined &&
        !/^Bearer\s/i.test(auth) &&
        (o.msg.http ? state.onceIn(o.msg.http.exchange, 'bearer') : state.once('bearer'))
      )
        report('', `Authorization uses the ${auth.split(' ')[0]} scheme, not Bearer`);
    },
  },
  {
    id: 'AUTH-STATUS-MAP',
    level: 'MUST',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Error Handling',
    revisions: since('2025-03-26'),
    title: '401 for a missing or invalid token, 403 for insufficient scope, 400 for a malformed request',
    on: [],
    check() {},
    checkExchange(x, _first, report) {
      const bearer = bearerOf(x);
      if (!bearer || !fromServer(x)) return;
      const error = bearer.params.error;
      const expected = error ? STATUS_OF[error] : undefined;
      if (expected !== undefined && x.status !== expected)
        report('', `HTTP ${x.status} with Bearer error="${error}"; that error goes with ${expected}`);
      else if (!error && x.status === 403 && headerOf(x.requestHeaders, 'authorization') === undefined)
        report('', 'a request without a token got 403 with a Bearer challenge; authorization required is 401');
    },
  },
  {
    id: 'AUTH-401-SCOPE',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Scope Selection Strategy',
    revisions: since('2025-11-25'),
    title: 'A 401 challenge names the scopes needed',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const bearer = bearerOf(x);
      // The scope guidance arrived with 2025-11-25.
      if (x.status !== 401 || !bearer || !fromServer(x) || (revisionOfExchange(x, first, state) ?? '') < '2025-11-25') return;
      if (bearer.params.scope === undefined)
        report(
          '',
          'the 401 Bearer challenge has no scope parameter; name the scopes this resource needs so the client can ask for just those',
        );
    },
  },
  {
    id: 'AUTH-403-INSUFFICIENT',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Runtime Insufficient Scope Errors',
    revisions: since('2025-11-25'),
    title: 'An insufficient_scope 403 names the scopes and the resource metadata',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const bearer = bearerOf(x);
      if (
        x.status !== 403 ||
        bearer?.params.error !== 'insufficient_scope' ||
        !fromServer(x) ||
        (revisionOfExchange(x, first, state) ?? '') < '2025-11-25'
      )
        return;
      const missing = ['scope', 'resource_metadata'].filter((p) => bearer.params[p] === undefined);
      if (missing.length) report('', `the insufficient_scope challenge has no ${missing.join(' and no ')} parameter`);
    },
  },
  {
    // Compares the challenges for the same call (method and params) within one session; on
    // 2026-07-28 HTTP every exchange is a session of its own, so this shows on 2025 sessions
    // and in fixtures. The rule itself is 2026-07-28 text.
    id: 'AUTH-SCOPE-ONESHOT',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Runtime Insufficient Scope Errors',
    revisions: since('2025-11-25'),
    title: 'One insufficient_scope challenge lists every scope the operation needs',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      if (x.status !== 403) return;
      const bearer = bearerOf(x);
      const key = operationKey(first);
      if (
        bearer?.params.error !== 'insufficient_scope' ||
        !key ||
        !fromServer(x) ||
        (revisionOfExchange(x, first, state) ?? '') < MODERN_REVISION
      )
        return;
      const seen = challenged(state);
      const before = seen.get(key);
      const scopes = scopesOf(bearer);
      const added = before ? scopes.filter((s) => !before.has(s)) : [];
      if (before && added.length)
        report(
          '',
          `a new challenge for the same call adds ${added.join(' ')} to the ${[...before].join(' ')} challenged before; list every scope the operation needs in one challenge`,
        );
      seen.set(key, new Set([...(before ?? []), ...scopes]));
    },
  },
  {
    id: 'AUTH-NO-OFFLINE',
    level: 'SHOULD NOT',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Refresh Tokens',
    revisions: since('2026-07-28'),
    title: 'No offline_access in the challenge scope',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const bearer = bearerOf(x);
      if (!bearer || !fromServer(x) || (revisionOfExchange(x, first, state) ?? '') < MODERN_REVISION) return;
      if (scopesOf(bearer).includes('offline_access'))
        report(
          '',
          'the Bearer challenge asks for offline_access; refresh tokens are not a resource requirement, leave offline_access to the client and the authorization server',
        );
    },
  },
  {
    // Either mechanism will do (resource_metadata in the challenge, or the document at the
    // well-known URI, at the endpoint's path or at the root). Passively, a 401 without the first
    // is flagged only when the recording shows every well-known location fetched and refused
    // (4xx); if one was never fetched it may serve the document, and nothing is said. 2025-03-26
    // traffic (no PRM at all) is not judged. One report per endpoint and recording.
    id: 'AUTH-PRM-LOCATION',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/authorization-server-discovery.mdx §Protected Resource Metadata Discovery Requirements',
    title: 'A 401 names resource_metadata, or the Protected Resource Metadata is at the well-known URI',
    on: [],
    check() {},
    checkRecording(sessions, report) {
      const xs = exchangesOf(sessions);
      const gets = xs.filter((x) => x.method === 'GET' && x.path.startsWith(PRM) && factFromServer(x));
      const refusals = (path: string): number[] | undefined => {
        const seen = gets.filter((g) => g.path === path).map((g) => g.status!);
        return seen.length > 0 && seen.every((s) => s >= 400 && s < 500) ? seen : undefined;
      };
      const done = new Set<string>();
      for (const x of xs) {
        if (x.status !== 401 || !x.mcp || !factFromServer(x) || x.resourceMetadata || !x.first || done.has(x.path)) continue;
        const revision = x.request?.revision ?? x.protocolHeader;
        if (!revision || revision < '2025-06-18') continue;
        const endpoint = x.path.replace(/\/+$/, '');
        const locations = endpoint ? [`${PRM}${endpoint}`, PRM] : [PRM];
        const refused = locations.map(refusals);
        if (refused.some((r) => r === undefined)) continue;
        done.add(x.path);
        report(
          { ...x.first, direction: 'server-to-client' },
          '',
          `HTTP 401 without WWW-Authenticate: Bearer resource_metadata="…", and the Protected Resource Metadata is not at the well-known URI either (${locations.map((l, i) => `GET ${l}: ${refused[i]!.join(', ')}`).join('; ')}); name the metadata URL in the challenge or serve the document there`,
        );
      }
    },
  },
  {
    id: 'AUTH-PRM-AS',
    level: 'MUST',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/authorization-server-discovery.mdx §Authorization Server Location',
    revisions: since('2025-06-18'),
    title: 'The Protected Resource Metadata names at least one authorization server',
    on: [],
    check() {},
    checkBareExchange(x, report) {
      const doc = prmOf(x);
      if (!doc) return;
      const servers = doc.authorization_servers;
      if (Array.isArray(servers) && servers.some((s) => typeof s === 'string' && s !== '')) return;
      const what =
        servers === undefined
          ? 'has no authorization_servers'
          : Array.isArray(servers)
            ? 'lists no authorization server in authorization_servers'
            : 'has an authorization_servers that is not an array of URLs';
      report(
        '',
        `the Protected Resource Metadata at ${x.path.split('?')[0]} ${what}; it must name at least one authorization server, so that clients can find where to get a token`,
      );
    },
  },
  {
    // Decoded at record time (the token itself is masked): iss against the authorization
    // servers the session's PRM names, aud against the PRM's resource, or else the recorded
    // server's URL when that is a public one (behind a local address the public name is unknown).
    // The client's fault, so judged on the client's message that carried the token.
    id: 'AUTH-OWN-AS-ONLY',
    level: 'MUST NOT',
    obs: 'H',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/authorization/index.mdx §Token Handling',
    revisions: since('2025-06-18'),
    title: "The client sends only tokens issued by this server's authorization server, for this server",
    on: ['client'],
    check(o, report, state) {
      const x = o.msg.direction === 'client-to-server' ? exchangeOf(o, state) : undefined;
      const claims = x?.tokenClaims;
      if (!x || !claims || !x.mcp) return;
      const prm = prmBefore(state, x.t);
      const servers = (Array.isArray(prm?.authorization_servers) ? prm.authorization_servers : []).filter(
        (s): s is string => typeof s === 'string' && s !== '',
      );
      if (
        claims.iss !== undefined &&
        servers.length > 0 &&
        !servers.some((s) => trimSlash(s) === trimSlash(claims.iss!)) &&
        state.once(`own-as-iss:${claims.iss}`)
      ) {
        report(
          '',
          `the client sent a token issued by ${claims.iss}, but the server's Protected Resource Metadata names ${servers.join(', ')}; send only tokens from the server's own authorization server`,
        );
      }
      const target = state.session.target;
      const targetUrl = target && 'url' in target ? httpUrl(target.url) : undefined;
      const resource =
        str(prm?.resource) !== undefined
          ? httpUrl(prm!.resource as string)
          : targetUrl && !LOCAL_HOST.test(targetUrl.hostname)
            ? targetUrl
            : undefined;
      const auds = claims.aud === undefined ? [] : Array.isArray(claims.aud) ? claims.aud : [claims.aud];
      const urls = auds.map(httpUrl);
      // An audience that is no URL (an API id, a client id) cannot be compared: no verdict.
      if (!resource || urls.length === 0 || urls.some((u) => !u) || urls.some((u) => covers(u!, resource))) return;
      if (state.once(`own-as-aud:${auds.join(' ')}`))
        report(
          '',
          `the client sent a token for ${auds.join(', ')}, not for this server (${resource.href}); tokens are bound to the server they were issued for (RFC 8707)`,
        );
    },
  },
];
