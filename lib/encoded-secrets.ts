import { MASK } from './redact.js';

/**
 * Credentials written in an encoding that hides their shape from lib/secret-text.ts's patterns,
 * in the two forms a frame's text can hold them and still mean the credential:
 *
 * - JSON escapes. `"\u0041KIA…"` is the same string as `"AKIA…"` once parsed, and an escape
 *   before a key (`"line\nAKIA…"`) hides its start from a word boundary. A run of token
 *   characters that holds an escape is decoded as JSON decodes it and checked again (escapes
 *   inside escapes, as in JSON text inside a JSON string, a level at a time); one that holds a
 *   credential is written back decoded, masked and escaped again, so the JSON stays valid. Only
 *   that run changes: every other byte of the frame stays as it was.
 * - base64. A JSON string value (of the frame, or of JSON text inside one of its strings) that is
 *   base64 (standard or URL-safe alphabet, padded or not) of MIN_BASE64 to MAX_BASE64
 *   characters is decoded and checked; one whose bytes hold a credential is masked whole.
 *   Longer values (images, files, resource blobs: decoding each costs its size on the
 *   forwarding thread), base64 inside a longer string (`token=QUtJ…`) and hex are not decoded
 *   (docs/production-capture.md, Redaction).
 *
 * Both hand what they decoded to `check`, which masks it by the same rules (a secret escaped
 * inside base64, base64 inside escapes) down to MAX_DECODE_DEPTH decodings.
 */

/** How many decodings deep a credential is looked for. */
export const MAX_DECODE_DEPTH = 3;

/** Base64 values shorter than this hold no credential shape (the shortest, an AWS key id of 20
 * characters, is 28 in base64). */
export const MIN_BASE64 = 24;
/** Base64 values longer than this are not decoded: 3 KB of decoded bytes. */
export const MAX_BASE64 = 4096;

/** A run of the characters tokens are made of, JSON escapes among them. Every alternative starts
 * with a different character, so the scan is linear. */
const RUN = /(?:[A-Za-z0-9_.~+=/ -]|\\u[0-9A-Fa-f]{4}|\\["\\/bfnrt])+/g;

/** `s` as the inside of a JSON string, in ASCII (so a latin1 view of bytes takes it unchanged). */
function jsonEscape(s: string): string {
  return JSON.stringify(s)
    .slice(1, -1)
    .replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A `\u` escape of a printable ASCII character: only these can spell a credential's marker
 * (`\u00e9`, `\u4e2d` cannot); decoded for a first look with the backslashes before it, so an
 * escape inside an escape (`\\u0067`) reads as its letter too. */
const ASCII_ESCAPE = /\\u00[2-7][0-9A-Fa-f]/;
const ASCII_ESCAPES = /\\+u00([2-7][0-9A-Fa-f])/g;

/**
 * Masks credentials hidden by JSON escapes: letters written as `\u` escapes, or an escape right
 * before a credential's marker (`\nAKIA…`, `\u4e2dAKIA…`: the key has no word boundary as
 * written). `escapedMarker` finds the latter (none: the text shows no marker); `mayHold` says
 * whether text with its ASCII escapes decoded shows one. Text with neither (nearly all, a
 * Python server's `ensure_ascii` output among it) costs a few searches.
 */
export function maskEscaped(
  text: string,
  escapedMarker: RegExp | undefined,
  mayHold: (view: string) => boolean,
  check: (decoded: string) => { text: string; masked: number },
): { text: string; masked: number } {
  if (!text.includes('\\')) return { text, masked: 0 };
  const spelled =
    ASCII_ESCAPE.test(text) && mayHold(text.replace(ASCII_ESCAPES, (_e, hex: string) => String.fromCharCode(Number.parseInt(hex, 16))));
  if (!spelled && !escapedMarker?.test(text)) return { text, masked: 0 };
  let masked = 0;
  const out = text.replace(RUN, (run) => {
    if (!run.includes('\\')) return run;
    let decoded: string;
    try {
      decoded = JSON.parse(`"${run}"`) as string;
    } catch {
      return run; // a trailing escape cut in half: nothing to decode
    }
    const found = check(decoded);
    if (found.masked === 0) return run;
    masked += found.masked;
    return jsonEscape(found.text);
  });
  return masked === 0 ? { text, masked: 0 } : { text: out, masked };
}

const WHOLE_BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;
/** A quote and MIN_BASE64 base64 characters: where a value that may be base64 starts (`\/`
 * counted: some JSON writers escape slashes). A literal first character scans fastest. */
const VALUE_START = /"[A-Za-z0-9+/_\\-]{24}/g;
/** Hex digits and dashes (hashes, UUIDs) are valid base64, but no encoding of a credential
 * looks like that: not decoded. */
const HEX = /^[0-9a-fA-F-]+$/;

function decodesToSecret(value: string, holds: (decoded: string) => boolean): boolean {
  if (value.length < MIN_BASE64 || value.length > MAX_BASE64 || !WHOLE_BASE64.test(value) || HEX.test(value)) return false;
  return holds(Buffer.from(value, 'base64').toString('latin1'));
}

/**
 * Masks base64 values that decode to a credential: each JSON string value of the text (`"…"`),
 * and of JSON text inside one (`\"…\"`), or the whole text when it is one value (a string
 * already decoded from JSON). A value is found by its quote and first characters, and its end by
 * a search for the next quote: a blob of megabytes is passed over at the speed of that search.
 * `holds`: whether decoded text holds a credential.
 */
export function maskBase64(text: string, holds: (decoded: string) => boolean): { text: string; masked: number } {
  if (decodesToSecret(text, holds)) return { text: MASK, masked: 1 };
  let masked = 0;
  let out = '';
  let copied = 0;
  for (let at = 0; ; ) {
    // Set before each search: `holds` masks decoded text by these same rules, with this regex.
    VALUE_START.lastIndex = at;
    const m = VALUE_START.exec(text);
    if (!m) break;
    const from = m.index + 1;
    const close = text.indexOf('"', from);
    if (close === -1) break;
    at = close + 1;
    // `\"…\"` inside a string, or `"…"`: an escaped quote ends neither.
    const nested = text.charCodeAt(from - 2) === 0x5c;
    if (nested !== (text.charCodeAt(close - 1) === 0x5c)) continue;
    const end = nested ? close - 1 : close;
    if (end - from < MIN_BASE64 || end - from > 2 * MAX_BASE64) continue;
    const raw = text.slice(from, end);
    if (!decodesToSecret(raw.includes('\\') ? raw.replaceAll('\\/', '/') : raw, holds)) continue;
    out += `${text.slice(copied, from)}${MASK}`;
    copied = end;
    masked += 1;
  }
  return masked === 0 ? { text, masked: 0 } : { text: out + text.slice(copied), masked };
}
