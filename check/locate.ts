/**
 * Lines in a cassette file, for the SARIF regions and the annotations of `check`: the line where
 * a recorded message (or a session) starts in the file as it is on disk, whatever its layout.
 * jsonc-parser gives each value's offset; the line is counted from the offset.
 */
import { readFileSync } from 'node:fs';
import { findNodeAtLocation, parseTree, type Node } from 'jsonc-parser';

export class CassetteLines {
  readonly #text: string;
  readonly #tree: Node | undefined;
  readonly #starts: number[] = [0];

  constructor(path: string) {
    let text = '';
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      /* a cassette that vanished: every finding points at line 1 */
    }
    this.#text = text;
    this.#tree = text ? parseTree(text) : undefined;
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.#starts.push(i + 1);
  }

  #line(offset: number): number {
    let lo = 0;
    let hi = this.#starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.#starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** The line of session `index` (0-based), or of its message with `seq` when given and found. */
  lineOf(index: number, seq?: number): number {
    if (!this.#tree) return 1;
    const session = findNodeAtLocation(this.#tree, ['sessions', index]);
    if (!session) return 1;
    if (seq !== undefined && seq > 0) {
      const messages = findNodeAtLocation(session, ['messages']);
      for (const m of messages?.children ?? []) {
        const s = findNodeAtLocation(m, ['seq']);
        if (s?.value === seq) return this.#line(m.offset);
      }
    }
    return this.#line(session.offset);
  }

  get empty(): boolean {
    return this.#text === '';
  }
}
