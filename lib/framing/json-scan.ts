import { MAX_JSON_DEPTH } from '../json-depth.js';
import type { MessageKind } from '../message.js';
import { CANONICAL_ESCAPE, HEX, SIMPLE_ESCAPE, WS } from './json-bytes.js';
import { N, numberNext } from './json-number.js';

/**
 * What `frameToMessage` learns from a frame by parsing it, learnt from its bytes in pieces, so a
 * 50 MB frame never has to be in memory as text or as a value: whether it is UTF-8, whether it is
 * JSON, its message kind, and whether `JSON.stringify(JSON.parse(frame))` gives the frame back
 * (when not, the cassette keeps the exact text in `raw`).
 *
 * "Canonical" may be answered "no" where stringify would in fact round-trip (a `\u` escape of a
 * lone surrogate, an object with an array-index key): the cost is a redundant `raw`, never a
 * lost byte.
 */
export interface FrameScan {
  utf8: boolean;
  /** Absent when the frame is not a JSON value. */
  json?: { kind: MessageKind; canonical: boolean; tooDeep?: true };
}

const enum S {
  Value,
  AfterValue,
  Key,
  Colon,
  Str,
  Esc,
  Hex,
  Num,
  Lit,
}

const INDEX_KEY = /^(?:0|[1-9]\d{0,9})$/;
/** Keys and short string values are kept (for duplicates and the message kind) up to this size. */
const KEEP = 4096;

interface Container {
  object: boolean;
  keys?: Set<string>;
}

export class JsonScanner {
  readonly #decoder = new TextDecoder('utf-8', { fatal: true });
  #utf8 = true;
  #valid = true;
  #canonical = true;
  /** Nested deeper than MAX_JSON_DEPTH somewhere. */
  #tooDeep = false;
  #state = S.Value;
  readonly #stack: Container[] = [];
  // Current token.
  #isKey = false;
  #text: number[] = [];
  #textOverflow = false;
  #hex = 0;
  #hexValue = 0;
  #num = N.Start;
  #lit = '';
  #litAt = 0;
  #numText = '';
  // The top-level object's members that decide the message kind.
  #topKey: string | undefined;
  #kindFacts = { jsonrpc: false, method: false, id: false, error: false, result: false };
  #topType: 'object' | 'array' | 'scalar' | undefined;
  /** A `,` was just read (so `}` or `]` may not follow). */
  #afterComma = false;
  /** An `[` was just read (so `]` may follow). */
  #arrayOpen = false;

  constructor(private readonly parse = true) {}

