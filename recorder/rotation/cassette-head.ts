import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The `proxy` member of a cassette file's first session (`/sessions/0/proxy`), read from the head
 * of the file only: retention asks it of every closed cassette of a directory after each fold,
 * and a cassette may be gigabytes. A session's members come before its messages, so the answer is
 * within the first few KiB of a cassette that mcp-cassette wrote; the head read grows from 4 KiB
 * to 1 MiB at most. Undefined when the file does not have it there, or is not a cassette's JSON.
 * The scan follows the JSON's structure (strings, nesting), so a `proxy` key inside a peer's
 * clientInfo or inside a message is never taken for the session's.
 */
export function firstSessionProxy(path: string): unknown {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let head = Buffer.alloc(0);
    for (let want = FIRST_READ; ; want *= 4) {
      const chunk = Buffer.alloc(want - head.length);
      const n = readSync(fd, chunk, 0, chunk.length, head.length);
      head = Buffer.concat([head, chunk.subarray(0, n)]);
      const found = proxyIn(head.toString('utf8'));
      if (found !== MORE) return found;
      if (n < chunk.length || want >= MOST) return undefined;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

const FIRST_READ = 4096;
const MOST = 1024 * 1024;
const MORE = Symbol('more');

/** Thrown when the scan reaches the end of the head read so far. */
class Incomplete extends Error {}

function proxyIn(text: string): unknown {
  try {
    const sessions = memberAt(text, ws(text, 0), 'sessions');
    if (sessions < 0 || at(text, sessions) !== '[') return undefined;
    const first = ws(text, sessions + 1);
    if (at(text, first) !== '{') return undefined;
    const proxy = memberAt(text, first, 'proxy');
    if (proxy < 0) return undefined;
    return JSON.parse(text.slice(proxy, skipValue(text, proxy))) as unknown;
  } catch (err) {
    return err instanceof Incomplete ? MORE : undefined;
  }
}

function at(text: string, i: number): string {
  if (i >= text.length) throw new Incomplete();
  return text[i]!;
}

function ws(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

/** Where the value of member `key` of the object at `i` starts, or -1 when it has none. */
function memberAt(text: string, i: number, key: string): number {
  if (at(text, i) !== '{') return -1;
  i = ws(text, i + 1);
  if (at(text, i) === '}') return -1;
  for (;;) {
    if (at(text, i) !== '"') return -1;
    const end = skipString(text, i);
    const name = JSON.parse(text.slice(i, end)) as string;
    i = ws(text, end);
    if (at(text, i) !== ':') return -1;
    i = ws(text, i + 1);
    if (name === key) return i;
    i = ws(text, skipValue(text, i));
    if (at(text, i) !== ',') return -1;
    i = ws(text, i + 1);
  }
}

/** The end of the string that starts at `i` (after its closing quote). */
function skipString(text: string, i: number): number {
  for (let j = i + 1; ; j++) {
    const c = at(text, j);
    if (c === '\\') j++;
    else if (c === '"') return j + 1;
  }
}

/** The end of the JSON value that starts at `i`. */
function skipValue(text: string, i: number): number {
  const c = at(text, i);
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') {
    let depth = 0;
    for (let j = i; ; ) {
      const d = at(text, j);
      if (d === '"') {
        j = skipString(text, j);
        continue;
      }
      if (d === '{' || d === '[') depth++;
      else if (d === '}' || d === ']') depth--;
      j++;
      if (depth === 0) return j;
    }
  }
  let j = i;
  while (!',]} \n\r\t'.includes(at(text, j))) j++;
  return j;
}
