import { closeSync, openSync, readFileSync, writeSync, writevSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { CassetteError } from '../errors.js';
import type { Channel } from '../message.js';

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
}

export type JournalEvent = { t: number; ev: string; [k: string]: unknown };
/** Where journaled bytes came from: a stdio pipe, or the request or response body of HTTP
 * exchange `x`. */
export type JournalStream = Exclude<Channel, 'http'> | 'http-request' | 'http-response';
export type JournalChunk = { t: number; c: JournalStream; x?: number; data: Buffer };
export type JournalRecord = JournalChunk | JournalEvent;

const STREAM_CODE: Record<JournalStream, string> = { stdin: 'i', stdout: 'o', stderr: 'e', 'http-request': 'q', 'http-response': 'r' };
const CODE_STREAM: Record<string, JournalStream> = { i: 'stdin', o: 'stdout', e: 'stderr', q: 'http-request', r: 'http-response' };

export class JournalWriter {
  readonly #fd: number;
  readonly #t0: number;
  #closed = false;
  /** Records queued with `hold`, written in order with the next write or `flush()`. */
  #held: Buffer[] = [];
  #heldRecords: JournalRecord[] = [];
  /** Hears every chunk and event once it is on disk (the live validator's feed); not violations. */
  onRecord?: (record: JournalRecord) => void;

  constructor(readonly path: string, header: JournalHeader, t0: number) {
    // 'wx': a journal is never shared; a name clash means a bug, not a file to reuse.
    this.#fd = openSync(path, 'wx', 0o600);
    this.#t0 = t0;
    writeSync(this.#fd, JSON.stringify(header) + '\n');
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
    if (this.#closed) return t;
    const x = exchange === undefined ? '' : `,"x":${exchange}`;
    this.#held.push(Buffer.from(`{"t":${t},"c":"${STREAM_CODE[stream]}"${x},"n":${data.length}}\n`), data, NEWLINE);
    this.#heldRecords.push({ t, c: stream, ...(exchange === undefined ? {} : { x: exchange }), data });
    if (!hold) this.flush();
    return t;
  }

  /** Appends an event; `hold` as for `chunk`. */
  event(ev: string, fields: Record<string, unknown> = {}, hold = false): void {
    if (this.#closed) return;
    const record = { t: this.now(), ev, ...fields };
    this.#held.push(Buffer.from(JSON.stringify(record) + '\n'));
    if (ev !== 'violation') this.#heldRecords.push(record);
    if (!hold) this.flush();
  }

  /** Writes the held records, if any, in one system call. Call it before forwarding anything
   * that a held record describes. */
  flush(): void {
    if (this.#held.length === 0 || this.#closed) return;
    const buffers = this.#held;
    const records = this.#heldRecords;
    this.#held = [];
    this.#heldRecords = [];
    writevSync(this.#fd, buffers);
    if (this.onRecord) for (const r of records) this.onRecord(r);
  }

  close(): void {
    if (this.#closed) return;
    this.flush();
    this.#closed = true;
    closeSync(this.#fd);
  }
}

const NEWLINE = Buffer.from('\n');

export interface ParsedJournal {
  header: JournalHeader;
  records: JournalRecord[];
  /** True when the file ended inside a record (the writer died mid-write). */
  torn: boolean;
}

export function readJournal(path: string): ParsedJournal {
  const buf = readFileSync(path);
  let pos = buf.indexOf(0x0a);
  if (pos === -1) throw invalid(path, 'the header line is missing');
  let header: JournalHeader;
  try {
    header = JSON.parse(buf.subarray(0, pos).toString('utf8')) as JournalHeader;
  } catch (err) {
    throw invalid(path, 'the header line is not JSON', err);
  }
  if (header.format !== JOURNAL_FORMAT) throw invalid(path, `format is ${String(header.format)}`);
  if (header.version > JOURNAL_VERSION) {
    throw invalid(path, `journal version ${header.version} is newer than this mcp-cassette reads (${JOURNAL_VERSION})`);
  }
  pos += 1;
  const records: JournalRecord[] = [];
  let torn = false;
  while (pos < buf.length) {
    const nl = buf.indexOf(0x0a, pos);
    if (nl === -1) {
      torn = true;
      break;
    }
    let line: Record<string, unknown>;
    try {
      line = JSON.parse(buf.subarray(pos, nl).toString('utf8')) as Record<string, unknown>;
    } catch {
      torn = true;
      break;
    }
    pos = nl + 1;
    if (typeof line.ev === 'string') {
      records.push(line as JournalEvent);
      continue;
    }
    const n = Number(line.n);
    const stream = CODE_STREAM[String(line.c)];
    if (!stream || !Number.isInteger(n) || n < 0) throw invalid(path, `bad record header at byte ${pos}`);
    const end = pos + n;
    // A torn final chunk still holds bytes that were forwarded; keep what made it to disk.
    // A view, not a copy: the records live as long as the file's buffer anyway, and a copy
    // doubled the memory a fold of a 50 MB message needs.
    const data = buf.subarray(pos, Math.min(end, buf.length));
    records.push({ t: Number(line.t), c: stream, ...(typeof line.x === 'number' ? { x: line.x } : {}), data });
    if (end >= buf.length) {
      torn = true; // the record's closing newline (or some of its bytes) never reached disk
      break;
    }
    pos = end + 1;
  }
  return { header, records, torn };
}

function invalid(path: string, problem: string, cause?: unknown): CassetteError {
  return new CassetteError('MCPC_JOURNAL_INVALID', `journal ${path} cannot be read: ${problem}`, { cause });
}
