/**
 * Request identity for serving, Polly/VCR style but MCP-aware: a request is its method plus its
 * params with the volatile `_meta` entries removed (progress token, client info and capabilities,
 * the protocol revision, W3C trace context) and the `--ignore` paths dropped; JSON key order and
 * the JSON-RPC id never count. Identical requests are answered in recorded order.
 */
import { DEEP_TEXT } from '../../lib/json-depth.js';
import { diffJson, isObject } from '../diff.js';
import { ignored, pointer, type IgnorePattern } from '../normalise.js';
import type { Interaction, Json } from './interactions.js';
import { jsonSnippet } from '../../lib/json-snippet.js';

/** `params` (default): normalised params, repeats in recorded order, and once every recorded
 * answer was used the last one is served again. `strict`: params exactly as recorded (only the
 * progress token and key order may differ), each recorded answer served once. `order`: like
 * `params`, but requests must come in the recorded order. */
export type MatchMode = 'params' | 'strict' | 'order';

export const MATCH_MODES: readonly MatchMode[] = ['params', 'strict', 'order'];

const MODERN_META = 'io.modelcontextprotocol/';
const VOLATILE_META = new Set(['progressToken', 'traceparent', 'tracestate', 'baggage']);
/** Methods answered by method alone: the recorded answer is chosen by protocol revision. */
export const HANDSHAKE = new Set(['initialize', 'server/discover']);

export const PROTOCOL_META = 'io.modelcontextprotocol/protocolVersion';

export function isModern(revision: string | undefined): boolean {
  return revision !== undefined && revision >= '2026-07-28';
}

/** The params a request is identified by. */
export function identityParams(params: unknown, mode: MatchMode, ignore: readonly IgnorePattern[]): unknown {
  if (!isObject(params)) return params ?? {};
  const out: Json = {};
  for (const [k, v] of Object.entries(params)) {
    if (ignored(ignore, [k])) continue;
    if (k === '_meta' && isObject(v)) {
      const meta: Json = {};
      for (const [mk, mv] of Object.entries(v)) {
        if (mk === 'progressToken') continue;
        if (mode !== 'strict' && (VOLATILE_META.has(mk) || mk.startsWith(MODERN_META))) continue;
        meta[mk] = mv;
      }
      if (Object.keys(meta).length > 0) out._meta = meta;
      continue;
    }
    out[k] = stripIgnored(v, [k], ignore);
  }
  return out;
}

function stripIgnored(value: unknown, path: string[], ignore: readonly IgnorePattern[]): unknown {
  if (ignore.length === 0) return value;
  if (Array.isArray(value))
    return value.filter((_, i) => !ignored(ignore, [...path, String(i)])).map((v, i) => stripIgnored(v, [...path, String(i)], ignore));
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) if (!ignored(ignore, [...path, k])) out[k] = stripIgnored(v, [...path, k], ignore);
    return out;
  }
  return value;
}

/** Canonical JSON text: keys sorted at every level. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value))
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

export function identityKey(message: Json, mode: MatchMode, ignore: readonly IgnorePattern[]): string {
  // A request nested too deep is matched by its text (ids aside), never walked.
  if (typeof message[DEEP_TEXT] === 'string') return `${String(message.method)} text ${message[DEEP_TEXT]}`;
  return `${String(message.method)} ${canonical(identityParams(message.params, mode, ignore))}`;
}

/** What a request names: a tool, prompt or resource. */
export function nameOf(message: Json): string | undefined {
  const p = message.params;
  if (!isObject(p)) return undefined;
  if (typeof p.name === 'string') return p.name;
  if (typeof p.uri === 'string') return p.uri;
  if (isObject(p.ref) && typeof p.ref.name === 'string') return p.ref.name;
  return undefined;
}

export function describe(it: Pick<Interaction, 'method' | 'request' | 'session' | 'seq'>): string {
  const name = nameOf(it.request);
  return `${it.method}${name !== undefined ? ` ${JSON.stringify(name)}` : ''} (session ${it.session}, seq ${it.seq})`;
}

export interface Difference {
  path: string;
  recorded?: unknown;
  got?: unknown;
}

export interface Closest {
  interaction: Interaction;
  differences: Difference[];
}

/** The recorded request nearest to `message` (same method first, then fewest differences). */
export function closest(
  message: Json,
  pool: readonly Interaction[],
  mode: MatchMode,
  ignore: readonly IgnorePattern[],
): Closest | undefined {
  const live = identityParams(message.params, mode, ignore);
  let best: Closest | undefined;
  let bestScore = Infinity;
  for (const it of pool) {
    if (it.notification) continue;
    const changes = diffJson(identityParams(it.request.params, mode, ignore), live);
    const score = (it.method === message.method ? 0 : 1000) + changes.length;
    if (score < bestScore) {
      bestScore = score;
      const differences: Difference[] = changes.map((c) => ({
        path: '/params' + pointer(c.path),
        ...(c.recorded !== undefined ? { recorded: c.recorded } : {}),
        ...(c.live !== undefined ? { got: c.live } : {}),
      }));
      if (it.method !== message.method) differences.unshift({ path: '/method', recorded: it.method, got: message.method });
      best = { interaction: it, differences };
    }
  }
  return best;
}

export function explainDifferences(differences: readonly Difference[]): string {
  if (differences.length === 0) return 'no difference in params (every recorded answer was already used)';
  const parts = differences
    .slice(0, 5)
    .map(
      (d) =>
        `${d.path}: recorded ${jsonSnippet(d.recorded, 80, { absent: 'nothing' })}, got ${jsonSnippet(d.got, 80, { absent: 'nothing' })}`,
    );
  if (differences.length > 5) parts.push(`and ${differences.length - 5} more`);
  return parts.join('; ');
}
