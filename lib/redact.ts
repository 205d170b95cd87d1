/**
 * Masks secrets in a server's argv before it is stored. Hosts pass API keys on the command line
 * (`--api-key=sk-…`, `--token abc`, `https://user:pass@host`); a cassette is meant to be committed,
 * so none of that may reach disk. Environment values are never stored at all.
 */
export const MASK = '[REDACTED]';

const SENSITIVE_NAME =
  /(token|secret|passw(or)?d|\bpwd\b|api[-_]?key|apikey|auth|credential|bearer|private[-_]?key|access[-_]?key|client[-_]?secret|cookie|session[-_]?id)/i;
/** Whether a name (a flag, a variable, a query parameter) says its value is a secret. */
export function isSecretName(name: string): boolean {
  return SENSITIVE_NAME.test(name);
}

const TOKEN_SHAPES = [
  /^sk-[A-Za-z0-9_-]{8,}/,
  /^(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/,
  /^github_pat_/,
  /^xox[abprs]-/,
  /^AKIA[0-9A-Z]{16}$/,
  /^Bearer\s+\S+/i,
  /^eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\./,
];

export interface RedactOptions {
  /** Extra patterns from `--redact-arg`. A match masks the first capture group, or the whole
   * argument when the pattern has no group. */
  patterns?: RegExp[];
}

export function redactArgv(argv: readonly string[], options: RedactOptions = {}): string[] {
  const out: string[] = [];
  let maskNext = false;
  for (const arg of argv) {
    if (maskNext && !arg.startsWith('-')) {
      out.push(MASK);
      maskNext = false;
      continue;
    }
    maskNext = false;
    const flag = /^(--?[A-Za-z0-9][\w.-]*)(=)(.*)$/s.exec(arg);
    if (flag) {
      out.push(SENSITIVE_NAME.test(flag[1]!) ? `${flag[1]}=${MASK}` : `${flag[1]}=${redactValue(flag[3]!, options)}`);
      continue;
    }
    if (/^--?[A-Za-z]/.test(arg)) {
      maskNext = SENSITIVE_NAME.test(arg);
      out.push(arg);
      continue;
    }
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(arg);
    if (assignment && SENSITIVE_NAME.test(assignment[1]!)) {
      out.push(`${assignment[1]}=${MASK}`);
      continue;
    }
    out.push(redactValue(arg, options));
  }
  return out;
}

function redactValue(value: string, options: RedactOptions): string {
  for (const pattern of options.patterns ?? []) {
    const m = pattern.exec(value);
    if (m) {
      if (m.length > 1 && m[1] !== undefined) return value.replace(m[1], MASK);
      return MASK;
    }
  }
  if (TOKEN_SHAPES.some((re) => re.test(value))) return MASK;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return redactUrl(value);
  return value;
}

function redactUrl(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return value;
  }
  let changed = false;
  if (url.password) {
    url.password = MASK;
    changed = true;
  }
  for (const [key] of url.searchParams) {
    if (SENSITIVE_NAME.test(key)) {
      url.searchParams.set(key, MASK);
      changed = true;
    }
  }
  return changed ? url.toString() : value;
}

/** Header names whose values never reach a cassette; the recorder's `--redact-header` and
 * replay's `--redact-header` add more. */
export const SECRET_HEADERS: readonly string[] = ['authorization', 'cookie', 'set-cookie', 'proxy-authorization', 'x-api-key', 'api-key'];

/** Masks the values of secret headers (names compared in lower case), keeping an auth scheme
 * (`Bearer [REDACTED]`) so a cassette still says how the client authenticated. */
export function redactHeaderValues(
  headers: Record<string, string | string[] | undefined>,
  secret: Iterable<string> = SECRET_HEADERS,
): Record<string, string | string[]> {
  const names = new Set([...secret].map((h) => h.toLowerCase()));
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const lower = name.toLowerCase();
    if (!names.has(lower)) {
      out[lower] = value;
      continue;
    }
    const mask = (v: string): string => {
      const scheme = /^(\w[\w-]*)\s+\S/.exec(v);
      return lower.endsWith('authorization') && scheme ? `${scheme[1]} ${MASK}` : MASK;
    };
    out[lower] = Array.isArray(value) ? value.map(mask) : mask(value);
  }
  return out;
}

/** A request target (`/mcp?api_key=…`) with the values of secret-named query parameters masked. */
export function redactRequestTarget(target: string): string {
  if (!target.includes('?')) return target;
  const absolute = redactUrl(new URL(target, 'http://h').href);
  return absolute.startsWith('http://h/') ? absolute.slice('http://h'.length) : target;
}
