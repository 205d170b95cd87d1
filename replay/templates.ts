/**
 * Token templates: what `--calibrate` learns about a string that varies between runs of the same
 * build. The text stays literal except for the tokens that varied, which become holes of the
 * narrowest class that held every value seen (`{{int}}`, `{{hex}}`…). A later replay compares the
 * literal text as before and only checks that each hole holds a token of its class, so a pid or a
 * counter in a sentence is skipped while a changed word next to it is still a difference.
 *
 * A hole is one token: at most one run of letters and digits on either side, with the punctuation
 * next to it, never whitespace. A change wider than that (a sentence rewritten, a URL replaced by
 * `about:blank`) is not volatility, and no template is learned for it. The diff is Myers'
 * O(ND) over tokens with a bound on D, written here rather than taken from a library because the
 * bound is the point: volatility is a few tokens, and a text that differs in more is refused in
 * time linear in its length instead of quadratic.
 *
 * Stored form (readable in the cassette): the text with `{{class}}` or `{{class?}}` (may be empty)
 * for each hole, and a literal `{{` written as `{{{{`.
 */

/** Hole classes, narrowest first: a hole takes the first one that matches every value seen. */
const CLASSES: ReadonlyArray<[string, string]> = [
  ['int', '\\d+'],
  ['number', '-?\\d+(?:\\.\\d+)?'],
  ['hex', '[0-9a-fA-F]+'],
  ['alnum', '[A-Za-z0-9]+'],
  ['id', '[\\w.-]+'],
  ['token', '\\S+'],
];
const CLASS_RE = new Map(CLASSES.map(([name, re]) => [name, re]));

export type TemplatePart = string | { hole: string; optional: boolean };

export interface Template {
  /** The stored form. */
  source: string;
  parts: TemplatePart[];
  /** Anchored, one capture group per hole. */
  regex: RegExp;
}

/** Tokens: a decimal number (`18.54`, so a figure varies as one token), runs of letters and
 * digits, runs of whitespace, and every other character alone. */
export function tokenize(s: string): string[] {
  return s.match(/(?<![\w.])\d+\.\d+(?![\w.])|[A-Za-z0-9]+|\s+|[^A-Za-z0-9\s]/g) ?? [];
}

/** A changed region: tokens [a0, a1) of `a` became tokens [b0, b1) of `b`. */
export type Region = [a0: number, a1: number, b0: number, b1: number];

/** The regions where two token lists differ, or undefined when more than `maxD` tokens differ. */
export function diffTokens(a: readonly string[], b: readonly string[], maxD = 256): Region[] | undefined {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  const n = a.length - pre - suf;
  const m = b.length - pre - suf;
  if (n === 0 && m === 0) return [];
  if (n === 0 || m === 0) return [[pre, pre + n, pre, pre + m]];
  const A = (i: number) => a[pre + i];
  const B = (j: number) => b[pre + j];
  // Myers: v[k] = furthest x on diagonal k after d edits; one copy kept per d to walk back.
  const trace: Int32Array[] = [];
  const offset = maxD + 1;
  let v = new Int32Array(2 * maxD + 3);
  let found = -1;
  for (let d = 0; d <= maxD && found < 0; d++) {
    const next = v.slice();
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && A(x) === B(y)) {
        x++;
        y++;
      }
      next[offset + k] = x;
      if (x >= n && y >= m) {
        found = d;
        break;
      }
    }
    trace.push(next);
    v = next;
  }
  if (found < 0) return undefined;
  // Walk back from (n, m), collecting the edit script as matched pairs.
  const equal: Array<[number, number]> = [];
  let x = n;
  let y = m;
  for (let d = found; d > 0; d--) {
    const prev = trace[d - 1]!;
    const k = x - y;
    const down = k === -d || (k !== d && prev[offset + k - 1]! < prev[offset + k + 1]!);
    const pk = down ? k + 1 : k - 1;
    const px = prev[offset + pk]!;
    const py = px - pk;
    const sx = down ? px : px + 1;
    const sy = down ? py + 1 : py;
    while (x > sx && y > sy) equal.push([--x, --y]);
    x = px;
    y = py;
  }
  while (x > 0 && y > 0) equal.push([--x, --y]);
  equal.reverse();
  const regions: Region[] = [];
  let ai = 0;
  let bi = 0;
  for (const [ea, eb] of [...equal, [n, m] as [number, number]]) {
    if (ea > ai || eb > bi) regions.push([pre + ai, pre + ea, pre + bi, pre + eb]);
    ai = ea + 1;
    bi = eb + 1;
  }
  return regions;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The stored form of template parts. */
function render(parts: readonly TemplatePart[]): string {
  return parts.map((p) => (typeof p === 'string' ? p.replaceAll('{{', '{{{{') : `{{${p.hole}${p.optional ? '?' : ''}}}`)).join('');
}

function compileParts(parts: TemplatePart[]): Template {
  const body = parts.map((p) =>
    typeof p === 'string' ? escapeRe(p) : `(${p.optional ? `(?:${CLASS_RE.get(p.hole)})?` : CLASS_RE.get(p.hole)})`,
  );
  return { source: render(parts), parts, regex: new RegExp(`^${body.join('')}$`, 's') };
}