  push(piece: Buffer): void {
    if (this.#utf8) {
      try {
        this.#decoder.decode(piece, { stream: true });
      } catch {
        this.#utf8 = false;
      }
    }
    if (!this.parse || !this.#valid || !this.#utf8) return;
    for (let i = 0; i < piece.length && this.#valid; i++) i = this.#step(piece, i);
  }

  end(): FrameScan {
    if (this.#utf8) {
      try {
        this.#decoder.decode();
      } catch {
        this.#utf8 = false;
      }
    }
    if (!this.#utf8) return { utf8: false };
    if (!this.parse) return { utf8: true };
    if (this.#state === S.Num) this.#endNumber();
    else if (this.#state === S.Lit) this.#valid = false;
    if (!this.#valid || this.#state !== S.AfterValue || this.#stack.length > 0) return { utf8: true };
    return { utf8: true, json: { kind: this.#kind(), canonical: this.#canonical, ...(this.#tooDeep ? { tooDeep: true as const } : {}) } };
  }

  #kind(): MessageKind {
    if (this.#topType === 'array') return 'batch';
    const f = this.#kindFacts;
    if (this.#topType !== 'object' || !f.jsonrpc) return 'non-jsonrpc';
    if (f.method) return f.id ? 'request' : 'notification';
    if (f.error) return 'error';
    if (f.result) return 'response';
    return 'non-jsonrpc';
  }

  /** Consumes the byte at `i` (and, inside a string, the plain run after it); returns the index
   * of the last byte consumed. */
  #step(b: Buffer, i: number): number {
    const c = b[i]!;
    switch (this.#state) {
      case S.Str:
        return this.#stepString(b, i, c);
      case S.Esc:
        this.#stepEscape(c);
        return i;
      case S.Hex:
        this.#stepHex(c);
        return i;
      case S.Num:
        if (this.#numStep(c)) return i;
        this.#endNumber();
        return this.#step(b, i);
      case S.Lit:
        if (c !== this.#lit.charCodeAt(this.#litAt)) {
          this.#valid = false;
          return i;
        }
        if (++this.#litAt === this.#lit.length) this.#valueDone();
        return i;
      default:
        break;
    }
    if (WS[c]) {
      this.#canonical = false;
      return i;
    }
    this.#stepStructure(c);
    return i;
  }

  /** Inside a string: the bulk of a large frame runs to the next quote, backslash or control byte. */
  #stepString(b: Buffer, i: number, c: number): number {
    let j = i;
    while (j < b.length) {
      const d = b[j]!;
      if (d === 0x22 || d === 0x5c || d < 0x20) break;
      j++;
    }
    if (j > i) {
      this.#keep(b, i, j);
      return j - 1;
    }
    if (c === 0x22) this.#endString();
    else if (c === 0x5c) {
      this.#keepByte(c);
      this.#state = S.Esc;
    } else this.#valid = false; // a raw control character
    return i;
  }

  /** The byte after a backslash. */
  #stepEscape(c: number): void {
    this.#keepByte(c);
    if (c === 0x75) {
      this.#state = S.Hex;
      this.#hex = 0;
      this.#hexValue = 0;
    } else if (SIMPLE_ESCAPE[c]) {
      if (!CANONICAL_ESCAPE[c]) this.#canonical = false;
      this.#state = S.Str;
    } else this.#valid = false;
  }

  /** A hex digit of a \uXXXX escape. */
  #stepHex(c: number): void {
    if (!HEX[c]) {
      this.#valid = false;
      return;
    }
    this.#keepByte(c);
    // JSON.stringify writes \u00XX (lowercase) only for control characters without a short form.
    if (c >= 0x41 && c <= 0x46) this.#canonical = false;
    this.#hexValue = this.#hexValue * 16 + parseInt(String.fromCharCode(c), 16);
    if (++this.#hex === 4) {
      const v = this.#hexValue;
      if (v >= 0x20 || v === 0x08 || v === 0x09 || v === 0x0a || v === 0x0c || v === 0x0d) this.#canonical = false;
      this.#state = S.Str;
    }
  }

  /** Between values: a value starts, a key, a colon, a comma or a closing bracket. */
  #stepStructure(c: number): void {
    switch (this.#state) {
      case S.Value:
        this.#startValue(c);
        return;
      case S.Key:
        if (c === 0x22) this.#startString(true);
        else if (c === 0x7d && !this.#afterComma)
          this.#close(); // `{}`
        else this.#valid = false;
        return;
      case S.Colon:
        if (c === 0x3a) this.#state = S.Value;
        else this.#valid = false;
        return;
      case S.AfterValue: {
        const top = this.#stack.at(-1);
        if (!top)
          this.#valid = false; // anything after the top-level value
        else if (c === 0x2c) {
          this.#afterComma = true;
          this.#state = top.object ? S.Key : S.Value;
        } else if (c === (top.object ? 0x7d : 0x5d)) this.#close();
        else this.#valid = false;
        return;
      }
      default:
        this.#valid = false;
    }
  }

  #startValue(c: number): void {
    const depth = this.#stack.length;
    const top = depth === 0;
    if (top) this.#topType = c === 0x7b ? 'object' : c === 0x5b ? 'array' : 'scalar';
    if (c === 0x5d && this.#arrayOpen) {
      this.#close();
      return;
    }
    this.#arrayOpen = false;
    this.#afterComma = false;
    if (depth === 1 && this.#stack[0]!.object) this.#topMember();
    if ((c === 0x7b || c === 0x5b) && depth >= MAX_JSON_DEPTH) this.#tooDeep = true;
    if (c === 0x7b) {
      this.#stack.push({ object: true, keys: new Set() });
      this.#state = S.Key;
    } else if (c === 0x5b) {
      this.#stack.push({ object: false });
      this.#state = S.Value;
      this.#arrayOpen = true;
    } else if (c === 0x22) this.#startString(false);
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      this.#state = S.Num;
      this.#num = N.Start;
      this.#numText = '';
      this.#numStep(c);
    } else if (c === 0x74 || c === 0x66 || c === 0x6e) {
      this.#lit = c === 0x74 ? 'true' : c === 0x66 ? 'false' : 'null';
      this.#litAt = 1;
      this.#state = S.Lit;
    } else this.#valid = false;
  }

  /** A value of the top-level object starts: note what it tells about the message kind. */
  #topMember(): void {
    const k = this.#topKey;
    const f = this.#kindFacts;
    if (k === 'id') f.id = true;
    else if (k === 'error') f.error = true;
    else if (k === 'result') f.result = true;
    else if (k === 'method')
      f.method = false; // set on the string's end (the last one counts)
    else if (k === 'jsonrpc') f.jsonrpc = false;
  }

  #startString(key: boolean): void {
    this.#isKey = key;
    this.#text = [];
    this.#textOverflow = false;
    this.#afterComma = false;
    this.#state = S.Str;
  }

  #keep(b: Buffer, from: number, to: number): void {
    if (this.#textOverflow) return;
    if (!this.#needText() || this.#text.length + (to - from) > KEEP) {
      this.#textOverflow = true;
      this.#text = [];
      return;
    }
    for (let k = from; k < to; k++) this.#text.push(b[k]!);
  }

  #keepByte(c: number): void {
    if (this.#textOverflow) return;
    if (!this.#needText() || this.#text.length >= KEEP) {
      this.#textOverflow = true;
      this.#text = [];
      return;
    }
    this.#text.push(c);
  }

  /** Keys (duplicates, index keys, the kind) and the top-level `jsonrpc` value are read; other
   * strings are only checked. */
  #needText(): boolean {
    return this.#isKey || (this.#stack.length === 1 && this.#topKey === 'jsonrpc');
  }

  #decoded(): string | undefined {
    if (this.#textOverflow) return undefined;
    return JSON.parse(`"${Buffer.from(this.#text).toString('utf8')}"`) as string;
  }

  #endString(): void {
    if (this.#isKey) {
      const key = this.#decoded();
      const top = this.#stack.at(-1)!;
      // A duplicate key or an index key (which JSON.parse moves to the front) changes the text
      // stringify gives back; a key too long to keep is not compared, so it counts as changed.
      if (key === undefined || top.keys!.has(key) || INDEX_KEY.test(key)) this.#canonical = false;
      if (key !== undefined) top.keys!.add(key);
      if (this.#stack.length === 1) this.#topKey = key;
      this.#state = S.Colon;
      this.#isKey = false;
      return;
    }
    if (this.#stack.length === 1 && this.#stack[0]!.object) {
      if (this.#topKey === 'method') this.#kindFacts.method = true;
      else if (this.#topKey === 'jsonrpc') this.#kindFacts.jsonrpc = this.#decoded() === '2.0';
    }
    this.#valueDone();
  }

  #numStep(c: number): boolean {
    const next = numberNext(this.#num, c);
    if (next === undefined) {
      // A number cut short (`1.`, `1e`, `1e+`) followed by anything else.
      if (this.#num === N.Dot || this.#num === N.E || this.#num === N.ESign) this.#valid = false;
      return false;
    }
    this.#num = next;
    if (this.#numText.length <= 32) this.#numText += String.fromCharCode(c);
    return true;
  }

  #endNumber(): void {
    if (this.#num === N.Start || this.#num === N.Minus || this.#num === N.Dot || this.#num === N.E || this.#num === N.ESign) {
      this.#valid = false;
      return;
    }
    // stringify writes a number as String() does; no finite number needs more than 32 characters.
    const n = Number(this.#numText);
    if (this.#numText.length > 32 || !Number.isFinite(n) || String(n) !== this.#numText) this.#canonical = false;
    this.#valueDone();
  }

  #valueDone(): void {
    this.#state = S.AfterValue;
    this.#arrayOpen = false;
  }

  #close(): void {
    this.#stack.pop();
    this.#afterComma = false;
    this.#valueDone();
  }
}

/** Scans a frame given in pieces. */
export function scanPieces(pieces: Iterable<Buffer>, parse = true): FrameScan {
  const s = new JsonScanner(parse);
  for (const p of pieces) s.push(p);
  return s.end();
}
