/**
 * The built-in token shapes: values that change from run to run of the same server build, found
 * as tokens inside strings so that only they are masked and the text around them is still
 * compared. Clock times in the forms JavaScript and common servers print them (ISO, dash- and
 * underscore-separated file-name stamps, Date.toString, locale forms), epoch numbers (under
 * time-like keys, or milliseconds in a plausible range anywhere), pids after `pid`/`PID`,
 * sub-second durations (`9ms`), UUIDs, long hex ids, temporary paths, and the same inside
 * base64-encoded text. Each shape replaces its token by a placeholder named for it, so a value
 * that changed form (ISO → RFC 2822) still shows as a difference. Both the recorded and the live
 * message go through them (see normalise.ts), and every masked token can be reported (`Mask`).
 *
 * Precision matters as much as coverage: a replay that hides a real change is as useless as one
 * that reports a clock tick. So a clock time needs seconds or AM/PM (`3:00 items`, `12:30` stay),
 * dates need a four-digit year in 1900–2099 and valid month/day numbers, nothing matches inside a
 * run of colons, dots or slashes (IPv6 addresses, versions, paths), a bare number is an epoch only
 * as milliseconds between 2015 and 2040 (seconds need a time-like key or a fraction), and a
 * duration needs a sub-second unit or a fraction (`30s`, `5 min` stay: those are settings).
 */

import { tmpdir } from 'node:os';

/** One token a shape masked: which shape, and the text it replaced. */
export interface Mask {
  shape: string;
  value: string;
}