/** Reads a stored template; undefined when it names an unknown class. */
export function parseTemplate(source: string): Template | undefined {
  const parts: TemplatePart[] = [];
  let lit = '';
  for (let i = 0; i < source.length; ) {
    if (source.startsWith('{{{{', i)) {
      lit += '{{';
      i += 4;
      continue;
    }
    const hole = /^\{\{([a-z]+)(\?)?\}\}/.exec(source.slice(i, i + 16));
    if (hole) {
      if (!CLASS_RE.has(hole[1]!)) return undefined;
      if (lit) parts.push(lit);
      lit = '';
      parts.push({ hole: hole[1]!, optional: hole[2] === '?' });
      i += hole[0].length;
      continue;
    }
    lit += source[i];
    i++;
  }
  if (lit) parts.push(lit);
  return compileParts(parts);
}

/** The hole values of `s` under the template, or undefined when it does not match. */
export function matchTemplate(t: Template, s: string): string[] | undefined {
  const m = t.regex.exec(s);
  return m ? m.slice(1).map((g) => g ?? '') : undefined;
}

/** Why no template could be learned, or the template. */
export type Learned = { template: Template } | { refused: string };

/**
 * The template for a value seen as `values[0]` (the recording) and the rest (live runs): the
 * first value's tokens, with a hole wherever some other value differs. Refused when a change
 * spans whitespace or more tokens differ than a volatile value could explain.
 */
export function learnTemplate(values: readonly string[]): Learned {
  const base = tokenize(values[0]!);
  const holes: Array<[number, number]> = [];
  for (const other of values.slice(1)) {
    const regions = diffTokens(base, tokenize(other));
    if (!regions) return { refused: 'too many tokens changed' };
    const tokens = tokenize(other);
    for (const [a0, a1, b0, b1] of regions) {
      const was = base.slice(a0, a1);
      const now = tokens.slice(b0, b1);
      const words = (list: string[]) => list.filter((tok) => /[A-Za-z0-9]/.test(tok)).length;
      if ([...was, ...now].some((tok) => /\s/.test(tok)) || words(was) > 1 || words(now) > 1)
        return { refused: `more than a token changed ("${clip(was.join(''))}" → "${clip(now.join(''))}")` };
      holes.push([a0, a1]);
    }
  }
  // A text whose words mostly changed is a whole value, not tokens (a bare id, one token, is a
  // token: its template is its class).
  const isWord = (tok: string) => /[A-Za-z0-9]/.test(tok);
  const words = base.filter(isWord).length;
  const hit = new Set<number>();
  for (const [a0, a1] of holes) for (let i = a0; i < a1; i++) if (isWord(base[i]!)) hit.add(i);
  const changed = hit.size;
  if (words > 1 && changed * 2 > words)
    return { refused: `most of its words changed (${changed} of ${words}): a whole value, not a token` };
  // Overlapping or touching holes are one hole.
  holes.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  const merged: Array<[number, number]> = [];
  for (const h of holes) {
    const last = merged.at(-1);
    if (last && h[0] <= last[1]) last[1] = Math.max(last[1], h[1]);
    else merged.push([...h]);
  }
  for (const cls of [undefined, 'token'] as const) {
    const parts: TemplatePart[] = [];
    let at = 0;
    for (const [a0, a1] of merged) {
      if (a0 > at) parts.push(base.slice(at, a0).join(''));
      parts.push({ hole: cls ?? 'token', optional: true });
      at = a1;
    }
    if (at < base.length) parts.push(base.slice(at).join(''));
    const loose = compileParts(parts);
    const seen = values.map((v) => matchTemplate(loose, v));
    if (seen.some((s) => s === undefined)) continue;
    // Each hole: the narrowest class holding every value, optional only when one was empty.
    let i = 0;
    const tight = parts.map((p) => {
      if (typeof p === 'string') return p;
      const got = seen.map((s) => s![i]!);
      i++;
      const nonEmpty = got.filter((g) => g !== '');
      const name = CLASSES.find(([, re]) => nonEmpty.every((g) => new RegExp(`^(?:${re})$`).test(g)))?.[0] ?? 'token';
      return { hole: name, optional: nonEmpty.length < got.length };
    });
    const template = compileParts(tight);
    if (values.every((v) => matchTemplate(template, v))) return { template };
  }
  return { refused: 'no template holds every value seen' };
}

const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 39)}…` : s);

/** The template with its literal text shortened around the holes, for console lines. */
export function describeTemplate(t: Template, context = 24): string {
  return t.parts
    .map((p, i) => {
      if (typeof p !== 'string') return `{{${p.hole}${p.optional ? '?' : ''}}}`;
      const first = i === 0;
      const last = i === t.parts.length - 1;
      const flat = p.replace(/\s+/g, ' ');
      if (flat.length <= context * 2 + 1) return flat;
      if (first) return `…${flat.slice(-context)}`;
      if (last) return `${flat.slice(0, context)}…`;
      return `${flat.slice(0, context)}…${flat.slice(-context)}`;
    })
    .join('');
}
