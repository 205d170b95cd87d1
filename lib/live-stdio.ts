import type { LiveJournalBuffer } from './live-journal.js';

/**
 * The stdio traffic on its way to the live validator's worker: every chunk (and every `skip` and
 * `end`) of a batch in one buffer that is moved to the worker, a 14-byte head before each
 * (operation, channel, time, byte count) and a chunk's bytes after it. One buffer per batch
 * instead of one ArrayBuffer per chunk, each allocated, transferred and wrapped on its own: with
 * 32 calls in flight that per-chunk cost was the largest item of the tap and of postMessage.
 */

export type StdioChannel = 'stdin' | 'stdout' | 'stderr';

/** What a head says: `n` bytes of a chunk follow; `n` more bytes of a line already past the live
 * limit (counted only); or the channel ended. */
export type StdioOp = 'chunk' | 'skip' | 'end';

const OPS: readonly StdioOp[] = ['chunk', 'skip', 'end'];
const CHANNELS: readonly StdioChannel[] = ['stdin', 'stdout', 'stderr'];
const HEAD = 14;

/** Appends one operation (a chunk's bytes are copied after its head). */
export function appendStdio(into: LiveJournalBuffer, op: StdioOp, channel: StdioChannel, t: number, data?: Uint8Array, n = 0): void {
  const size = data ? data.length : n;
  let at = into.reserve(HEAD + (op === 'chunk' ? size : 0));
  const buf = into.buffer;
  buf[at] = OPS.indexOf(op);
  buf[at + 1] = CHANNELS.indexOf(channel);
  buf.writeDoubleLE(t, at + 2);
  buf.writeUInt32LE(size, at + 10);
  at += HEAD;
  if (op === 'chunk' && data) buf.set(data, at);
}

/** Reads a batch back, in order; a chunk's `data` is a view of the batch (no copy). Returns how
 * many chunk bytes it carried. */
export function readLiveStdio(
  bytes: Uint8Array,
  on: (op: StdioOp, channel: StdioChannel, t: number, n: number, data: Buffer | undefined) => void,
): number {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let carried = 0;
  let pos = 0;
  while (pos < buf.length) {
    const op = OPS[buf[pos]!]!;
    const channel = CHANNELS[buf[pos + 1]!]!;
    const t = buf.readDoubleLE(pos + 2);
    const n = buf.readUInt32LE(pos + 10);
    pos += HEAD;
    if (op === 'chunk') {
      on(op, channel, t, n, buf.subarray(pos, pos + n));
      carried += n;
      pos += n;
    } else {
      on(op, channel, t, n, undefined);
    }
  }
  return carried;
}
