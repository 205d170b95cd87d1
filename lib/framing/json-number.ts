/** The number grammar of JSON (RFC 8259) as a DFA, for the frame scanner (json-scan.ts), which
 * reads a number a byte at a time. */

/** The states after each byte class. */
export const enum N {
  Start,
  Minus,
  Zero,
  Int,
  Dot,
  Frac,
  E,
  ESign,
  Exp,
}

/** The state after byte `c`, or undefined when `c` cannot continue the number. */
export function numberNext(num: N, c: number): N | undefined {
  const digit = c >= 0x30 && c <= 0x39;
  switch (num) {
    case N.Start:
      return c === 0x2d ? N.Minus : c === 0x30 ? N.Zero : digit ? N.Int : undefined;
    case N.Minus:
      return c === 0x30 ? N.Zero : digit ? N.Int : undefined;
    case N.Zero:
      return c === 0x2e ? N.Dot : c === 0x65 || c === 0x45 ? N.E : undefined;
    case N.Int:
      return digit ? N.Int : c === 0x2e ? N.Dot : c === 0x65 || c === 0x45 ? N.E : undefined;
    case N.Dot:
      return digit ? N.Frac : undefined;
    case N.Frac:
      return digit ? N.Frac : c === 0x65 || c === 0x45 ? N.E : undefined;
    case N.E:
      return digit ? N.Exp : c === 0x2b || c === 0x2d ? N.ESign : undefined;
    case N.ESign:
      return digit ? N.Exp : undefined;
    case N.Exp:
      return digit ? N.Exp : undefined;
  }
}
