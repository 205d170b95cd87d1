/** Records queued for a journal write, as the buffers to write, each passed through the writer's filter when it has one (both journal writers use it: journal.ts and the rotating series). */
import {
  type JournalEvent,
  type JournalStream,
  type JournalChunk,
  type JournalRecord,
  type JournalFilter,
  chunkLine,
  NEWLINE,
} from './journal.js';

/** Records queued for the next write, as the buffers to write (both journal writers use it), each
 * passed through the writer's filter when it has one. */
export class HeldRecords {
  buffers: Buffer[] = [];
  /** Where each written record starts in `buffers`, with its exchange (none for violations, which
   * are always written), so that the records of some exchanges can be left out. */
  readonly units: { at: number; x: number | undefined }[] = [];
  /** The records as written, after the filter (what a record written again must repeat). */
  readonly written: JournalRecord[] = [];
  /** The records `onRecord` hears (not violations), and each one's line as written (for a chunk,
   * its header line). */
  records: JournalRecord[] = [];
  lines: Buffer[] = [];

  chunk(t: number, stream: JournalStream, data: Buffer, exchange?: number, filter?: JournalFilter): void {
    const line = chunkLine(t, stream, exchange, data.length);
    const record: JournalChunk = { t, c: stream, ...(exchange === undefined ? {} : { x: exchange }), data };
    if (filter) for (const c of filter.chunk(record)) this.#write(c);
    else this.#write(record, line);
    this.records.push(record);
    this.lines.push(line);
  }

  event(record: JournalEvent, filter?: JournalFilter): void {
    const line = Buffer.from(JSON.stringify(record) + '\n');
    let written = line;
    let writtenRecord = record;
    if (filter) {
      const { before, event } = filter.event(record);
      for (const c of before) this.#write(c);
      if (event !== record) {
        written = Buffer.from(JSON.stringify(event) + '\n');
        writtenRecord = event;
      }
    }
    const x = (record as { x?: unknown }).x;
    this.units.push({ at: this.buffers.length, x: record.ev !== 'violation' && typeof x === 'number' ? x : undefined });
    this.buffers.push(written);
    this.written.push(writtenRecord);
    if (record.ev !== 'violation') {
      this.records.push(record);
      this.lines.push(line);
    }
  }

  /** The buffers to write, without the records of the `left` exchanges. */
  buffersWithout(left: ReadonlySet<number>): Buffer[] {
    const out: Buffer[] = [];
    this.units.forEach((u, i) => {
      if (u.x !== undefined && left.has(u.x)) return;
      const end = this.units[i + 1]?.at ?? this.buffers.length;
      for (let k = u.at; k < end; k++) out.push(this.buffers[k]!);
    });
    return out;
  }

  #write(c: JournalChunk, line = chunkLine(c.t, c.c, c.x, c.data.length)): void {
    this.units.push({ at: this.buffers.length, x: c.x });
    this.written.push(c);
    this.buffers.push(line, c.data, NEWLINE);
  }

  get empty(): boolean {
    return this.buffers.length === 0;
  }
}
