/**
 * Masked values, the one home of both placeholders a cassette can hold in place of a value:
 *
 * - `[REDACTED]`: the recorder masks secrets in argv, headers and payloads (`--redact-path`,
 *   `--redact-value`, the credential shapes), and users mask values by hand before committing a
 *   cassette; a whole value (`[REDACTED]`) or a part of it (`Bearer [REDACTED]`,
 *   `key=[REDACTED]&page=2`);
 * - `hmac-sha256:<key id>:<hex>:<bytes>`: `record --capture hashed` puts the HMAC-SHA-256 of each
 *   value, under the key of its cassette folder, and its size in its place (always a whole value);
 *   `sha256:<hex>:<bytes>`, the unkeyed SHA-256 that cassettes recorded before keys were used
 *   hold, is still read.
 *
 * Neither can be compared with the live value, so `replay` verdicts and `serve` matching treat
 * them as "any value", and neither may be replaced by the live value on `--update`.
 * `carryRedactions` masks the live value wherever the recorded one is masked, the same way. A
 * live value that does not fit a recorded `[REDACTED]` shape is masked whole: secrecy wins over
 * detail. A live value at a hash placeholder becomes the recorded placeholder (compared: equal),
 * or with `rehash` its own hash (`--update`: still no value on disk, and a true hash; a keyed
 * hash cannot be made again without its key, so there the live value is masked whole).
 */
import { createHash, createHmac } from 'node:crypto';
import { MASK } from './redact.js';
import { isObject } from './plain-object.js';

/** A value as `record --capture hashed` stored it before keys (`replay --update` of such a
 * cassette still writes it): its SHA-256 and its size in bytes. */
export function hashPlaceholder(value: string | number): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `sha256:${createHash('sha256').update(text).digest('hex')}:${Buffer.byteLength(text)}`;
}

/** The key of `record --capture hashed` (recorder/capture/hash-key.ts): `id` is a short
 * fingerprint of it that says which key made a placeholder, and tells nothing of the key. */
export interface HashKey {
  id: string;
  key: Uint8Array;
}

/** A value as `record --capture hashed` stores it: its HMAC-SHA-256 under `key` and its size in
 * bytes. Without the key a table of likely values (PINs, e-mail addresses) cannot find it. */
export function keyedHashPlaceholder(value: string | number, key: HashKey): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return `hmac-sha256:${key.id}:${createHmac('sha256', key.key).update(text).digest('hex')}:${Buffer.byteLength(text)}`;
}

/** Where a message reduced by `record --capture metadata|hashed` says how (in `_meta`). */
export const CAPTURE_META = 'dev.mcp-cassette/capture';

const HASH_PLACEHOLDER = /^(?:sha256|hmac-sha256:[0-9a-f]{8}):[0-9a-f]{64}:\d+$/;

/** Whether a recorded string is a `--capture hashed` placeholder. */
export function isHashPlaceholder(value: unknown): boolean {
  return typeof value === 'string' && value.length >= 73 && HASH_PLACEHOLDER.test(value);
}

/** Whether a recorded string stands for a masked value (wholly or in part). */
export function isMasked(value: string): boolean {
  return value.includes(MASK) || isHashPlaceholder(value);
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The live string masked the way the recorded template is. */
export function maskLike(template: string, live: string): string {
  if (!template.includes(MASK)) return live;
  const parts = template.split(MASK);
  const re = new RegExp(`^${parts.map(escapeRegExp).join('([\\s\\S]*?)')}$`);
  return re.test(live) ? parts.join(MASK) : MASK;
}

/** A copy of `live` with every value masked that is masked at the same place in `recorded`;
 * `rehash`: a live value at a hash placeholder gets its own hash (for `--update`). */
export function carryRedactions(recorded: unknown, live: unknown, options: { rehash?: boolean } = {}): unknown {
  if (typeof recorded === 'string') {
    if (live === undefined) return live;
    if (isHashPlaceholder(recorded)) {
      if (!options.rehash) return recorded;
      if (recorded.startsWith('hmac-')) return MASK;
      return typeof live === 'string' || typeof live === 'number' ? hashPlaceholder(live) : recorded;
    }
    if (!recorded.includes(MASK)) return live;
    return typeof live === 'string' ? maskLike(recorded, live) : MASK;
  }
  if (Array.isArray(recorded) && Array.isArray(live)) {
    return live.map((v, i) => (i < recorded.length ? carryRedactions(recorded[i], v, options) : v));
  }
  if (isObject(recorded) && isObject(live)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(live)) out[k] = k in recorded ? carryRedactions(recorded[k], v, options) : v;
    // How the recorder reduced the message (--capture) is the recorder's note, not traffic.
    if (CAPTURE_META in recorded && !(CAPTURE_META in live)) out[CAPTURE_META] = recorded[CAPTURE_META];
    if (isObject(recorded._meta) && CAPTURE_META in recorded._meta && !('_meta' in live))
      out._meta = { [CAPTURE_META]: recorded._meta[CAPTURE_META] };
    return out;
  }
  return live;
}

/** Whether anything in `value` is masked (a quick test before walking two messages). */
export function hasRedactions(value: unknown): boolean {
  if (typeof value === 'string') return isMasked(value);
  if (Array.isArray(value)) return value.some(hasRedactions);
  if (isObject(value)) return Object.values(value).some(hasRedactions);
  return false;
}

/** argv masked position by position where the recorded argv is masked (a `--redact-arg` the
 * recorder was given), when both have the same shape. */
export function carryArgvRedactions(recorded: readonly string[], live: readonly string[]): string[] {
  if (recorded.length !== live.length) return [...live];
  return live.map((arg, i) => maskLike(recorded[i]!, arg));
}
