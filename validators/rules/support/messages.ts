/** Rule support: reading messages (params, results, `_meta`, the 2026-07-28 envelope, canonical JSON). Shared by rules of several families; no rule file imports another. */
import { isObject, type Observed, type Rule } from '../../rule.js';
import { mrtrKey, type PendingRequest, revisionOf, type SessionState } from '../../session-state.js';
import { pointerToken } from '../../../lib/json-pointer.js';
import { isSpecRevision } from '../../../lib/mcp-spec.js';

export function clientCapabilities(request: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = isObject(request.params) ? request.params : undefined;
  const meta = params && isObject(params._meta) ? params._meta : undefined;
  const caps = meta?.['io.modelcontextprotocol/clientCapabilities'];
  return isObject(caps) ? caps : undefined;
}

const LABEL = '[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?';

export const KEY = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*/)?(?:[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?)?$`);

export const META = 'io.modelcontextprotocol/';

export function meta(json?: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = json && isObject(json.params) ? json.params : undefined;
  return params && isObject(params._meta) ? params._meta : undefined;
}

/** Which required envelope fields a modern request lacks (its home is where the era of an answer
 * is decided, which needs it too). */
export { missingEnvelope } from '../../legacy-rejection.js';

/**
 * The protocol version a request names in its envelope when the server does not support it:
 * absent from the `supportedVersions` the server announced (`supported`, by default the session's
 * DiscoverResult), or, before any discover answer, no MCP revision at all (lib/mcp-spec.ts: a
 * version outside them is one no server implements). Such a request is to be refused with -32022.
 */
export function unsupportedVersion(request: Record<string, unknown>, supported: readonly string[] | undefined): string | undefined {
  const version = revisionOf(request);
  if (version === undefined) return undefined;
  return (supported ? supported.includes(version) : isSpecRevision(version)) ? undefined : version;
}

/**
 * The revision a 2025-era request is sent in when no handshake of its session settled one: its
 * MCP-Protocol-Version header, else on HTTP 2025-03-26 (streamable-http.mdx §Protocol Version
 * Header: a server assumes that revision for a request without the header). A request of a
 * session that negotiated with `initialize` is in the revision the server agreed to.
 */
function legacyVersion(request: PendingRequest, state: SessionState): string | undefined {
  if (request.era !== 'legacy' || request.method === 'initialize' || state.legacyRevision !== undefined) return undefined;
  return state.header(request.msg, 'mcp-protocol-version') ?? (request.msg.http ? '2025-03-26' : undefined);
}

/**
 * Why a server may refuse a request, if it may: the request broke a MUST (a violation of error
 * severity on it, such as a missing envelope field, a header that disagrees with the body or a
 * schema breach), or it is in a protocol version the server does not support (named in its
 * envelope, or a 2025-era request to a server whose DiscoverResult lists only other versions). The
 * rules that judge whether an answer should have been a result (CAP-DECLARED-ANSWERS,
 * TOOLS-ERR-EXECUTION) do not judge the answers to such requests.
 */
export function refusable(request: PendingRequest, state: SessionState): string | undefined {
  if (request.invalid) return `it broke ${request.invalid}`;
  const version = unsupportedVersion(request.json, state.supportedVersions);
  if (version !== undefined) return `it asked for protocol version ${version}, which the server does not support`;
  const legacy = legacyVersion(request, state);
  return legacy !== undefined && state.supportedVersions && !state.supportedVersions.includes(legacy)
    ? `it is a ${legacy} request, and the server supports only ${state.supportedVersions.join(', ') || 'no version'}`
    : undefined;
}

/** An answer by which a 2025-era server turned a 2026-07-28 request away (legacy-rejection.ts):
 * judged by the server's own era, it says nothing of what a 2026-07-28 server owes that request. */
export const turnedAwayAnswer = (o: Observed): boolean => o.request?.era === 'modern' && o.era === 'legacy';

export const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export const URI = /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/;

export const resultFor = (o: O, method?: string) =>
  o.json && isObject(o.json.result) && (!method || o.request?.method === method) ? o.json.result : undefined;

export const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** A client request that retries an earlier input_required answer: its params and what the
 * server handed out then. */
export function retryOf(o: Parameters<Rule['check']>[0], state: Parameters<Rule['check']>[2]) {
  if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !('id' in o.json)) return undefined;
  const params = isObject(o.json.params) ? o.json.params : undefined;
  if (!params || !('inputResponses' in params || 'requestState' in params)) return undefined;
  const issued = state.issuedState.get(mrtrKey(o.json));
  return issued ? { params, issued, id: o.json.id } : undefined;
}

export type Json = Record<string, unknown>;

export const TASKS = 'io.modelcontextprotocol/tasks';

export const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);

export const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);

export const params = (json?: Json): Json => obj(json?.params) ?? {};

export const result = (o: Observed): Json | undefined => (o.msg.direction === 'server-to-client' ? obj(o.json?.result) : undefined);

export const clientRequest = (o: Observed): Json | undefined =>
  o.msg.direction === 'client-to-server' && o.json && typeof o.json.method === 'string' && 'id' in o.json ? o.json : undefined;

export const isReadableId = (id: unknown): boolean => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));

export const extensionsOf = (caps?: Json): Json => obj(caps?.extensions) ?? {};

export const canonicalWithMeta = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(canonicalWithMeta).join(',')}]`
    : isObject(v)
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${canonicalWithMeta(v[k])}`)
          .join(',')}}`
      : JSON.stringify(v);

/** Helpers shared by the features-*.ts rule groups. */
export type O = Parameters<Rule['check']>[0];

export type S = Parameters<Rule['check']>[2];

export const SUB_ID = 'io.modelcontextprotocol/subscriptionId';

export const LISTEN = 'subscriptions/listen';

export const metaOf = (v: unknown): Record<string, unknown> | undefined => (isObject(v) && isObject(v._meta) ? v._meta : undefined);

/** The params of a notification with this method, from either side. */
export function notification(o: O, method: string): Record<string, unknown> | undefined {
  return o.json && o.json.method === method && !('id' in o.json) && isObject(o.json.params) ? o.json.params : undefined;
}

/** `/a/b` + a key that may hold `/` or `~`. */
export const at = (base: string, key: string | number): string => `${base}/${pointerToken(key)}`;

/** JSON with sorted keys and without `_meta`, to compare answers. */
const META_ONLY: ReadonlySet<string> = new Set(['_meta']);

export function canonical(v: unknown, skip: ReadonlySet<string> = META_ONLY): string {
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, skip)).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .filter((k) => !skip.has(k))
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k], skip)}`)
      .join(',')}}`;
  return JSON.stringify(v);
}
