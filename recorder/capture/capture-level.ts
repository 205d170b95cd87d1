import { createHash } from 'node:crypto';
import { CAPTURE_META, hashPlaceholder } from '../../lib/masked-values.js';
import { isObject } from '../../lib/plain-object.js';

/**
 * `--capture metadata|hashed`: what is left of a message once its values are dropped. Both keep
 * the JSON-RPC envelope (jsonrpc, id, method), what names the operation (tool, prompt and
 * resource names and URIs, a completion's ref, a cancelled request's id), the handshake
 * (protocol version, capabilities, client and server info), the names in list results, a tool
 * result's `isError` and an error's `code`. `metadata` drops every other value; `hashed` puts
 * `sha256:<hex>:<bytes>` in place of every other string and number (booleans and null stay: their
 * hash would tell them anyway), so equal values can still be found. Each reduced message says so
 * in its `_meta` (params, result, or error.data) under CAPTURE_META: the level, the frame's
 * size in bytes, and in `hashed` the SHA-256 of the whole params/result/error.
 */
export type CaptureLevel = 'full' | 'metadata' | 'hashed';
export const CAPTURE_LEVELS: readonly CaptureLevel[] = ['full', 'metadata', 'hashed'];
export { CAPTURE_META };

type Json = Record<string, unknown>;

const KEPT_PARAMS = new Set(['name', 'uri', 'ref', 'protocolVersion', 'capabilities', 'clientInfo', 'requestId']);
const KEPT_RESULT = new Set(['protocolVersion', 'capabilities', 'serverInfo', 'isError']);
const LISTS = new Set(['tools', 'prompts', 'resources', 'resourceTemplates']);
const KEPT_ITEM = new Set(['name', 'uri', 'uriTemplate']);

const sha256 = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** A parsed frame reduced to `level` (`bytes`: the size of the frame as it crossed the proxy). */
export function reduceJson(value: unknown, level: Exclude<CaptureLevel, 'full'>, bytes: number): unknown {
  if (Array.isArray(value)) return value.map((m) => reduceMessage(m, level, bytes));
  return reduceMessage(value, level, bytes);
}

function reduceMessage(m: unknown, level: Exclude<CaptureLevel, 'full'>, bytes: number): unknown {
  if (!isObject(m) || m.jsonrpc !== '2.0') return { [CAPTURE_META]: marker(level, bytes, m) };
  const out: Json = {};
  for (const k of ['jsonrpc', 'id', 'method']) if (Object.hasOwn(m, k)) out[k] = m[k];
  if (typeof m.method === 'string') {
    out.params = withMarker(keep(m.params, KEPT_PARAMS, level), level, bytes, m.params);
  } else if (Object.hasOwn(m, 'result')) {
    out.result = withMarker(reduceResult(m.result, level), level, bytes, m.result);
  } else if (isObject(m.error)) {
    const error: Json = { code: m.error.code, message: level === 'hashed' ? hashLeaves(m.error.message) : '' };
    error.data = { [CAPTURE_META]: marker(level, bytes, m.error) };
    out.error = error;
  }
  return out;
}

function marker(level: Exclude<CaptureLevel, 'full'>, bytes: number, payload: unknown): Json {
  return { level, bytes, ...(level === 'hashed' && payload !== undefined ? { sha256: sha256(JSON.stringify(payload) ?? 'null') } : {}) };
}

function withMarker(kept: Json, level: Exclude<CaptureLevel, 'full'>, bytes: number, payload: unknown): Json {
  return { ...kept, _meta: { [CAPTURE_META]: marker(level, bytes, payload) } };
}

/** The kept members of an object (verbatim), and in `hashed` the rest hashed. */
function keep(value: unknown, kept: ReadonlySet<string>, level: Exclude<CaptureLevel, 'full'>): Json {
  if (!isObject(value)) return {};
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '_meta') continue;
    if (kept.has(k)) out[k] = v;
    else if (level === 'hashed') out[k] = hashLeaves(v);
  }
  return out;
}

function reduceResult(result: unknown, level: Exclude<CaptureLevel, 'full'>): Json {
  const out = keep(result, KEPT_RESULT, level);
  if (!isObject(result)) return out;
  for (const list of LISTS) {
    const items = result[list];
    if (Array.isArray(items)) out[list] = items.map((item) => keep(item, KEPT_ITEM, level));
  }
  return out;
}

/** Every string and number in `value` replaced by its hash placeholder. */
export function hashLeaves(value: unknown): unknown {
  if (typeof value === 'string' || typeof value === 'number') return hashPlaceholder(value);
  if (Array.isArray(value)) return value.map(hashLeaves);
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = hashLeaves(v);
    return out;
  }
  return value;
}

/** A frame that is not JSON (a stderr line, a log line on stdout), reduced to `level`. */
export function reduceText(text: string, level: Exclude<CaptureLevel, 'full'>): string {
  if (text === '') return text;
  return level === 'hashed' ? hashPlaceholder(text) : `[${Buffer.byteLength(text)} bytes not captured]`;
}
