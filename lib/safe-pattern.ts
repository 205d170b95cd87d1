/**
 * A check for regular expressions a user hands us (`--redact-arg`): JavaScript's regex engine
 * backtracks, and some patterns take exponential time on an input that almost matches (`(a+)+$`
 * on "aaaa…!"), which would hang the proxy. The pattern is parsed and rejected when it has
 *  - a backreference (`\1`, `\k<name>`): no bound on its cost is known;
 *  - a repeated part holding a repetition that can also match what follows it (`(a+)+`,
 *    `(a*b?)*`, `(?:\s?\w+)+`): the classic exponential case (but `(-[a-z]+)*` is fine: each
 *    round starts with a "-" the inner part cannot take);
 *  - a repeated alternation whose branches can start with the same character (`(a|ab)*`,
 *    `(\w|_)+`): the input can be split between the branches in exponentially many ways.
 * The check is conservative (a few harmless patterns are refused too); the message names the part
 * and how to rewrite it. Patterns that are only polynomial (`.*a.*b`) are allowed.
 */
import { CassetteError } from './errors.js';

type CharSet = Set<number> | 'any';

interface Node {
  kind: 'char' | 'set' | 'assert' | 'group' | 'alt' | 'seq' | 'quant' | 'backref';
  /** char/set: the characters it can match. */
  chars?: CharSet;
  children?: Node[];
  min?: number;
  max?: number;
  /** Where the node is in the pattern, for the message. */
  start: number;
  end: number;
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const DIGITS = new Set(range(48, 57));
const WORD = new Set([...range(48, 57), ...range(65, 90), ...range(97, 122), 95]);
const SPACE = new Set([9, 10, 11, 12, 13, 32, 0xa0, 0x1680, ...range(0x2000, 0x200a), 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff]);
/** Ranges wider than this are treated as any character (the check only gets more cautious). */
const MAX_RANGE = 4096;

/** Groups nested deeper than this are refused rather than walked (the walks recurse). */
const MAX_DEPTH = 50;
class TooDeep extends Error {}

class Parser {
  i = 0;
  depth = 0;
  constructor(readonly src: string) {}

  /** The index just past the next `ch` (the end of the pattern when there is none). */
  after(ch: string): number {
    const at = this.src.indexOf(ch, this.i);
    return at === -1 ? this.src.length : at + 1;
  }

  parseAlt(): Node {
    const start = this.i;
    const branches = [this.parseSeq()];
    while (this.src[this.i] === '|') {
      this.i += 1;
      branches.push(this.parseSeq());
    }
    return branches.length === 1 ? branches[0]! : { kind: 'alt', children: branches, start, end: this.i };
  }

  parseSeq(): Node {
    const start = this.i;
    const items: Node[] = [];
    while (this.i < this.src.length && this.src[this.i] !== '|' && this.src[this.i] !== ')') {
      items.push(this.parseQuantified());
    }
    return { kind: 'seq', children: items, start, end: this.i };
  }

  parseQuantified(): Node {
    const atom = this.parseAtom();
    const q = this.quantifier();
    if (!q) return atom;
    if (this.src[this.i] === '?') this.i += 1; // lazy: the same backtracking
    return { kind: 'quant', children: [atom], min: q.min, max: q.max, start: atom.start, end: this.i };
  }