export interface TextNormaliser {
  name: string;
  /** What it replaces, as the server printed it. */
  example: string;
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const YEAR = '(?:19|20)\\d{2}';
/** `GMT+0100 (Central European Standard Time)`: Date.toString's zone, which changes with DST. */
const JS_ZONE = 'GMT[+-]\\d{4}(?: \\([^()\\n]*\\))?';
/** Intl puts a plain, no-break or narrow no-break space before AM/PM, depending on the ICU version. */
const SP = '[ \\u00a0\\u202f]';

const validDayMonth = (a: string, b: string): boolean => {
  const [x, y] = [Number(a), Number(b)];
  return x >= 1 && y >= 1 && x <= 31 && y <= 31 && (x <= 12 || y <= 12);
};

const escapeRegExp = (x: string) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** The temporary directories of Linux, macOS and Windows, and this machine's own. */
const TEMP_ROOTS = [
  '/tmp',
  '/var/tmp',
  '(?:/private)?/var/folders/[^/\\s]+/[^/\\s]+/T',
  '[A-Za-z]:\\\\Users\\\\[^\\\\\\s]+\\\\AppData\\\\Local\\\\Temp',
  escapeRegExp(tmpdir()),
];
const TEMP_PATH = new RegExp(`(?<![\\w.])(?:${TEMP_ROOTS.join('|')})[/\\\\][^/\\\\\\s"'<>:|*?]+`, 'g');

/** In the order they run: longer forms first, so a time inside a date string goes with its date. */
export const TEXT_NORMALISERS: readonly TextNormaliser[] = [
  {
    // File-name stamps: ISO with dashes or underscores for the colons (Playwright's
    // `page-2026-12-07T03-59-36-387Z.yml`), `2026_12_07_03_59_36`, and the compact
    // `20261207T035936Z` / `20261207_035936`. Month, day and time parts must be valid.
    name: 'file-timestamp',
    example: 'page-2026-12-07T03-59-36-387Z.yml; log_2026_12_07_03_59_36.txt; 20261207T035936Z',
    pattern: new RegExp(
      `(?<![\\d])${YEAR}(?:([-_])(\\d{2})\\1(\\d{2})[T_ -](\\d{2})[-_.](\\d{2})[-_.](\\d{2})|(\\d{2})(\\d{2})[T_-](\\d{2})(\\d{2})(\\d{2}))(?:[-_.]\\d{1,9})?Z?(?![\\d])`,
      'g',
    ),
    replace: (m, _sep, mo, d, h, mi, se, cmo, cd, ch, cmi, cse) => {
      const [month, day, hour, min, sec] = mo !== undefined ? [mo, d!, h!, mi!, se!] : [cmo!, cd!, ch!, cmi!, cse!];
      const ok = +month >= 1 && +month <= 12 && +day >= 1 && +day <= 31 && +hour <= 23 && +min <= 59 && +sec <= 60;
      return ok ? '<file-timestamp>' : m;
    },
  },
  {
    // Date.toISOString and other ISO 8601 / RFC 3339 date-times (a date alone is left alone: in
    // data it is far more often a real value than a clock reading).
    name: 'iso-8601',
    example: '2026-12-01T13:24:11.000Z',
    pattern: /\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?(?![\d])/g,
    replace: () => '<timestamp>',
  },
  {
    // Date.prototype.toString, with or without the zone name in parentheses.
    name: 'js-date',
    example: 'Tue Dec 01 2026 13:24:11 GMT+0000 (Coordinated Universal Time)',
    pattern: new RegExp(`\\b${DAY} ${MONTH} \\d{2} -?\\d{4,6} \\d{2}:\\d{2}:\\d{2}(?: ${JS_ZONE})?`, 'g'),
    replace: () => '<js-date>',
  },
  {
    // RFC 2822 (mail) and RFC 9110 HTTP dates; Date.toUTCString prints the latter.
    name: 'rfc2822-date',
    example: 'Tue, 01 Dec 2026 13:24:11 GMT; Tue, 1 Dec 2026 13:24:11 +0000',
    pattern: new RegExp(
      `(?:\\b${DAY},${SP}*)?\\b\\d{1,2} ${MONTH} \\d{4} \\d{2}:\\d{2}(?::\\d{2})? (?:[+-]\\d{4}|GMT|UTC?|Z|[ECMP][SD]T)(?![\\w])`,
      'g',
    ),
    replace: () => '<rfc2822-date>',
  },
  {
    // Date.prototype.toDateString.
    name: 'js-day',
    example: 'Tue Dec 01 2026',
    pattern: new RegExp(`\\b${DAY} ${MONTH} \\d{2} ${YEAR}\\b`, 'g'),
    replace: () => '<js-day>',
  },
  {
    // toLocaleDateString / the date of toLocaleString: en-US 12/1/2026, en-GB 01/12/2026,
    // de 1.12.2026, ru 01.12.2026, nl 1-12-2026. Not inside paths, versions or longer runs.
    name: 'locale-date',
    example: '12/1/2026; 01.12.2026; 1-12-2026',
    pattern: new RegExp(`(?<![\\w/.:-])(\\d{1,2})([/.-])(\\d{1,2})\\2(${YEAR})(?![\\d/]|[.-]\\d)`, 'g'),
    replace: (m, a, _sep, b) => (validDayMonth(a!, b!) ? '<locale-date>' : m),
  },
  {
    // The year-first locale dates: ja and zh 2026/12/1, and en-CA's 2026-12-01 when a time
    // follows (toLocaleString; an ISO date alone is left alone, see iso-8601).
    name: 'locale-date-ymd',
    example: '2026/12/1; 2026-12-01, 1:24:11 p.m.',
    pattern: new RegExp(
      `(?<![\\w/.:-])${YEAR}(?:/(\\d{1,2})/(\\d{1,2})(?![\\d/]|\\.\\d)|-(\\d{2})-(\\d{2})(?=,${SP}\\d{1,2}:\\d{2}))`,
      'g',
    ),
    replace: (m, a, b, c, d) => {
      const [month, day] = a !== undefined ? [a, b!] : [c!, d!];
      return validDayMonth(month, day) && Number(month) <= 12 ? '<locale-date>' : m;
    },
  },
  {
    // toLocaleTimeString / the time of toLocaleString, Date.toTimeString (with its zone):
    // 1:24:11 PM, 1:24:11 p.m., 13:24:11, 1:24 PM. A time without seconds and without AM/PM
    // (3:00, took 12:30 minutes) is left alone: too often a duration, a score or a ratio.
    name: 'clock-time',
    example: '1:24:11 PM; 1:24:11 p.m.; 13:24:11; 13:24:11 GMT+0000 (Coordinated Universal Time)',
    pattern: new RegExp(
      `(?<![\\d:.])(?:[01]?\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(?:[.,]\\d{1,9})?)?(${SP}?(?:[AaPp][Mm]|[ap]\\.m\\.))?(?![\\d:]|[A-Za-z])(?: ${JS_ZONE})?`,
      'g',
    ),
    replace: (m, seconds, ampm) => (seconds || ampm ? '<clock-time>' : m),
  },
  {
    name: 'uuid',
    example: '0b5d3c1e-9a4f-4f8e-8c1b-2d3e4f5a6b7c',
    pattern: /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
    replace: () => '<uuid>',
  },
  {
    // A long hex id: 16 or more hex digits of one case with at least one letter and one digit
    // (request ids, trace ids, hashes of volatile input), not part of a longer word.
    name: 'hex-id',
    example: '3f9a0c2e7b1d4e6f8a9b',
    pattern: /(?<![0-9A-Za-z])(?:[0-9a-f]{16,}|[0-9A-F]{16,})(?![0-9A-Za-z])/g,
    replace: (m) => (/[a-fA-F]/.test(m) && /\d/.test(m) ? '<hex-id>' : m),
  },
  {
    // A process id after `pid`/`PID`: `PID 1724`, `pid: 1685`, `"pid": 1685` in printed JSON.
    name: 'pid',
    example: 'PID 1724; "pid": 1685',
    pattern: /\b(pid|PID|Pid|ppid|PPID)("?[ \t]*[:=#]?[ \t]*)(\d{1,8})(?!\d|\.\d)/g,
    replace: (_m, word, sep) => `${word}${sep}<pid>`,
  },
  {
    // A sub-second duration, or one with a fraction: `Runtime: 9ms`, `12.5 ms`, `took 1.25s`.
    // Whole seconds and longer units (`30s`, `5 min`) are left alone: those are settings.
    name: 'duration',
    example: 'Runtime: 9ms; 12.5 ms; took 1.25s',
    pattern: /(?<![\w.])\d+(?:\.\d+)?[ ]?(?:ms|µs|μs|us|ns)(?![\w])|(?<![\w.])\d+\.\d+[ ]?s(?![\w])/g,
    replace: () => '<duration>',
  },
  {
    // A path under the temporary directory: its first segment is made fresh per run
    // (mkdtemp), so it is masked and the rest of the path is still compared.
    name: 'temp-path',
    example: '/tmp/mcp-abc123/out.txt; C:\\Users\\ada\\AppData\\Local\\Temp\\x1y2\\out.txt',
    pattern: TEMP_PATH,
    replace: () => '<temp-dir>',
  },
  {
    // An epoch number after a time-like name in text: `mtime: 1764595451`, `"createdAt":
    // 1764595451123` in JSON printed into a text content item, `timestamp=1764595451.5`.
    name: 'epoch-in-text',
    example: 'createdAt: 1764595451123',
    pattern: /(?<![\w-])([A-Za-z_][\w-]*)("?[ \t]*[:=][ \t]*"?)(\d{9,13}(?:\.\d+)?)(?![\d.])/g,
    replace: (m, key, sep, n) => (isTimeKey(key!) && isEpoch(Number(n)) ? `${key}${sep}<epoch>` : m),
  },
  {
    // Epoch milliseconds anywhere (`"firstUsed": 1796616453824`, `search_1_1796616453975`), and
    // epoch seconds with a fraction (`1796616453.975`, Python's time.time()): both only between
    // 2015 and 2040, where a 13-digit number is far likelier a clock than a count. Whole epoch
    // seconds need a time-like key (above): ten digits are too often a phone number or an id.
    name: 'epoch-number',
    example: 'search_1_1796616453975; 1796616453.975',
    pattern: /(?<![\d.])(\d{13}|\d{10}\.\d{1,9})(?![\d]|\.\d)/g,
    replace: (m) => (isPlausibleEpoch(Number(m)) ? (m.includes('.') ? '<epoch>' : '<epoch-ms>') : m),
  },
];

/** Every normaliser in turn; each token replaced is added to `masks` when given. */
export function normaliseText(s: string, masks?: Mask[]): string {
  let out = s;
  for (const n of TEXT_NORMALISERS) {
    const replace = n.replace as (m: string, ...g: string[]) => string;
    out = out.replace(
      n.pattern,
      masks
        ? (m: string, ...g: string[]) => {
            const r = replace(m, ...g);
            if (r !== m) masks.push({ shape: n.name, value: changedPart(m, r) });
            return r;
          }
        : replace,
    );
  }
  return out;
}

/** What a shape replaced, without the text it kept around it (`PID 7` → `PID <pid>`: `7`). */
function changedPart(match: string, replaced: string): string {
  let a = 0;
  while (a < match.length && a < replaced.length && match[a] === replaced[a]) a++;
  let b = 0;
  while (b < match.length - a && b < replaced.length - a && match[match.length - 1 - b] === replaced[replaced.length - 1 - b]) b++;
  return match.slice(a, match.length - b);
}

/** Epoch milliseconds, or seconds with a fraction, between 2015-01-01 and 2040-01-01: a number
 * that is a clock reading wherever it stands, whatever key it is under. */
export function isPlausibleEpoch(n: number): boolean {
  if (!Number.isFinite(n)) return false;
  const FROM = 1_420_070_400; // 2015-01-01
  const TO = 2_208_988_800; // 2040-01-01
  return Number.isInteger(n) ? n >= FROM * 1000 && n <= TO * 1000 : n >= FROM && n <= TO;
}

/** Keys that hold a process id. */
const PID_KEYS = /^(?:pid|ppid|processId|process_id|parentPid)$/i;

/**
 * Whether a key names a time: its last word (camelCase, snake_case and kebab-case split; a
 * trailing unit such as `Ms` dropped) is a time word, or ends in one. `createdAt`, `created`,
 * `accessed`, `modified`, `mtimeMs`, `birthtime`, `timestamp`, `time`, `date`, `expiresAt`,
 * `updated_at`, `lastModified` are; `createdBy`, `timeout`, `timeZone`, `expires_in`, `count` are not.
 */
export function isTimeKey(key: string): boolean {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[\s_.-]+/)
    .filter(Boolean);
  while (words.length > 1 && TIME_UNITS.has(words[words.length - 1]!)) words.pop();
  const last = words[words.length - 1];
  if (last === undefined) return false;
  if (words.length > 1 && EVENT_WORDS.has(last)) return true;
  return TIME_WORDS.has(last) || TIME_SUFFIXES.some((s) => last.endsWith(s));
}

const TIME_UNITS = new Set(['ms', 's', 'sec', 'secs', 'seconds', 'millis', 'milliseconds', 'utc', 'unix', 'epoch']);
const TIME_WORDS = new Set(['at', 'on', 't', 'ts', 'when', 'now', 'expiry', 'expiration', 'expires', 'since', 'epoch', 'seen']);
/** Words that name a time only after another word: `firstUsed`, `lastRun`, `jobStarted` (a bare
 * `used` is more often a byte count). */
const EVENT_WORDS = new Set(['used', 'started', 'ended', 'finished', 'opened', 'closed', 'run', 'login']);
const TIME_SUFFIXES = ['time', 'date', 'stamp', 'created', 'updated', 'modified', 'accessed', 'changed'];

/** Epoch seconds (fractions allowed) or milliseconds between 2000-01-01 and 2100-01-01. Values
 * between the two ranges (4.1e9 … 9.5e11) are neither, so a phone number there stays. */
export function isEpoch(n: number): boolean {
  if (!Number.isFinite(n)) return false;
  const SECONDS_MIN = 946_684_800; // 2000-01-01
  const SECONDS_MAX = 4_102_444_800; // 2100-01-01
  return (n >= SECONDS_MIN && n <= SECONDS_MAX) || (Number.isInteger(n) && n >= SECONDS_MIN * 1000 && n <= SECONDS_MAX * 1000);
}

/** Keys whose string values may carry base64 text: resource `blob`s and content items' `data`. */
const BASE64_KEYS = new Set(['blob', 'data']);
/** Canonical base64 (whole quads, `=` only as the last one or two characters), checked without a
 * repeated group: a regex like /^(?:[A-Za-z0-9+/]{4})+$/ overflows the stack on a string of a few
 * megabytes, and a server decides how long its strings are. */
function isBase64(s: string): boolean {
  if (s.length % 4 !== 0 || /[^A-Za-z0-9+/=]/.test(s)) return false;
  const pad = s.indexOf('=');
  return pad === -1 || pad === s.length - 1 || (pad === s.length - 2 && s.endsWith('='));
}
/** Control characters other than tab, newlines, form feed and escape: a sign of binary data. */
const BINARY_CHAR = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f\u007f]/;
export const BASE64_TEXT_MARK = '<base64 text> ';

