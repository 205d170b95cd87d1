import { randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, openSync, writeSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { CASSETTE_SUFFIX } from '../../lib/cassette/directory.js';
import { journalPath } from '../../lib/cassette/journal.js';

/** Cassettes of a directory are named by the time their file was opened, so names sort by time,
 * then by who wrote them: the replica (its host name, or `record --replica`) and the process, so
 * that many recorders writing one shared directory never pick one name:
 * `20261201T195033123Z-web-3-4821-1a2b3c.cassette.json`. */

let lastStamp = 0;

/** A name `nextCassettePath` gives (the first test of whether this recorder wrote a file); names
 * without the replica and process (`20261201T195033123Z-1a2b3c.cassette.json`) are those of
 * earlier versions. */
export const ROTATION_NAME = /^\d{8}T\d{9}Z-(?:[a-z0-9][a-z0-9-]{0,39}-\d+-)?[0-9a-f]{6}\.cassette\.json$/;

/** A replica's name as it goes into a file name: lower case letters, digits and `-`, at most 40. */
export function nameTag(replica: string): string {
  const tag = replica
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return tag || 'replica';
}

/** A new cassette name in `dir`, later than every name this process gave before; `replica` (the
 * recorder's name in a fleet) and this process's id are part of it. */
export function nextCassettePath(dir: string, replica?: string, now = Date.now()): string {
  const ms = Math.max(now, lastStamp + 1);
  lastStamp = ms;
  const stamp = new Date(ms).toISOString().replace(/[-:.]/g, '');
  const who = replica === undefined ? '' : `${nameTag(replica)}-${process.pid}-`;
  return join(dir, `${stamp}-${who}${randomBytes(3).toString('hex')}${CASSETTE_SUFFIX}`);
}

/**
 * One journal file of a series: appended to with whole records, and cut back to the last whole
 * record when a write fails (a full disk writes part of a record, then refuses the rest), so the
 * file always ends on a record boundary and can be appended to again.
 */
export class JournalFile {
  readonly path: string;
  readonly #fd: number;
  size = 0;
  openedAt = Date.now();
  /** Records written after the header and what a rotation carried over (none: nothing happened). */
  records = 0;
  /** Sessions that started in this file (HTTP: new Mcp-Session-Id values and stateless exchanges). */
  sessions = 0;

  constructor(
    readonly cassette: string,
    readonly sessionId: string,
    headerLine: string,
  ) {
    this.path = journalPath(cassette, sessionId);
    this.#fd = openSync(this.path, 'wx', 0o600);
    try {
      this.write([Buffer.from(headerLine)]);
    } catch (err) {
      this.close();
      throw err;
    }
  }

  /** Writes every buffer or none: on failure the file is cut back and the error thrown. */
  write(buffers: Buffer[]): number {
    let total = 0;
    for (const b of buffers) total += b.length;
    try {
      // At an explicit position: after a failed write is cut back, the next one goes where the
      // file ends, not where the failed one left the file offset (which would leave a hole).
      let done = writevSync(this.#fd, buffers, this.size);
      // A short write (the disk filling up) is finished by hand; the next write says why it stops.
      for (let i = 0, start = 0; done < total && i < buffers.length; start += buffers[i]!.length, i++) {
        const b = buffers[i]!;
        for (let off = Math.max(0, done - start); off < b.length; ) {
          const n = writeSync(this.#fd, b, off, b.length - off, this.size + done);
          off += n;
          done += n;
        }
      }
    } catch (err) {
      try {
        ftruncateSync(this.#fd, this.size);
      } catch {
        // the file keeps a torn last record; the fold reads up to it
      }
      throw err;
    }
    this.size += total;
    return total;
  }

  close(): void {
    try {
      closeSync(this.#fd);
    } catch {
      // already closed
    }
  }
}
