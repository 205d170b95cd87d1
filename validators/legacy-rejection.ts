/**
 * Which revision an error answering a 2026-07-28 request is judged by. A client that speaks both
 * eras tries 2026-07-28 first (a `server/discover`, or any enveloped request) and falls back to
 * `initialize` when the server turns it away. What a 2025-era server answers then is its own
 * (basic/versioning.mdx §Backward Compatibility leaves it implementation-defined): the v1 SDK
 * answers -32601 on stdio and HTTP 400 with -32000 "Bad Request: Server not initialized" on
 * sessionful Streamable HTTP. Such an answer is that server speaking its own revision, so it is
 * judged by the rules of the 2025 era, not by those only a 2026-07-28 server must keep.
 */
import { isObject } from '../lib/plain-object.js';
import type { Observed } from './rule.js';
import type { SessionState } from './session-state.js';

const META = 'io.modelcontextprotocol/';

/** Which required envelope fields a 2026-07-28 request lacks. */
export function missingEnvelope(json: Record<string, unknown>): string[] {
  const params = isObject(json.params) ? json.params : undefined;
  const m = params && isObject(params._meta) ? params._meta : undefined;
  const missing: string[] = [];
  if (typeof m?.[`${META}protocolVersion`] !== 'string') missing.push(`${META}protocolVersion`);
  if (!isObject(m?.[`${META}clientCapabilities`])) missing.push(`${META}clientCapabilities`);
  return missing;
}

/** Codes only 2026-07-28 has (HeaderMismatch, MissingRequiredClientCapability,
 * UnsupportedProtocolVersion): whoever sends them speaks that revision. */
const MODERN_CODES: ReadonlySet<unknown> = new Set([-32020, -32021, -32022]);

/**
 * Whether `o`, an answer from the server, is an error by which a server of an earlier revision
 * turns a 2026-07-28 request away (an id-less one on HTTP answers its exchange's request). Never
 * once the server has shown it speaks 2026-07-28 (a DiscoverResult, a result with `resultType`:
 * `ServerContext.speaksModern`), nor for the errors by which a 2026-07-28 server refuses a request
 * (streamable-http.mdx §Backward Compatibility: a client that recognises one stays modern).
 * Otherwise it is one when it answers the `server/discover` probe (stdio.mdx §Backward
 * Compatibility: the fallback must not depend on any one error code), or when it came with HTTP
 * 400 (what a dual-era client falls back on; a 2025-06-18 or later server answers a request in an
 * MCP-Protocol-Version it does not support with 400).
 */
export function turnedAway(o: Observed, state: SessionState): boolean {
  const answer = o.json;
  const http = o.msg.http;
  if (!answer || o.msg.direction !== 'server-to-client' || state.context.speaksModern || !isObject(answer.error) || 'result' in answer)
    return false;
  const attempt = o.request ?? (http && (answer.id ?? null) === null ? state.exchangeRequest(http.exchange) : undefined);
  if (attempt?.era !== 'modern') return false;
  const code = answer.error.code;
  if (MODERN_CODES.has(code) || (code === -32602 && missingEnvelope(attempt.json).length > 0)) return false;
  return attempt.method === 'server/discover' || (http !== undefined && state.exchanges.get(http.exchange)?.status === 400);
}

/** Whether a result shows its server speaks 2026-07-28: a DiscoverResult, or a `resultType`. */
export function modernResult(method: string, result: Record<string, unknown>): boolean {
  return (method === 'server/discover' && Array.isArray(result.supportedVersions)) || typeof result.resultType === 'string';
}