/**
 * The text a base64 value encodes, when it encodes text: canonical base64 of at least 8
 * characters whose bytes are valid UTF-8 without control characters. Images, audio and other
 * binary data fail the UTF-8 or control-character test and are compared as they are. The decision
 * needs no `mimeType`: text under a binary type is still text, binary under a text type is not.
 */
export function base64Text(s: string): string | undefined {
  if (s.length < 8 || !isBase64(s)) return undefined;
  const bytes = Buffer.from(s, 'base64');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
  return BINARY_CHAR.test(text) ? undefined : text;
}

/**
 * A string or number with its volatile parts replaced. `key` is the property it sits under.
 * Under a time-like key an epoch number, or a string holding one, becomes `<epoch>`; a `blob` or
 * `data` string holding base64 text becomes `<base64 text> ` and the normalised decoded text (so a
 * real change in it still shows, readably); other strings go through every text normaliser.
 */
export function normaliseScalar(value: string | number, key: string | undefined, masks?: Mask[]): string | number {
  const timeKey = key !== undefined && isTimeKey(key);
  const masked = (shape: string, placeholder: string) => {
    masks?.push({ shape, value: String(value) });
    return placeholder;
  };
  if (typeof value === 'number') {
    if (timeKey && isEpoch(value)) return masked('epoch-key', '<epoch>');
    if (key !== undefined && PID_KEYS.test(key) && Number.isInteger(value) && value > 0) return masked('pid', '<pid>');
    if (isPlausibleEpoch(value) && (!Number.isInteger(value) || value >= 1e12))
      return masked('epoch-number', Number.isInteger(value) ? '<epoch-ms>' : '<epoch>');
    return value;
  }
  if (timeKey && /^\d{9,13}(?:\.\d+)?$/.test(value) && isEpoch(Number(value))) return masked('epoch-key', '<epoch>');
  if (key !== undefined && BASE64_KEYS.has(key)) {
    const text = base64Text(value);
    if (text !== undefined) return BASE64_TEXT_MARK + normaliseText(text, masks);
  }
  return normaliseText(value, masks);
}
