import { CAPTURE_META, keyedHashPlaceholder, type HashKey } from '../../lib/masked-values.js';
import { isObject } from '../../lib/plain-object.js';

/**
 * `--capture metadata|hashed`: what is left of a message once its values are dropped. Both keep
 * the JSON-RPC envelope (jsonrpc, id, method), what names the operation (tool, prompt and
 * resource names and URIs, a completion's ref, a cancelled request's id), the handshake
 * (protocol version, capabilities, client and server info), the names in list results, a tool
 * result's `isError` and an error's `code`. `metadata` drops every other value; `hashed` puts
 * `hmac-sha256:<key id>:<hex>:<bytes>` in place of every other string and number (booleans and
 * null stay: their hash would tell them anyway), so equal values can still be found. The hash is
 * keyed (hash-key.ts): a plain SHA-256 of a PIN or an e-mail address is found again by hashing
 * every likely value. Each reduced message says so in its `_meta` (params, result, or error.data)
 * under CAPTURE_META: the level, the frame's size in bytes, and in `hashed` the keyed hash of the
 * whole params/result/error (`hash`).
 */
export type CaptureLevel = 'full' | 'metadata' | 'hashed';
export const CAPTURE_LEVELS: readonly CaptureLevel[] = ['full', 'metadata', 'hashed'];
export { CAPTURE_META };

type Json = Record<string, unknown>;

const KEPT_PARAMS = new Set(['name', 'uri', 'ref', 'protocolVersion', 'capabilities', 'clientInfo', 'requestId']);
const KEPT_RESULT = new Set(['protocolVersion', 'capabilities', 'serverInfo', 'isError']);
const LISTS = new Set(['tools', 'prompts', 'resources', 'resourceTemplates']);
const KEPT_ITEM = new Set(['name', 'uri', 'uriTemplate']);

/** A reduced level, with the key that `hashed` hashes with. */
export type Reduction = { level: 'metadata' } | { level: 'hashed'; key: HashKey };

/** The reduction of a level (`key`: needed for `hashed`, recorder/capture/hash-key.ts). */
export function reductionOf(level: Exclude<CaptureLevel, 'full'>, key: HashKey | undefined): Reduction {
  if (level === 'metadata') return { level };
  if (!key) throw new Error('--capture hashed needs its key (hashKeyFor)');
  return { level, key };
}

/** A parsed frame reduced (`bytes`: the size of the frame as it crossed the proxy). */
export function reduceJson(value: unknown, r: Reduction, bytes: number): unknown {
  if (Array.isArray(value)) return value.map((m) => reduceMessage(m, r, bytes));
  return reduceMessage(value, r, bytes);
}

function reduceMessage(m: unknown, r: Reduction, bytes: number): unknown {
  if (!isObject(m) || m.jsonrpc !== '2.0') return { [CAPTURE_META]: marker(r, bytes, m) };
  const out: Json = {};
  for (const k of ['jsonrpc', 'id', 'method']) if (Object.hasOwn(m, k)) out[k] = m[k];
  if (typeof m.method === 'string') {
    out.params = withMarker(keep(m.params, KEPT_PARAMS, r), r, bytes, m.params);
  } else if (Object.hasOwn(m, 'result')) {
    out.result = withMarker(reduceResult(m.result, r), r, bytes, m.result);
  } else if (isObject(m.error)) {
    const error: Json = { code: m.error.code, message: r.level === 'hashed' ? hashLeaves(m.error.message, r.key) : '' };
    error.data = { [CAPTURE_META]: marker(r, bytes, m.error) };
    out.error = error;
  }
  return out;
}

function marker(r: Reduction, bytes: number, payload: unknown): Json {
  const whole =
    r.level === 'hashed' && payload !== undefined ? { hash: keyedHashPlaceholder(JSON.stringify(payload) ?? 'null', r.key) } : {};
  return { level: r.level, bytes, ...whole };
}

function withMarker(kept: Json, r: Reduction, bytes: number, payload: unknown): Json {
  return { ...kept, _meta: { [CAPTURE_META]: marker(r, bytes, payload) } };
}

/** The kept members of an object (verbatim), and in `hashed` the rest hashed. */
function keep(value: unknown, kept: ReadonlySet<string>, r: Reduction): Json {
  if (!isObject(value)) return {};
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === '_meta') continue;
    if (kept.has(k)) out[k] = v;
    else if (r.level === 'hashed') out[k] = hashLeaves(v, r.key);
  }
  return out;
}

function reduceResult(result: unknown, r: Reduction): Json {
  const out = keep(result, KEPT_RESULT, r);
  if (!isObject(result)) return out;
  for (const list of LISTS) {
    const items = result[list];
    if (Array.isArray(items)) out[list] = items.map((item) => keep(item, KEPT_ITEM, r));
  }
  return out;
}

/** Every string and number in `value` replaced by its keyed hash placeholder. */
export function hashLeaves(value: unknown, key: HashKey): unknown {
  if (typeof value === 'string' || typeof value === 'number') return keyedHashPlaceholder(value, key);
  if (Array.isArray(value)) return value.map((v) => hashLeaves(v, key));
  if (isObject(value)) {
    const out: Json = {};
    for (const [k, v] of Object.entries(value)) out[k] = hashLeaves(v, key);
    return out;
  }
  return value;
}

/** A frame that is not JSON (a stderr line, a log line on stdout), reduced. */
export function reduceText(text: string, r: Reduction): string {
  if (text === '') return text;
  return r.level === 'hashed' ? keyedHashPlaceholder(text, r.key) : `[${Buffer.byteLength(text)} bytes not captured]`;
}