  quantifier(): { min: number; max: number } | undefined {
    const c = this.src[this.i];
    if (c === '*') return ((this.i += 1), { min: 0, max: Infinity });
    if (c === '+') return ((this.i += 1), { min: 1, max: Infinity });
    if (c === '?') return ((this.i += 1), { min: 0, max: 1 });
    if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
      if (!m) return undefined; // a literal brace
      this.i += m[0].length;
      const min = Number(m[1]);
      return { min, max: m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]) };
    }
    return undefined;
  }

  parseAtom(): Node {
    const start = this.i;
    const c = this.src[this.i]!;
    this.i += 1;
    if (c === '(') {
      let lookaround = false;
      if (this.src.startsWith('?:', this.i)) this.i += 2;
      else if (/^\?<?[=!]/.test(this.src.slice(this.i))) {
        lookaround = true;
        this.i += this.src[this.i + 1] === '<' ? 3 : 2;
      } else if (this.src.startsWith('?<', this.i)) this.i = this.after('>');
      if (++this.depth > MAX_DEPTH) throw new TooDeep();
      const inner = this.parseAlt();
      this.depth -= 1;
      this.i += 1; // ')'
      // A lookaround matches no characters where it stands; what is inside still backtracks.
      return { kind: lookaround ? 'assert' : 'group', children: [inner], start, end: this.i };
    }
    if (c === '[') return { kind: 'set', chars: this.parseClass(), start, end: this.i };
    if (c === '.') return { kind: 'set', chars: 'any', start, end: this.i };
    if (c === '^' || c === '$') return { kind: 'assert', start, end: this.i };
    if (c === '\\') return this.parseEscape(start);
    return { kind: 'char', chars: new Set([c.codePointAt(0)!]), start, end: this.i };
  }

  parseEscape(start: number): Node {
    const c = this.src[this.i] ?? '';
    this.i += 1;
    if (c === 'b' || c === 'B') return { kind: 'assert', start, end: this.i };
    if (/[1-9]/.test(c)) {
      while (/\d/.test(this.src[this.i] ?? '')) this.i += 1;
      return { kind: 'backref', start, end: this.i };
    }
    if (c === 'k' && this.src[this.i] === '<') {
      this.i = this.after('>');
      return { kind: 'backref', start, end: this.i };
    }
    return { kind: 'set', chars: this.escapeChars(c || undefined), start, end: this.i };
  }

  /** The characters of an escape whose letter (after the backslash) was just read. */
  escapeChars(c: string | undefined): CharSet {
    if (c === undefined) return 'any'; // a trailing backslash (the pattern does not compile)
    if (c === 'd') return DIGITS;
    if (c === 'w') return WORD;
    if (c === 's') return SPACE;
    if (/[DWSpP]/.test(c)) {
      if ((c === 'p' || c === 'P') && this.src[this.i] === '{') this.i = this.after('}');
      return 'any';
    }
    const simple: Record<string, number> = { n: 10, r: 13, t: 9, v: 11, f: 12, '0': 0 };
    if (c in simple) return new Set([simple[c]!]);
    if (c === 'x' || c === 'u') {
      const m = /^\{([0-9a-fA-F]+)\}|^[0-9a-fA-F]{4}/.exec(this.src.slice(this.i));
      const hex = c === 'x' ? /^[0-9a-fA-F]{2}/.exec(this.src.slice(this.i)) : m;
      if (hex) {
        this.i += hex[0].length;
        return new Set([parseInt(hex[1] ?? hex[0], 16)]);
      }
      return 'any';
    }
    if (c === 'c') return ((this.i += 1), 'any');
    return new Set([c.codePointAt(0)!]);
  }

  parseClass(): CharSet {
    const negated = this.src[this.i] === '^';
    if (negated) this.i += 1;
    let out: CharSet = new Set();
    const add = (s: CharSet): void => {
      if (out === 'any' || s === 'any') out = 'any';
      else for (const x of s) out.add(x);
    };
    let first = true;
    while (this.i < this.src.length && (this.src[this.i] !== ']' || first)) {
      first = false;
      const lo = this.classAtom();
      if (this.src[this.i] === '-' && this.src[this.i + 1] !== ']' && lo !== 'any' && lo.size === 1) {
        this.i += 1;
        const hi = this.classAtom();
        const [a] = lo;
        const b = hi !== 'any' && hi.size === 1 ? [...hi][0]! : undefined;
        add(b === undefined || b - a! > MAX_RANGE ? 'any' : new Set(range(a!, b)));
      } else add(lo);
    }
    this.i += 1; // ']'
    return negated ? 'any' : out;
  }

  classAtom(): CharSet {
    const c = this.src[this.i]!;
    this.i += 1;
    if (c !== '\\') return new Set([c.codePointAt(0)!]);
    const e = this.src[this.i];
    this.i += 1;
    if (e === 'b') return new Set([8]);
    return this.escapeChars(e);
  }
}

const canBeEmpty = (n: Node): boolean => {
  switch (n.kind) {
    case 'char':
    case 'set':
      return false;
    case 'assert':
    case 'backref':
      return true;
    case 'quant':
      return n.min === 0 || canBeEmpty(n.children![0]!);
    case 'alt':
      return n.children!.some(canBeEmpty);
    default:
      return n.children!.every(canBeEmpty);
  }
};

/** The characters a match of `n` can start with. */
function firstChars(n: Node): CharSet {
  const union = (sets: CharSet[]): CharSet => (sets.includes('any') ? 'any' : new Set(sets.flatMap((s) => [...(s as Set<number>)])));
  switch (n.kind) {
    case 'char':
    case 'set':
      return n.chars!;
    case 'assert':
      return new Set();
    case 'backref':
      return 'any';
    case 'alt':
      return union(n.children!.map(firstChars));
    case 'quant':
    case 'group':
      return firstChars(n.children![0]!);
    default: {
      const sets: CharSet[] = [];
      for (const child of n.children!) {
        sets.push(firstChars(child));
        if (!canBeEmpty(child)) break;
      }
      return union(sets);
    }
  }
}

