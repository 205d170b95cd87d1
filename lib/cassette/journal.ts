import { closeSync, mkdirSync, openSync, readSync, writeSync, writevSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CassetteError, ioReason } from '../errors.js';
import type { Channel } from '../message.js';
import { HeldRecords } from './held-records.js';

/**
 * The append-only journal a recorder writes while a session runs. Every chunk that crossed the
 * proxy is appended with a synchronous write right after it was forwarded, so a SIGKILLed proxy
 * leaves every forwarded byte on disk. Framing and parsing happen later, when the journal is
 * folded into the cassette; the hot path only copies bytes.
 *
 * Layout: a JSON header line, then records. A record is a JSON line `{"t","c","n"}` followed by
 * exactly `n` raw bytes and a newline, or an event line `{"t","ev",...}`. Length-prefixing keeps
 * raw bytes raw (no escaping) and makes a torn last record detectable.
 */

/** Journals live next to their cassette as hidden files, one per recording process. */
export function journalPath(cassettePath: string, sessionId: string): string {
  return join(dirname(cassettePath), `.${basename(cassettePath)}.${sessionId}.journal`);
}

export const JOURNAL_FORMAT = 'mcp-cassette-journal';
export const JOURNAL_VERSION = 1;

export interface JournalHeader {
  format: typeof JOURNAL_FORMAT;
  version: number;
  sessionId: string;
  startedAt: string;
  pid: number;
  hostname: string;
  /** Session fields known at start (transport, redacted command, label, ...). */
  session: Record<string, unknown>;
  /** How the journal goes into its cassette, for whichever process settles it (lib/cassette/settle.ts). */
  finish?: JournalFinish;
}

/** How a journal's sessions go into the cassette: written into the journal header at its start,
 * so any process that settles the journal later does what the recorder would have done. */
export interface JournalFinish {
  /** Replace the sessions already in the cassette (`record --overwrite`). */
  overwrite?: boolean;
  /** Live validation ran (false: `--no-validate`, nothing is judged when folded). */
  validate?: boolean;
  failOn?: 'error' | 'warning' | 'info';
  /** `--sample` (recorder/capture/sampling.ts; applied through SettleHooks.select). */
  sampling?: unknown;
  /** What judging at write covers when live validation judged every message: the rules that
   * compare the sessions of an HTTP run that several workers split (`--validate-workers`). */
  judgeWhenComplete?: 'cross-session';
}

/** The journal event a recorder writes at its end: whether live validation judged every message
 * (then the verdicts journaled are the session's verdicts; otherwise they are judged when folded). */
export const LIVE_EVENT = 'live';

export type JournalEvent = { t: number; ev: string; [k: string]: unknown };
/** Where journaled bytes came from: a stdio pipe, or the request or response body of HTTP
 * exchange `x`. */
export type JournalStream = Exclude<Channel, 'http'> | 'http-request' | 'http-response';
export type JournalChunk = { t: number; c: JournalStream; x?: number; data: Buffer };
export type JournalRecord = JournalChunk | JournalEvent;

const STREAM_CODE: Record<JournalStream, string> = { stdin: 'i', stdout: 'o', stderr: 'e', 'http-request': 'q', 'http-response': 'r' };
const CODE_STREAM: Record<string, JournalStream> = { i: 'stdin', o: 'stdout', e: 'stderr', q: 'http-request', r: 'http-response' };

/**
 * What reaches the disk, where it differs from what crossed the proxy (redaction and capture
 * levels, recorder/capture/): the writer hands each chunk and event to the filter and writes
 * what it returns, while `onRecord` (the live validator's feed) still hears the traffic as it
 * was. A filter holds a frame's bytes until the frame is complete, so that it can be masked
 * whole; `event` returns what it still holds that belongs before the event (a line cut by
 * `eof`, a body at `http-end`).
 */
export interface JournalFilter {
  chunk(record: JournalChunk): JournalChunk[];
  event(record: JournalEvent): { before: JournalChunk[]; event: JournalEvent };
  /** Bytes of a stdio stream taken in and not written yet (the line in progress). */
  held?(stream: JournalStream): number;
}

/** What a recorder writes its journal through: one file (`JournalWriter`), or a series of files
 * (recorder/rotation/rotating-journal.ts, `record --cassette-dir`). */
export interface JournalSink {
  readonly path: string;
  /** Set before the first record: what goes to disk in place of the traffic itself. */
  filter?: JournalFilter;
  onRecord?: (record: JournalRecord, line: Buffer) => void;
  now(): number;
  chunk(stream: JournalStream, data: Buffer, exchange?: number, hold?: boolean): number;
  event(ev: string, fields?: Record<string, unknown>, hold?: boolean): void;
  flush(): void;
  close(): void;
}

/** Bytes of `stream` a journal has taken in and not written yet: a stdio proxy forwards no more
 * than its journal holds (recorder/stdio-recorder.ts), so that a kill never loses a byte the
 * other side has. */
