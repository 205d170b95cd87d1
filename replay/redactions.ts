/**
 * Values a cassette holds as `[REDACTED]` (the recorder masks secrets in argv and headers, and
 * users mask secrets in recorded messages by hand before committing a cassette) cannot be
 * compared with the live value, and must never be replaced by it on `--update`. `carryRedactions`
 * masks the live value wherever the recorded one is masked, the same way: a whole value
 * (`[REDACTED]`) or a part of it (`Bearer [REDACTED]`, `key=[REDACTED]&page=2`). A live value that
 * does not fit the recorded shape is masked whole: secrecy wins over detail.
 */
import { MASK } from '../lib/redact.js';
import { isObject } from '../lib/plain-object.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The live string masked the way the recorded template is. */
export function maskLike(template: string, live: string): string {
  if (!template.includes(MASK)) return live;
  const parts = template.split(MASK);
  const re = new RegExp(`^${parts.map(escapeRegExp).join('([\\s\\S]*?)')}$`);
  return re.test(live) ? parts.join(MASK) : MASK;
}

/** A copy of `live` with every value masked that is masked at the same place in `recorded`. */
export function carryRedactions(recorded: unknown, live: unknown): unknown {
  if (typeof recorded === 'string') {
    if (!recorded.includes(MASK) || live === undefined) return live;
    return typeof live === 'string' ? maskLike(recorded, live) : MASK;
  }
  if (Array.isArray(recorded) && Array.isArray(live)) {
    return live.map((v, i) => (i < recorded.length ? carryRedactions(recorded[i], v) : v));
  }
  if (isObject(recorded) && isObject(live)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(live)) out[k] = k in recorded ? carryRedactions(recorded[k], v) : v;
    return out;
  }
  return live;
}

/** Whether anything in `value` is masked (a quick test before walking two messages). */
export function hasRedactions(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(MASK);
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
