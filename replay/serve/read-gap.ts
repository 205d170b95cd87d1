/**
 * Keeps an answer out of the read that carries the progress notifications before it (stdio).
 *
 * Both SDK clients (v1 `@modelcontextprotocol/sdk`, v2 `@modelcontextprotocol/client`) handle the
 * messages of one read in a synchronous loop, but run a notification's handler in a microtask
 * while a response is handled at once, and handling a response deletes its request's progress
 * handler. A progress notification read together with its request's answer therefore reaches no
 * `onprogress`: the client reports "a progress notification for an unknown token" and drops it.
 * A real server writes its progress while its tool works, so the client, idle and waiting, reads
 * each one alone. `serve` writes a recorded interaction's frames one after the other (`--timing
 * fast`, and gaps under a millisecond with `recorded`), so the client reads them with the answer.
 *
 * Node reads a pipe or socket at most 64 KiB at a time (libuv's read size) and runs microtasks
 * after each read. Whitespace before the answer that puts 64 KiB between the last progress
 * notification's newline and the answer's newline makes the client run the progress handlers
 * first, however late it reads. JSON allows whitespace before a value: the messages are unchanged.
 */
import { messageText } from '../../lib/json-depth.js';
import { classify } from '../../lib/message.js';
import type { Json } from './interactions.js';

/** The most a Node client reads at once (libuv's suggested read size). */
export const CLIENT_READ_SIZE = 64 * 1024;

const isAnswer = (m: Json): boolean => {
  const kind = classify(m);
  return kind === 'response' || kind === 'error';
};

/** Turns frames into stdio lines, padding an answer that follows progress (see above). */
export class ReadGap {
  /** Bytes written since the last progress notification's newline; undefined when no progress
   * is closer than a read to what comes next. */
  #since: number | undefined;

  line(frame: Json | Json[]): string {
    const text = (Array.isArray(frame) ? `[${frame.map(messageText).join(',')}]` : messageText(frame)) + '\n';
    if (!Array.isArray(frame) && frame.method === 'notifications/progress') {
      this.#since = 0;
      return text;
    }
    if (this.#since === undefined) return text;
    const bytes = Buffer.byteLength(text);
    if (!(Array.isArray(frame) ? frame.some(isAnswer) : isAnswer(frame))) {
      this.#since += bytes;
      if (this.#since >= CLIENT_READ_SIZE) this.#since = undefined;
      return text;
    }
    // The answer's newline ends CLIENT_READ_SIZE bytes after the progress's: never in one read.
    const pad = Math.max(0, CLIENT_READ_SIZE - this.#since - bytes);
    this.#since = undefined;
    return ' '.repeat(pad) + text;
  }
}
