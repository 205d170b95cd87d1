/**
 * An MCP event stream cut into whole events for the capture filter: an event ends at a blank
 * line (two line ends in a row: CRLF, LF or a lone CR). Bytes pass through unchanged; only an
 * event whose data the filter changed is written again (`withData`).
 */
const EVENT_END = /(?:\r\n|\r(?!\n)|\n)(?:\r\n|\r(?!\n)|\n)/g;
const LINE = /([^\r\n]*)(\r\n|\r|\n|$)/g;

export class SseEvents {
  #buf = Buffer.alloc(0);
  /** How far the buffer has been searched for an event end. */
  #scanned = 0;

  /** The events this chunk completes, each with its closing blank line. */
  push(data: Buffer): Buffer[] {
    this.#buf = this.#buf.length ? Buffer.concat([this.#buf, data]) : Buffer.from(data);
    const out: Buffer[] = [];
    const text = this.#buf.toString('latin1');
    let start = 0;
    EVENT_END.lastIndex = Math.max(0, this.#scanned - 3);
    for (let m = EVENT_END.exec(text); m; m = EVENT_END.exec(text)) {
      const end = m.index + m[0].length;
      out.push(this.#buf.subarray(start, end));
      start = end;
    }
    this.#buf = this.#buf.subarray(start);
    this.#scanned = this.#buf.length;
    return out;
  }

  /** Bytes of the unfinished event held. */
  get pending(): number {
    return this.#buf.length;
  }

  /** Whatever was left unfinished (a stream cut off mid-event, or one too large to hold). */
  rest(): Buffer {
    const rest = this.#buf;
    this.#buf = Buffer.alloc(0);
    this.#scanned = 0;
    return rest;
  }

  /** An event's data: its `data` lines' values joined by LF; undefined when it has none. */
  static data(event: Buffer): Buffer | undefined {
    const parts: string[] = [];
    for (const [line] of lines(event.toString('utf8'))) {
      if (line === 'data' || line.startsWith('data:')) parts.push(line.slice(5).replace(/^ /, ''));
    }
    return parts.length ? Buffer.from(parts.join('\n')) : undefined;
  }

  /** The event with its data lines replaced by `data` (one `data:` line per line of it: a frame
   * JSON.stringify wrote has one) and its other fields masked as text. */
  static withData(event: Buffer, data: Buffer, maskText: (text: string) => string): Buffer {
    const out: string[] = [];
    let placed = false;
    for (const [line, end] of lines(event.toString('utf8'))) {
      if (line === 'data' || line.startsWith('data:')) {
        if (!placed) for (const part of data.toString('utf8').split(/\r\n|\r|\n/)) out.push(`data: ${part}${end || '\n'}`);
        placed = true;
      } else {
        out.push(`${line === '' ? '' : maskText(line)}${end}`);
      }
    }
    return Buffer.from(out.join(''));
  }
}

function* lines(text: string): Generator<[string, string]> {
  LINE.lastIndex = 0;
  for (let m = LINE.exec(text); m; m = LINE.exec(text)) {
    if (m[0] === '') return;
    yield [m[1]!, m[2]!];
  }
}
