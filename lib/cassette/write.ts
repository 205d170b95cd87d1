import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import type { TextSink } from '../framing/json-emit.js';
import { hasSpilledField, isSpilled } from '../framing/spilled-message.js';
import type { Cassette } from './cassette.js';

/** Buffers the cassette text and writes it in blocks, so the whole text is never one string. */
class FileSink implements TextSink {
  readonly #block = Buffer.allocUnsafe(1024 * 1024);
  #used = 0;

  constructor(private readonly fd: number) {}

  write(text: string | Buffer): void {
    if (typeof text === 'string') {
      // A string that fits is encoded straight into the block (one copy).
      if (text.length * 3 <= this.#block.length - this.#used) {
        this.#used += this.#block.write(text, this.#used, 'utf8');
        return;
      }
      text = Buffer.from(text, 'utf8');
    }
    if (text.length > this.#block.length - this.#used) this.flush();
    if (text.length >= this.#block.length) {
      writeAll(this.fd, text);
      return;
    }
    text.copy(this.#block, this.#used);
    this.#used += text.length;
  }

  flush(): void {
    if (this.#used > 0) writeAll(this.fd, this.#block.subarray(0, this.#used));
    this.#used = 0;
  }
}

function writeAll(fd: number, data: Buffer): void {
  let done = 0;
  while (done < data.length) done += writeSync(fd, data, done, data.length - done);
}

/** `JSON.stringify(value, null, 2)` for a value whose line starts at `margin`. */
function stringifyAt(value: unknown, margin: number): string {
  const text = JSON.stringify(value, null, 2);
  return margin === 0 || !text.includes('\n') ? text : text.replaceAll('\n', '\n' + ' '.repeat(margin));
}

type Writer = (sink: FileSink, value: unknown, margin: number) => void;

/** An object laid out as stringify lays it out, with some members written by their own writer. */
function objectWith(special: Record<string, Writer>): Writer {
  return (sink, value, margin) => {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined && typeof v !== 'function');
    if (entries.length === 0) return sink.write('{}');
    const pad = ' '.repeat(margin + 2);
    sink.write('{');
    entries.forEach(([k, v], i) => {
      sink.write(`${i === 0 ? '' : ','}\n${pad}${JSON.stringify(k)}: `);
      const own = special[k];
      if (own) own(sink, v, margin + 2);
      else if (isSpilled(v)) v.writeTo(sink, margin + 2);
      else sink.write(stringifyAt(v, margin + 2));
    });
    sink.write(`\n${' '.repeat(margin)}}`);
  };
}

function arrayOf(item: Writer): Writer {
  return (sink, value, margin) => {
    const items = value as unknown[];
    if (items.length === 0) return sink.write('[]');
    const pad = ' '.repeat(margin + 2);
    sink.write('[');
    items.forEach((v, i) => {
      sink.write(`${i === 0 ? '' : ','}\n${pad}`);
      item(sink, v ?? null, margin + 2);
    });
    sink.write(`\n${' '.repeat(margin)}]`);
  };
}

/** A message with a spilled field is written member by member; any other, by stringify. */
const message: Writer = (sink, value, margin) => {
  if (hasSpilledField(value as object)) objectWith({})(sink, value, margin);
  else sink.write(stringifyAt(value, margin));
};

const cassetteWriter = objectWith({ sessions: arrayOf(objectWith({ messages: arrayOf(message) })) });

/**
 * Writes a cassette to `path` atomically (a temporary file beside it, synced, then renamed over
 * it), in the text `stringifyCassette` gives, without building that text as one string: a session
 * holding a 50 MB message costs a block of memory, not several copies of the message.
 */
export function writeCassetteFile(path: string, cassette: Cassette): void {
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const fd = openSync(temp, 'w', 0o666); // the umask decides, as for any file we write
  try {
    const sink = new FileSink(fd);
    cassetteWriter(sink, cassette, 0);
    sink.write('\n');
    sink.flush();
    fsyncSync(fd);
    closeSync(fd);
    renameSync(temp, path);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
    try {
      unlinkSync(temp);
    } catch {
      // never created or already renamed
    }
    throw err;
  }
}
