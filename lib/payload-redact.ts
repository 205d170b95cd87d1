import { pointerKeys } from './json-pointer.js';
import { isObject } from './plain-object.js';
import { MASK } from './redact.js';
import { maskSecretsInText } from './secret-text.js';

/**
 * Masks values in message payloads before they reach the disk: `--redact-path` (JSON Pointers
 * into a message, `*` standing for any member or index), `--redact-value` (regular expressions
 * matched in every string) and the well-known credential shapes (lib/secret-text.ts, on unless
 * `--no-redact-secrets`). A masked value becomes MASK, the placeholder replay and serve treat as
 * "any value" (replay/redactions.ts).
 */
export interface PayloadRedaction {
  /** Pointers split into keys; `*` matches any member or index. */
  paths: readonly string[][];
  /** A match masks its first capture group, or the whole match when the pattern has none. */
  values: readonly RegExp[];
  secrets: boolean;
}

/** What was masked, by what (for the metrics). */
export interface RedactionCounts {
  secret: number;
  path: number;
  value: number;
}

export const noRedactionCounts = (): RedactionCounts => ({ secret: 0, path: 0, value: 0 });

export function parseRedactPath(pointer: string): string[] {
  return pointerKeys(pointer);
}

/** Whether payloads must be parsed (paths or value patterns); secrets alone are masked in the text. */
export function needsParsing(r: PayloadRedaction): boolean {
  return r.paths.length > 0 || r.values.length > 0;
}

/** `text` with the value patterns and (if on) the secret shapes masked. */
export function redactText(r: PayloadRedaction, text: string, counts: RedactionCounts): string {
  let out = text;
  for (const re of r.values) out = maskPattern(re, out, counts);
  if (r.secrets) {
    const s = maskSecretsInText(out);
    counts.secret += s.masked;
    out = s.text;
  }
  return out;
}

function maskPattern(re: RegExp, text: string, counts: RedactionCounts): string {
  const global = re.global ? re : new RegExp(re.source, `${re.flags}g`);
  global.lastIndex = 0;
  return text.replace(global, (m: string, ...rest: unknown[]) => {
    if (m === '') return m;
    counts.value += 1;
    const group = rest.length > 2 ? rest[0] : undefined;
    return typeof group === 'string' && group !== '' ? m.replace(group, MASK) : MASK;
  });
}

/** A copy of a parsed message with the paths masked and every string (keys aside) redacted. */
export function redactJson(r: PayloadRedaction, value: unknown, counts: RedactionCounts): unknown {
  let out = value;
  for (const path of r.paths) out = maskPath(out, path, 0, counts);
  return redactStrings(r, out, counts);
}

function maskPath(value: unknown, path: readonly string[], at: number, counts: RedactionCounts): unknown {
  if (at === path.length) {
    counts.path += 1;
    return MASK;
  }
  const key = path[at]!;
  if (Array.isArray(value)) {
    if (key === '*') return value.map((v) => maskPath(v, path, at + 1, counts));
    const i = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : -1;
    if (i < 0 || i >= value.length) return value;
    const copy = [...value];
    copy[i] = maskPath(value[i], path, at + 1, counts);
    return copy;
  }
  if (isObject(value)) {
    if (key === '*') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) out[k] = maskPath(v, path, at + 1, counts);
      return out;
    }
    if (!Object.hasOwn(value, key)) return value;
    return { ...value, [key]: maskPath(value[key], path, at + 1, counts) };
  }
  return value;
}

function redactStrings(r: PayloadRedaction, value: unknown, counts: RedactionCounts): unknown {
  if (typeof value === 'string') return value === MASK ? value : redactText(r, value, counts);
  if (Array.isArray(value)) return value.map((v) => redactStrings(r, v, counts));
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = redactStrings(r, v, counts);
    return out;
  }
  return value;
}

/** The redaction as plain data (for a worker thread): the `--redact-value` sources and the
 * secret switch. Paths are left out: they name places in messages, not in text. */
export interface TextRedactionSpec {
  values: string[];
  secrets: boolean;
}

export function textRedactionSpec(r: PayloadRedaction): TextRedactionSpec {
  return { values: r.values.map((re) => re.source), secrets: r.secrets };
}

/** A function masking text as the recorder does (for alerts, logs). */
export function textRedactor(spec: TextRedactionSpec): (text: string) => string {
  const r: PayloadRedaction = { paths: [], values: spec.values.map((v) => new RegExp(v)), secrets: spec.secrets };
  return (text) => redactText(r, text, noRedactionCounts());
}
