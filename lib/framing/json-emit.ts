/**
 * Writers for the cassette text of a large frame, from its bytes in pieces (see json-scan.ts):
 * the frame as indented JSON (the layout `JSON.stringify(value, null, 2)` gives, each line shifted
 * by the depth it sits at), as a JSON string, or as base64. Memory stays at one piece.
 */
export interface TextSink {
  write(text: string | Buffer): void;
}

const WS = new Uint8Array(256);
for (const c of [0x20, 0x09, 0x0a, 0x0d]) WS[c] = 1;

/**
 * Re-lays out valid JSON (the scanner said so): whitespace between tokens is dropped, `{`/`[`
 * open a line per member, `,` ends one, `:` is followed by a space; strings, numbers and literals
 * are copied byte for byte. `margin` is the indentation of the line the value starts on.
 */
export function writeIndented(pieces: Iterable<Buffer>, margin: number, sink: TextSink): void {
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** A container was just opened: its first member (or its closer) decides the layout. */
  let opened = false;
  const newline = (d: number): string => '\n' + ' '.repeat(margin + 2 * d);
  for (const b of pieces) {
    let i = 0;
    while (i < b.length) {
      if (inString) {
        let j = i;
        while (j < b.length) {
          const c = b[j]!;
          if (escaped) escaped = false;
          else if (c === 0x5c) escaped = true;
          else if (c === 0x22) break;
          j++;
        }
        if (j < b.length) {
          sink.write(b.subarray(i, j + 1));
          inString = false;
          i = j + 1;
        } else {
          sink.write(b.subarray(i, j));
          i = j;
        }
        continue;
      }
      const c = b[i]!;
      if (WS[c]) {
        i++;
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        depth--;
        sink.write(opened ? String.fromCharCode(c) : newline(depth) + String.fromCharCode(c));
        opened = false;
        i++;
        continue;
      }
      if (opened) {
        sink.write(newline(depth));
        opened = false;
      }
      if (c === 0x7b || c === 0x5b) {
        sink.write(String.fromCharCode(c));
        depth++;
        opened = true;
        i++;
      } else if (c === 0x2c) {
        sink.write(',' + newline(depth));
        i++;
      } else if (c === 0x3a) {
        sink.write(': ');
        i++;
      } else if (c === 0x22) {
        sink.write('"');
        inString = true;
        i++;
      } else {
        // A number or literal: up to the next structural byte or whitespace.
        let j = i;
        while (j < b.length && !WS[b[j]!] && b[j] !== 0x2c && b[j] !== 0x5d && b[j] !== 0x7d && b[j] !== 0x3a) j++;
        sink.write(b.subarray(i, j));
        i = j;
      }
    }
  }
}

const ESCAPES: (string | undefined)[] = [];
for (let c = 0; c < 0x20; c++) ESCAPES[c] = `\\u${c.toString(16).padStart(4, '0')}`;
ESCAPES[0x08] = '\\b';
ESCAPES[0x09] = '\\t';
ESCAPES[0x0a] = '\\n';
ESCAPES[0x0c] = '\\f';
ESCAPES[0x0d] = '\\r';
ESCAPES[0x22] = '\\"';
ESCAPES[0x5c] = '\\\\';

/** UTF-8 text as the JSON string `JSON.stringify(text)` gives (valid UTF-8 has no lone
 * surrogates, so only quotes, backslashes and control characters are escaped). */
export function writeJsonString(pieces: Iterable<Buffer>, sink: TextSink): void {
  sink.write('"');
  for (const b of pieces) {
    let run = 0;
    for (let i = 0; i < b.length; i++) {
      const c = b[i]!;
      const e = c < 0x20 || c === 0x22 || c === 0x5c ? ESCAPES[c] : undefined;
      if (e === undefined) continue;
      if (i > run) sink.write(b.subarray(run, i));
      sink.write(e);
      run = i + 1;
    }
    if (run < b.length) sink.write(b.subarray(run));
  }
  sink.write('"');
}

/** Bytes as a JSON string of their base64; every piece but the last must be a multiple of 3
 * bytes long, so the pieces' encodings join into the whole's. */
export function writeBase64String(pieces: Iterable<Buffer>, sink: TextSink): void {
  sink.write('"');
  for (const b of pieces) sink.write(b.toString('base64'));
  sink.write('"');
}
