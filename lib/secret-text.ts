import { isSecretName, MASK } from './redact.js';
import { MAX_DECODE_DEPTH, maskBase64, maskEscaped } from './encoded-secrets.js';

/**
 * Well-known credential shapes, found in any text: a frame's raw bytes (JSON or not), a stderr
 * line, a header or a violation message. The patterns work on JSON text as well as on the
 * string it encodes: a token stops at a quote or a backslash, so masking one never breaks the
 * JSON around it (an escaped slash `\/` inside a bearer token is part of it), and a private key
 * block spans its escaped (`\n`) or real newlines alike. Applied to bytes decoded as latin1, so
 * every byte that is not part of a secret stays as it was.
 */
interface Shape {
  name: string;
  re: RegExp;
  /** What replaces a match (default: MASK). */
  mask?: (match: string, ...groups: string[]) => string;
}

const SHAPES: readonly Shape[] = [
  { name: 'private key block', re: /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END \1PRIVATE KEY\2-----/g },
  { name: 'bearer token', re: /\b(Bearer)(\s+)(?:[A-Za-z0-9._~+=-]|\\?\/){8,}/gi, mask: (_m, scheme, space) => `${scheme}${space}${MASK}` },
  { name: 'JWT', re: /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g },
  { name: 'AWS access key id', re: /\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b/g },
  {
    name: 'AWS secret access key',
    re: /(aws_?secret_?access_?key\\?["']?\s*[:=]\s*\\?["']?)(?:[A-Za-z0-9+=]|\\?\/){40}/gi,
    mask: (_m, lead) => `${lead}${MASK}`,
  },
  { name: 'sk- key', re: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { name: 'Stripe key', re: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}/g },
  { name: 'GitHub token', re: /\b(?:(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})/g },
  { name: 'Slack token', re: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: 'Google API key', re: /\bAIza[0-9A-Za-z_-]{35}/g },
];

/** A cheap first look: text without any of these cannot hold a secret shape. */
const MARKER = 'PRIVATE KEY|bearer|eyJ|A[KSBCGIR][IS]A|aws_?secret|sk-|[rs]k_|gh[pousr]_|github_pat_|xox|AIza';
const MARKERS = new RegExp(MARKER, 'i');
/** A marker right after a JSON escape (`\nAKIA…`, `\u4e2dAKIA…`), which hides the shape's word
 * boundary. */
const ESCAPED_MARKER = new RegExp(`\\\\(?:[bfnrt"\\\\/]|u[0-9A-Fa-f]{4})(?:${MARKER})`, 'i');

interface Masked {
  text: string;
  masked: number;
}

/** `text` with every credential shape masked, and how many were: as written, as JSON text decodes
 * it (escapes), and inside base64 values (encoded-secrets.ts). */
export function maskSecretsInText(text: string): Masked {
  return maskText(text, 0);
}

function maskText(text: string, depth: number): Masked {
  const markers = MARKERS.test(text);
  const shapes = markers ? maskShapes(text) : { text, masked: 0 };
  const urls = maskUrlCredentials(shapes.text);
  const plain = { text: urls.text, masked: shapes.masked + urls.masked };
  if (depth >= MAX_DECODE_DEPTH) return plain;
  // An escape before a marker hides its boundary; without a marker only a `\u` escape can hide one.
  const escaped = maskEscaped(plain.text, markers ? ESCAPED_MARKER : undefined, mayHoldSecret, (decoded) => maskText(decoded, depth + 1));
  const encoded = maskBase64(escaped.text, (decoded) => maskText(decoded, depth + 1).masked > 0);
  return { text: encoded.text, masked: plain.masked + escaped.masked + encoded.masked };
}

/** The shapes as they are written. */
function maskShapes(text: string): Masked {
  let masked = 0;
  let out = text;
  for (const shape of SHAPES) {
    shape.re.lastIndex = 0;
    if (!shape.re.test(out)) continue;
    shape.re.lastIndex = 0;
    out = out.replace(shape.re, (m: string, ...rest: unknown[]) => {
      masked += 1;
      // rest: the groups, then the offset and the whole input.
      return shape.mask ? shape.mask(m, ...(rest.slice(0, -2) as (string | undefined)[]).map((g) => g ?? '')) : MASK;
    });
  }
  return { text: out, masked };
}

/** Bytes with every credential shape masked (latin1, so other bytes pass unchanged); the same
 * buffer when nothing was masked. */
export function maskSecretsInBytes(data: Buffer, text = data.toString('latin1')): { data: Buffer; masked: number } {
  const { text: out, masked } = maskSecretsInText(text);
  return masked === 0 ? { data, masked } : { data: Buffer.from(out, 'latin1'), masked };
}

const BLOCK_BEGIN = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY( BLOCK)?-----/;

/**
 * A private key block written over several lines of a text stream (stderr, a log line per
 * line): its BEGIN line, every line up to its END line, and the END line are masked, though each
 * line is a frame of its own. One per stream.
 */
export class KeyBlockLines {
  #end: string | undefined;

  /** The line as it may be written; `masked` counts a block once, at its start. */
  line(text: string): { text: string; masked: number } {
    if (this.#end !== undefined) {
      const at = text.indexOf(this.#end);
      if (at === -1) return { text: MASK, masked: 0 };
      const rest = text.slice(at + this.#end.length);
      this.#end = undefined;
      return { text: MASK + rest, masked: 0 };
    }
    const m = BLOCK_BEGIN.exec(text);
    if (!m) return { text, masked: 0 };
    const end = `-----END ${m[1] ?? ''}PRIVATE KEY${m[2] ?? ''}-----`;
    if (text.includes(end, m.index)) return { text, masked: 0 }; // whole on one line: the shapes mask it
    this.#end = end;
    return { text: text.slice(0, m.index) + MASK, masked: 1 };
  }
}

/** A password in a URL's userinfo anywhere in text (`postgres://app:hunter2@db`), slashes
 * escaped in JSON or not: the password is masked, the user kept. */
const URL_PASSWORD = /\b([a-z][a-z0-9+.-]*:(?:\\?\/){2}[^\s:@/\\"'<>]*:)[^\s@/\\"'<>]+@/gi;
/** A secret-named parameter of a URL's query or fragment anywhere in text (`?api_key=…`,
 * `&access_token=…`, `#id_token=…`): its value is masked. */
const URL_PARAM =
  /([?&;#](?:[\w.-]*(?:token|secret|passw(?:or)?d|pwd|api[-_]?key|apikey|access[-_]?key|credential|signature)[\w.-]*|auth|sig|key)=)[^&#;\s"'\\<>]+/gi;
const MASK_IN_URL = encodeURIComponent(MASK);
const URL_PARAM_MARKER = /[?&;#][\w.-]*(?:token|secret|passw|pwd|api[-_]?key|apikey|access[-_]?key|credential|signature|auth=|sig=|key=)/i;

/** A cheap first look for URL parameters: a search per separator is faster than a regular
 * expression over a long frame (a base64 blob holds none of them). */
const hasParamSeparator = (text: string): boolean =>
  text.includes('=') && (text.includes('?') || text.includes('&') || text.includes('#') || text.includes(';'));

/** Whether text shows any credential's marker (the shapes' or a URL's). */
function mayHoldSecret(text: string): boolean {
  return MARKERS.test(text) || (text.includes('@') && text.includes(':/')) || (hasParamSeparator(text) && URL_PARAM_MARKER.test(text));
}

/** Credentials in URLs written in text: a userinfo password, secret-named parameters. Each has a
 * cheap first look of its own, as most frames hold no URL. */
function maskUrlCredentials(text: string): Masked {
  let masked = 0;
  let out = text;
  if (out.includes('@') && (out.includes('://') || out.includes(':\\/\\/')))
    out = out.replace(URL_PASSWORD, (m: string, lead: string) => {
      if (m.length === lead.length + MASK.length + 1 && m.startsWith(MASK, lead.length)) return m; // masked already
      masked += 1;
      return `${lead}${MASK}@`;
    });
  if (hasParamSeparator(out) && URL_PARAM_MARKER.test(out))
    out = out.replace(URL_PARAM, (m: string, lead: string) => {
      const value = m.slice(lead.length);
      if (value === MASK || value === MASK_IN_URL) return m; // masked already (redact.ts writes it encoded)
      masked += 1;
      return `${lead}${MASK}`;
    });
  return { text: out, masked };
}

/** A URI's userinfo: the scheme, then what comes before `@` in the authority. */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#@\s]*)@/i;
/** A user name alone this long is taken for a token (`https://<token>@host`); shorter ones
 * (`git@`, `alice@`) are kept. */
const TOKEN_USER = 20;
/** A parameter of a query or fragment (`?api_key=…`, `#access_token=…`) or a path (`;token=…`). */
const PARAM = /([?&#;])([^=&#;\s]+)=([^&#;\s]*)/g;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/**
 * A URI (a resource's, an endpoint's) with its credentials masked: the password of its userinfo
 * (`user:[REDACTED]@`, or a user name long enough to be a token), the values of secret-named
 * parameters (`api_key`, `token`, `password`… as lib/redact.ts names them), then the credential
 * shapes. Works on the text: every other character stays as written (no URL normalisation), and
 * a URI that is masked already comes back the same.
 */
export function maskCredentialsInUri(uri: string): Masked {
  let masked = 0;
  let out = uri;
  const info = USERINFO.exec(out);
  if (info?.[2]) {
    const colon = info[2].indexOf(':');
    const user = colon === -1 ? info[2] : info[2].slice(0, colon);
    const kept = colon !== -1 ? `${user}:${MASK}` : user.length >= TOKEN_USER ? MASK : user;
    if (kept !== info[2]) {
      masked += 1;
      out = `${info[1]}${kept}@${out.slice(info[0].length)}`;
    }
  }
  out = out.replace(PARAM, (all: string, sep: string, name: string, value: string) => {
    if (value === '' || value === MASK || value === MASK_IN_URL || !isSecretName(decodedName(name))) return all;
    masked += 1;
    return `${sep}${name}=${MASK}`;
  });
  const shapes = maskSecretsInText(out);
  return { text: shapes.text, masked: masked + shapes.masked };
}
