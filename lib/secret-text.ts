import { MASK } from './redact.js';

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
const MARKERS = /PRIVATE KEY|bearer|eyJ|A[KSBCGIR][IS]A|aws_?secret|sk-|[rs]k_|gh[pousr]_|github_pat_|xox|AIza/i;

export const SECRET_SHAPE_NAMES: readonly string[] = SHAPES.map((s) => s.name);

/** `text` with every credential shape masked, and how many were. */
export function maskSecretsInText(text: string): { text: string; masked: number } {
  if (!MARKERS.test(text)) return { text, masked: 0 };
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