const overlaps = (a: CharSet, b: CharSet): boolean => {
  if (a === 'any') return b === 'any' || b.size > 0;
  if (b === 'any') return a.size > 0;
  for (const x of a) if (b.has(x)) return true;
  return false;
};

function* walk(n: Node): Generator<Node> {
  yield n;
  for (const c of n.children ?? []) yield* walk(c);
}

const repeats = (n: Node): boolean => n.kind === 'quant' && n.max! > 1;
const union = (a: CharSet, b: CharSet): CharSet => (a === 'any' || b === 'any' ? 'any' : new Set([...a, ...b]));

/** Every character `n` can match anywhere (what a repetition inside it can give up or take). */
function allChars(n: Node): CharSet {
  if (n.kind === 'char' || n.kind === 'set') return n.chars!;
  if (n.kind === 'backref') return 'any';
  if (n.kind === 'assert') return new Set();
  return (n.children ?? []).map(allChars).reduce(union, new Set<number>());
}

/**
 * Inside the body of a repetition, a variable repetition whose characters can also be the next
 * thing matched (the rest of the body, or the body's next round) splits a run of input in many
 * ways: `(a+)+`, `(\w+\s?)+`, `(x+x+)+`. One followed by something it cannot match is decided
 * at once: `(-[a-z]+)*`, `(a+b)+`. Returns the first such inner repetition.
 */
function ambiguousInner(outer: Node): Node | undefined {
  const body = outer.children![0]!;
  let found: Node | undefined;
  const visit = (n: Node, follow: CharSet): void => {
    if (found) return;
    if (n.kind === 'seq') {
      const items = n.children!;
      items.forEach((child, i) => {
        const rest: Node = { kind: 'seq', children: items.slice(i + 1), start: 0, end: 0 };
        visit(child, canBeEmpty(rest) ? union(firstChars(rest), follow) : firstChars(rest));
      });
    } else if (n.kind === 'alt' || n.kind === 'group') {
      for (const child of n.children!) visit(child, follow);
    } else if (n.kind === 'quant') {
      const inner = n.children![0]!;
      if (n.max! > 1 && n.min !== n.max && overlaps(allChars(inner), follow)) found = n;
      else visit(inner, n.max! > 1 ? union(firstChars(inner), follow) : follow);
    }
  };
  visit(body, firstChars(body));
  return found;
}

/** Why `pattern` may backtrack catastrophically, or undefined when it is safe to run. Meant for
 * patterns that compile (`new RegExp(pattern)`); others are judged leniently, never looped on. */
export function backtrackingRisk(pattern: string): string | undefined {
  let tree: Node;
  try {
    tree = new Parser(pattern).parseAlt();
  } catch (err) {
    if (err instanceof TooDeep) return `it nests groups more than ${MAX_DEPTH} deep`;
    throw err;
  }
  const at = (n: Node): string => JSON.stringify(pattern.slice(n.start, n.end));
  for (const n of walk(tree)) {
    if (n.kind === 'backref') return `it uses a backreference (${at(n)})`;
    if (!repeats(n)) continue;
    const inner = ambiguousInner(n);
    if (inner) return `the repeated part ${at(n)} contains a repetition (${at(inner)}) that can match what follows it`;
    for (const alt of walk(n.children![0]!)) {
      if (alt.kind !== 'alt') continue;
      const firsts = alt.children!.map((b) => (canBeEmpty(b) ? 'any' : firstChars(b)));
      for (let i = 0; i < firsts.length; i++) {
        for (let j = i + 1; j < firsts.length; j++) {
          if (overlaps(firsts[i]!, firsts[j]!))
            return `the repeated part ${at(n)} has alternatives that can start with the same character (${at(alt.children![i]!)} and ${at(alt.children![j]!)})`;
        }
      }
    }
  }
  return undefined;
}

/** A regular expression given on the command line (`--redact-arg`, `--redact-value`), compiled,
 * or a CassetteError naming the option: an invalid pattern, or one that could take exponential
 * time on some input (it would hang the proxy on a string that almost matches). */
export function userPattern(option: string, pattern: string, what = 'inputs'): RegExp {
  let re: RegExp;
  try {
    re = new RegExp(pattern);
  } catch (err) {
    throw new CassetteError(
      'MCPC_USAGE',
      `${option} ${JSON.stringify(pattern)} is not a valid regular expression: ${(err as Error).message}`,
    );
  }
  const risk = backtrackingRisk(pattern);
  if (risk)
    throw new CassetteError(
      'MCPC_USAGE',
      `${option} ${JSON.stringify(pattern)} could take exponential time on some ${what}: ${risk}; rewrite it without repetition inside repetition, overlapping alternatives or backreferences (for example "(a+)+$" as "a+$")`,
    );
  return re;
}
