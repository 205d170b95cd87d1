import { isUtf8 } from 'node:buffer';
import {
  needsParsing,
  noRedactionCounts,
  redactJson,
  redactText,
  type PayloadRedaction,
  type RedactionCounts,
} from '../../lib/payload-redact.js';
import { maskSecretsInBytes } from '../../lib/secret-text.js';
import { frameToMessage, messageBytes, type RecordedMessage } from '../../lib/message.js';
import type { HashKey } from '../../lib/masked-values.js';
import { reduceJson, reduceText, reductionOf, type CaptureLevel } from './capture-level.js';

/** What the recorder does to each frame before it reaches the disk. */
export interface CaptureSettings {
  level: CaptureLevel;
  redaction: PayloadRedaction;
  /** `--capture hashed`: the key values are hashed with (hash-key.ts). */
  hashKey?: HashKey;
}

export interface FrameResult {
  data: Buffer;
  /** The frame parsed (when it was parsed for the transform), for the metrics. */
  json?: unknown;
  parsed: boolean;
}

/** Whether frames go to disk exactly as they crossed the proxy (nothing to mask, full capture). */
export function isPassThrough(s: CaptureSettings): boolean {
  return s.level === 'full' && !s.redaction.secrets && !needsParsing(s.redaction);
}

/**
 * One complete frame as it goes to disk. `json`: the frame is a message (stdin, stdout, an MCP
 * body or SSE event), else text (stderr). Full capture with only the secret shapes to mask works
 * on the bytes and leaves every other byte as it was; paths, value patterns and the reduced
 * levels parse the frame and write it again as JSON. A frame that does not parse (or is nested
 * too deep to walk) is masked as text.
 */
export function transformFrame(s: CaptureSettings, frame: Buffer, json: boolean, counts: RedactionCounts, latin1?: string): FrameResult {
  if (s.level === 'full' && !needsParsing(s.redaction)) {
    if (!s.redaction.secrets) return { data: frame, parsed: false };
    const masked = maskSecretsInBytes(frame, latin1);
    counts.secret += masked.masked;
    return { data: masked.data, parsed: false };
  }
  const utf8 = isUtf8(frame);
  const text = frame.toString(utf8 ? 'utf8' : 'latin1');
  if (json && utf8) {
    let value: unknown;
    let ok = false;
    try {
      value = JSON.parse(text);
      ok = true;
    } catch {
      // not JSON: masked as text below
    }
    if (ok) {
      try {
        let out = redactJson(s.redaction, value, counts);
        if (s.level !== 'full') out = reduceJson(out, reductionOf(s.level, s.hashKey), frame.length);
        return { data: Buffer.from(JSON.stringify(out)), json: value, parsed: true };
      } catch (err) {
        if (!(err instanceof RangeError)) throw err; // nested too deep to walk: masked as text
      }
    }
  }
  const redacted = redactText(s.redaction, text, counts);
  const out = s.level === 'full' ? redacted : reduceText(redacted, reductionOf(s.level, s.hashKey));
  return { data: Buffer.from(out, utf8 ? 'utf8' : 'latin1'), parsed: false };
}

/** Masks the secret shapes and value patterns in every string of an event's fields (headers,
 * paths, violation messages, errors). Copy on write: the value itself when nothing in it is
 * masked, as for nearly every event, so the journal writes the line it already made instead of
 * serializing a copy again (four events per HTTP exchange). */
export function redactEventFields(s: CaptureSettings, value: unknown, counts: RedactionCounts): unknown {
  if (!s.redaction.secrets && s.redaction.values.length === 0) return value;
  if (typeof value === 'string') return redactText(s.redaction, value, counts);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v = redactEventFields(s, value[i], counts);
      if (v !== value[i]) out ??= value.slice(0, i);
      out?.push(v);
    }
    return out ?? value;
  }
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record);
    let out: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const v = redactEventFields(s, record[keys[i]!], counts);
      if (v !== record[keys[i]!] && !out) {
        out = {};
        for (let j = 0; j < i; j++) out[keys[j]!] = record[keys[j]!];
      }
      if (out) out[keys[i]!] = v;
    }
    return out ?? value;
  }
  return value;
}

/** A recorded message as the cassette will keep it (the live view shows no more than that). */
export function maskedMessage(s: CaptureSettings, m: RecordedMessage): RecordedMessage {
  const { data } = transformFrame(s, messageBytes(m), m.channel !== 'stderr', noRedactionCounts());
  return frameToMessage(data, {
    seq: m.seq,
    t: m.t,
    direction: m.direction,
    channel: m.channel,
    terminated: !m.unterminated,
    ...(m.http ? { http: m.http } : {}),
  });
}