export function heldBytes(journal: JournalSink, stream: JournalStream): number {
  return journal.filter?.held?.(stream) ?? 0;
}

/** A chunk record's header line; the chunk's `n` bytes and a newline follow it. */
export function chunkLine(t: number, stream: JournalStream, exchange: number | undefined, n: number): Buffer {
  const x = exchange === undefined ? '' : `,"x":${exchange}`;
  return Buffer.from(`{"t":${t},"c":"${STREAM_CODE[stream]}"${x},"n":${n}}\n`);
}

/**
 * What both journal writers share (this file's JournalWriter, and the series of files of
 * recorder/rotation/rotating-journal.ts): the clock of their records and how a chunk is taken in.
 * Each writes its held records its own way (`flush`).
 */
export abstract class HeldJournal {
  filter?: JournalFilter;
  /** Hears every chunk and event (the live validator's feed); not violations. `line` is the
   * record's journal line as written (for a chunk, its header line). */
  onRecord?: (record: JournalRecord, line: Buffer) => void;
  /** Records queued with `hold`, written in order with the next write or `flush()`. */
  protected held = new HeldRecords();
  protected closed = false;
  readonly #t0: number;

  constructor(t0: number) {
    this.#t0 = t0;
  }

  now(): number {
    return Math.round((performance.now() - this.#t0) * 1000) / 1000;
  }

  /**
   * Appends a chunk; returns the time stamp it was given. With `hold`, the chunk is queued and
   * reaches the disk with the next record written without `hold` (or `flush()`): for bytes that
   * are not forwarded before then (an HTTP request body is forwarded once complete), so that
   * one system call journals what took several.
   */
  chunk(stream: JournalStream, data: Buffer, exchange?: number, hold = false): number {
    const t = this.now();
    if (this.closed) return t;
    this.held.chunk(t, stream, data, exchange, this.filter);
    if (!hold) this.flush();
    return t;
  }

  abstract flush(): void;
}

export class JournalWriter extends HeldJournal implements JournalSink {
  readonly #fd: number;

  constructor(
    readonly path: string,
    header: JournalHeader,
    t0: number,
  ) {
    super(t0);
    // 'wx': a journal is never shared; a name clash means a bug, not a file to reuse.
    this.#fd = openSync(path, 'wx', 0o600);
    writeSync(this.#fd, JSON.stringify(header) + '\n');
  }

  /** Appends an event; `hold` as for `chunk`. */
  event(ev: string, fields: Record<string, unknown> = {}, hold = false): void {
    if (this.closed) return;
    this.held.event({ t: this.now(), ev, ...fields }, this.filter);
    if (!hold) this.flush();
  }

  /** Writes the held records, if any, in one system call. Call it before forwarding anything
   * that a held record describes. */
  flush(): void {
    if (this.held.empty || this.closed) return;
    const { buffers, records, lines } = this.held;
    this.held = new HeldRecords();
    writevSync(this.#fd, buffers);
    if (this.onRecord) for (let i = 0; i < records.length; i++) this.onRecord(records[i]!, lines[i]!);
  }

  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    closeSync(this.#fd);
  }
}

export const NEWLINE = Buffer.from('\n');

/** A journal to fold: its header, and its records read from the file as they are consumed (each
 * iteration reads the file anew, a block at a time, so a journal of any size is never whole in
 * memory). `torn` is known once the records were read to the end. */
export interface JournalSource {
  header: JournalHeader;
  records: Iterable<JournalRecord>;
  /** True when the file ended inside a record (the writer died mid-write). */
  readonly torn: boolean;
}

/** A journal read whole (tests, small tools). */
export interface ParsedJournal extends JournalSource {
  records: JournalRecord[];
}

export function readJournal(path: string): ParsedJournal {
  const source = openJournal(path);
  const records = [...source.records];
  return { header: source.header, records, torn: source.torn };
}

const BLOCK = 1024 * 1024;

/** Reads a file forward in blocks. A new block is allocated for each refill, so the views handed
 * out of earlier blocks stay valid for as long as their holders keep them. */
class BlockReader {
  #buf = Buffer.alloc(0);
  #start = 0;
  #pos = 0;
  #eof = false;

  constructor(private readonly fd: number) {}

  /** The next line without its newline; `partial` when the file ends before the newline. */
  line(): { bytes: Buffer; partial: boolean } | undefined {
    let from = this.#start;
    for (;;) {
      const nl = this.#buf.indexOf(0x0a, from);
      if (nl !== -1) {
        const bytes = this.#buf.subarray(this.#start, nl);
        this.#start = nl + 1;
        return { bytes, partial: false };
      }
      from = this.#buf.length;
      if (!this.#refill(0)) {
        if (this.#start >= this.#buf.length) return undefined;
        const bytes = this.#buf.subarray(this.#start);
        this.#start = this.#buf.length;
        return { bytes, partial: true };
      }
      from -= this.#consumedShift;
    }
  }

  /** The next `n` bytes (fewer when the file ends first). */
  bytes(n: number): Buffer {
    while (this.#buf.length - this.#start < n && this.#refill(n)) {
      // reading on
    }
    const bytes = this.#buf.subarray(this.#start, Math.min(this.#start + n, this.#buf.length));
    this.#start += bytes.length;
    return bytes;
  }

  /** How far the last refill moved the unread bytes towards the start of the new block. */
  #consumedShift = 0;

  /** Moves the unread bytes into a new block with room for at least `want` of them and reads on. */
  #refill(want: number): boolean {
    if (this.#eof) return false;
    const rest = this.#buf.length - this.#start;
    const next = Buffer.allocUnsafe(Math.max(BLOCK, want, rest * 2));
    this.#buf.copy(next, 0, this.#start);
    this.#consumedShift = this.#start;
    let filled = rest;
    while (filled < next.length) {
      const n = readSync(this.fd, next, filled, next.length - filled, this.#pos);
      if (n === 0) {
        this.#eof = true;
        break;
      }
      this.#pos += n;
      filled += n;
    }
    this.#buf = next.subarray(0, filled);
    this.#start = 0;
    return filled > rest;
  }
}

/** Opens a journal: reads and checks its header now, its records when they are iterated. */
export function openJournal(path: string): JournalSource {
  const header = withReader(path, (reader) => parseHeader(path, reader.line()));
  const source = { header, records: { [Symbol.iterator]: () => records() }, torn: false };
  function* records(): Generator<JournalRecord> {
    const fd = openSync(path, 'r');
    try {
      const reader = new BlockReader(fd);
      reader.line(); // the header
      source.torn = false;
      for (;;) {
        const next = reader.line();
        if (!next) return;
        let line: Record<string, unknown>;
        try {
          if (next.partial) throw new Error('torn');
          line = JSON.parse(next.bytes.toString('utf8')) as Record<string, unknown>;
        } catch {
          source.torn = true;
          return;
        }
        if (typeof line.ev === 'string') {
          yield line as JournalEvent;
          continue;
        }
        const n = Number(line.n);
        const stream = CODE_STREAM[String(line.c)];
        if (!stream || !Number.isInteger(n) || n < 0) throw invalid(path, 'bad record header');
        // A torn final chunk still holds bytes that were forwarded; keep what made it to disk.
        const data = reader.bytes(n);
        const record = { t: Number(line.t), c: stream, ...(typeof line.x === 'number' ? { x: line.x } : {}), data };
        const closing = data.length === n ? reader.bytes(1) : undefined;
        if (closing?.length !== 1) {
          source.torn = true; // the record's closing newline (or some of its bytes) never reached disk
          yield record;
          return;
        }
        yield record;
      }
    } finally {
      closeSync(fd);
    }
  }
  return source;
}

function withReader<T>(path: string, fn: (reader: BlockReader) => T): T {
  const fd = openSync(path, 'r');
  try {
    return fn(new BlockReader(fd));
  } finally {
    closeSync(fd);
  }
}

function parseHeader(path: string, first: { bytes: Buffer; partial: boolean } | undefined): JournalHeader {
  if (!first || first.partial) throw invalid(path, 'the header line is missing');
  let header: JournalHeader;
  try {
    header = JSON.parse(first.bytes.toString('utf8')) as JournalHeader;
  } catch (err) {
    throw invalid(path, 'the header line is not JSON', err);
  }
  if (header.format !== JOURNAL_FORMAT) throw invalid(path, `format is ${String(header.format)}`);
  if (header.version > JOURNAL_VERSION) {
    throw invalid(path, `journal version ${header.version} is newer than this mcp-cassette reads (${JOURNAL_VERSION})`);
  }
  return header;
}

function invalid(path: string, problem: string, cause?: unknown): CassetteError {
  return new CassetteError('MCPC_JOURNAL_INVALID', `journal ${path} cannot be read: ${problem}`, { cause });
}

/** Creates the cassette's folder, or fails naming it: the journal and the cassette go there. */
export function ensureCassetteFolder(cassette: string): void {
  try {
    mkdirSync(dirname(cassette), { recursive: true });
  } catch (err) {
    throw unwritableFolder(cassette, err);
  }
}

/** Opens a new session's journal next to its cassette, or fails with a CassetteError naming it. */
export function openSessionJournal(cassette: string, header: JournalHeader, t0: number): JournalWriter {
  ensureCassetteFolder(cassette);
  try {
    return new JournalWriter(journalPath(cassette, header.sessionId), header, t0);
  } catch (err) {
    throw unwritableFolder(cassette, err);
  }
}

function unwritableFolder(cassette: string, err: unknown): CassetteError {
  return new CassetteError(
    'MCPC_FILE_UNWRITABLE',
    `cannot write the session journal next to the cassette ${cassette} (${ioReason(err)}); give a --cassette path in a folder you can write`,
    { cause: err },
  );
}
