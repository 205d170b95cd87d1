import { randomUUID } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { chunkLine, HeldJournal, NEWLINE, type JournalHeader, type JournalRecord, type JournalSink } from '../../lib/cassette/journal.js';
import { ioReason } from '../../lib/errors.js';
import { storedHeader } from '../../lib/http-headers.js';
import type { HttpHeaders } from '../../lib/cassette/cassette.js';
import type { MetricsSink } from '../../lib/metrics.js';
import { countNotRecorded, pauseReason, type RecordingCounters } from './counters.js';
import { ExchangeTracker } from './exchanges.js';
import { StdioPending } from './stdio-pending.js';
import type { RotationPolicy } from './dir-args.js';
import { JournalFile, nextCassettePath } from './journal-file.js';
import { HeldRecords } from '../../lib/cassette/held-records.js';
import { announceNewFile } from '../../lib/cassette/http-session-ids.js';

export interface RotatingJournalOptions {
  dir: string;
  /** The first file's header; later files get the same one with a new sessionId. */
  header: JournalHeader;
  t0: number;
  policy: RotationPolicy;
  counters: RecordingCounters;
  /** A file is closed and complete, to fold: `trigger` is the rotation's reason, or `end`. */
  closed: (file: { journal: string; cassette: string; trigger: RotationTrigger }) => void;
  /** Where the pause gauge and what was not recorded are reported. */
  metrics?: MetricsSink;
  /** Alerts (recording paused and resumed). */
  warn: (fields: Record<string, unknown>, message: string) => void;
  info: (fields: Record<string, unknown>, message: string) => void;
  /** How often a paused recorder tries to write again (default 1 s). */
  retryMs?: number;
  /** How long a due rotation waits for in-flight requests before moving them on (default 30 s). */
  forceAfterMs?: number;
  /** The recorder's replica name: in each file's name (journal-file.ts). */
  replica?: string;
}

export type RotationTrigger = 'size' | 'interval' | 'sessions' | 'end';

const STDIO_CHANNELS = ['stdin', 'stdout', 'stderr'] as const;

/**
 * The journal of `record --cassette-dir`: a series of journal files, each folded into its own
 * cassette once closed. The same records as `JournalWriter` (so the fold and `recover` read them
 * unchanged), plus:
 *
 * - rotation by size, age or sessions, at a point where the file can end: HTTP exchanges still in
 *   flight are written again at the top of the next file (marked `continued`) and end in the old
 *   one with the outcome `continued`;
 * - a write that fails (disk full, folder gone or read-only) never reaches the forwarding code:
 *   recording pauses, what crosses the proxy meanwhile is counted, and every `retryMs` a write
 *   is tried again; recording resumes with a `gap` event (and, on HTTP, the exchanges that lost
 *   records end as not recorded).
 */
export class RotatingJournal extends HeldJournal implements JournalSink {
  readonly #o: RotatingJournalOptions;
  readonly #http: boolean;
  readonly #tracker = new ExchangeTracker();
  #file: JournalFile | undefined;
  #paused: { since: number; nextTry: number; bytes: number; messages: number; reason: string } | undefined;
  /** Why the last pause came: the records of an exchange it tainted are dropped after recording
   * resumed, and are counted under the same reason. */
  #pauseReason = 'unwritable';
  /** When a rotation became due (it waits for a point where the file can end). */
  #due: number | undefined;
  #dueBy: RotationTrigger = 'size';
  #timer: NodeJS.Timeout | undefined;
  /** stdio: whether each channel's next byte starts a line (recording resumes only there). */
  readonly #lineStart: Record<string, boolean> = { stdin: true, stdout: true, stderr: true };
  /** HTTP: exchanges that lost records while paused; their later records are not written. */
  readonly #tainted = new Set<number>();
  /** stdio with rotation: which part of the session the current file holds, and the requests
   * still waiting for their answer (a part ends only when none is). */
  #part = 1;
  #pending: StdioPending | undefined;
  /** HTTP exchanges the current file holds the request of. */
  readonly #inFile = new Set<number>();

  constructor(options: RotatingJournalOptions) {
    super(options.t0);
    this.#o = options;
    this.#http = (options.header.session as { transport?: string }).transport === 'streamable-http';
    // The first file must open: an unusable folder at start is a usage error, not a pause.
    this.#file = this.#open(options.header.sessionId);
    if (!this.#http && (options.policy.bytes !== undefined || options.policy.intervalMs !== undefined)) this.#pending = new StdioPending();
    if (options.policy.intervalMs) {
      this.#timer = setInterval(() => this.#intervalDue(), Math.min(options.policy.intervalMs, 1000));
      this.#timer.unref();
    }
  }

  get path(): string {
    return this.#file?.path ?? '';
  }

  event(ev: string, fields: Record<string, unknown> = {}, hold = false): void {
    if (this.closed) return;
    if (ev === 'http-request') this.#beforeRequest(fields);
    // The live validator numbers a stdio session's messages from its start; a later part numbers
    // its own from 1, so the verdicts would point at the wrong messages there (validate has them).
    if (ev === 'violation' && !this.#http && this.#part > 1) return;
    this.held.event({ t: this.now(), ev, ...fields }, this.filter);
    if (!hold) this.flush();
  }

  flush(): void {
    if (this.held.empty || this.closed) return;
    const held = this.held;
    const { buffers, records, lines } = held;
    this.held = new HeldRecords();
    if (this.#paused && !this.#resume()) this.#drop(records);
    else if (this.#http && this.#tainted.size > 0) this.#writeHttpFiltered(held);
    else this.#write(buffers, records);
    // HTTP exchanges are followed as written: a request continued in the next file is repeated
    // there as the filter wrote it (masked), never as it crossed the proxy.
    for (const r of this.#http ? held.written : records) this.#track(r);
    // The live validator hears every record, written or not: validation never pauses.
    if (this.onRecord) for (let i = 0; i < records.length; i++) this.onRecord(records[i]!, lines[i]!);
    const file = this.#file;
    if (file && this.#due === undefined && this.#o.policy.bytes !== undefined && file.size >= this.#o.policy.bytes) this.#dueSince('size');
    if (this.#due !== undefined) this.#rotateIfPossible();
  }

  /** Closes the last file and hands it to the fold. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    clearInterval(this.#timer);
    this.#closeFile(false);
  }

  #dueSince(trigger: RotationTrigger): void {
    this.#due = Date.now();
    this.#dueBy = trigger;
  }

  /** A request that may begin a session: with --rotate-sessions reached, or a rotation due, the
   * file ends first (when it can), so the session begins the next file. */
  #beforeRequest(fields: Record<string, unknown>): void {
    const max = this.#o.policy.sessions;
    const starts = fields.mcp === true && storedHeader(fields.headers as HttpHeaders, 'mcp-session-id') === undefined;
    if (max !== undefined && starts && this.#file && this.#file.sessions >= max && this.#due === undefined) this.#dueSince('sessions');
    if (this.#due === undefined) return;
    this.flush();
    this.#rotateIfPossible();
  }

  #open(sessionId: string, session = this.#o.header.session): JournalFile {
    const header = { ...this.#o.header, sessionId, session };
    const file = new JournalFile(nextCassettePath(this.#o.dir, this.#o.replica), sessionId, JSON.stringify(header) + '\n');
    this.#o.counters.bytesRecorded += file.size;
    return file;
  }

  #write(buffers: Buffer[], records: JournalRecord[]): void {
    try {
      if (!this.#file) throw new Error('no journal file is open');
      this.#o.counters.bytesRecorded += this.#file.write(buffers);
      for (const r of records) if (!('ev' in r && r.ev === 'stopped')) this.#file.records += 1;
      if (this.#http) for (const r of records) if ('ev' in r && r.ev === 'http-request') this.#inFile.add(Number(r.x));
    } catch (err) {
      this.#pause(err);
      this.#drop(records);
    }
  }

  /** Writes the records of exchanges that lost none (as the filter made them); the others are
   * dropped until they end. */
  #writeHttpFiltered(held: HeldRecords): void {
    const kept: JournalRecord[] = [];
    const dropped: JournalRecord[] = [];
    for (const r of held.records) {
      const x = (r as { x?: unknown }).x;
      if (typeof x === 'number' && this.#tainted.has(x)) dropped.push(r);
      else kept.push(r);
    }
    const keep = held.buffersWithout(this.#tainted);
    this.#drop(dropped);
    if (keep.length > 0) this.#write(keep, kept);
  }

  #drop(records: JournalRecord[]): void {
    let bytes = 0;
    let messages = 0;
    for (const r of records) {
      const x = (r as { x?: unknown }).x;
      if (typeof x === 'number') this.#tainted.add(x);
      if ('ev' in r) {
        if (r.ev === 'http-end') this.#tainted.delete(Number(r.x));
        if (r.ev === 'http-request-end') messages += 1; // the client's message
        continue;
      }
      bytes += r.data.length;
      if (r.c !== 'http-request') messages += this.#tracker.messagesIn(r.c, r.x, r.data);
    }
    countNotRecorded(this.#o.counters, this.#o.metrics, bytes, messages, this.#paused?.reason ?? this.#pauseReason);
    if (this.#paused) {
      this.#paused.bytes += bytes;
      this.#paused.messages += messages;
    }
  }

  #track(r: JournalRecord): void {
    if (!this.#http) {
      if (!('ev' in r)) this.#pending?.chunk(r.c, r.data);
      if (!('ev' in r)) this.#lineStart[r.c] = r.data.length === 0 ? this.#lineStart[r.c]! : r.data[r.data.length - 1] === 0x0a;
      return;
    }
    if ('ev' in r) {
      if (this.#tracker.event(r.ev, r) && this.#file) this.#file.sessions += 1;
      if (r.ev === 'http-end') this.#inFile.delete(Number(r.x));
    } else if (r.x !== undefined && (r.c === 'http-request' || r.c === 'http-response')) this.#tracker.chunk(r.c, r.x, r.data);
  }

  #pause(err: unknown): void {
    if (this.#paused) return;
    const now = Date.now();
    this.#pauseReason = pauseReason(err);
    this.#paused = { since: now, nextTry: now + (this.#o.retryMs ?? 1000), bytes: 0, messages: 0, reason: this.#pauseReason };
    this.#o.counters.pauses += 1;
    this.#o.counters.paused = true;
    this.#o.metrics?.set('mcp_cassette_recording_paused', 1);
    this.#o.warn(
      { err: ioReason(err), dir: this.#o.dir },
      `recording paused: the cassette folder cannot be written (${ioReason(err)}); traffic is still forwarded, what is not recorded is counted, and recording resumes by itself once writes succeed`,
    );
  }

  /** Tries to write again (at most every retryMs). stdio resumes only where every channel starts
   * a line, so no message is cut. */
  #resume(): boolean {
    const p = this.#paused!;
    if (Date.now() < p.nextTry) return false;
    if (!this.#http && STDIO_CHANNELS.some((c) => !this.#lineStart[c])) return false;
    p.nextTry = Date.now() + (this.#o.retryMs ?? 1000);
    try {
      // A file that was never opened (or was lost) is opened now; else the gap goes into it.
      this.#file ??= this.#open(randomUUID());
      const gap = { t: this.now(), ev: 'gap', reason: 'not recorded: the cassette folder could not be written', bytes: p.bytes };
      const ends = [...this.#tainted]
        .filter((x) => this.#inFile.has(x))
        .map((x) => ({
          t: gap.t,
          ev: 'http-end',
          x,
          outcome: 'upstream-error',
          error: 'part of this exchange was not recorded (disk full)',
        }));
      this.#o.counters.bytesRecorded += this.#file.write([gap, ...ends].map((e) => Buffer.from(JSON.stringify(e) + '\n')));
      for (const e of ends) {
        this.#inFile.delete(e.x);
        this.#tracker.event('http-end', e);
      }
    } catch {
      return false;
    }
    this.#paused = undefined;
    this.#o.counters.paused = false;
    this.#o.metrics?.set('mcp_cassette_recording_paused', 0);
    this.#o.info({ bytesNotRecorded: p.bytes, messagesNotRecorded: p.messages, pausedMs: Date.now() - p.since }, 'recording resumed');
    return true;
  }

  #intervalDue(): void {
    const file = this.#file;
    if (this.closed || !file || this.#due !== undefined) return;
    if (Date.now() - file.openedAt >= this.#o.policy.intervalMs!) {
      // A quiet proxy does not fill the folder with empty cassettes: the period starts again.
      if (file.records === 0) {
        file.openedAt = Date.now();
        return;
      }
      this.#dueSince('interval');
      if (this.held.empty) this.#rotateIfPossible();
    }
  }

  /** Rotates if the file can end now: stdio sessions are never cut (each run is one cassette);
   * HTTP waits for in-flight requests, up to forceAfterMs. */
  #rotateIfPossible(): void {
    if (this.#paused || !this.#file || !this.held.empty) return;
    if (!this.#http) {
      // A stdio session is cut only where every pipe starts a line and no request waits for its
      // answer: no message is split, and a response is always in its request's cassette.
      if (this.#pending?.idle && STDIO_CHANNELS.every((c) => this.#lineStart[c])) this.#rotateStdio();
      return;
    }
    const force = Date.now() - this.#due! >= (this.#o.forceAfterMs ?? 30_000);
    if (!this.#tracker.canRotate(force)) return;
    this.#rotate();
  }

  #rotate(): void {
    let next: JournalFile;
    try {
      next = this.#open(randomUUID());
    } catch (err) {
      this.#pause(err); // the next write tries again; this file stays open until then
      return;
    }
    const continued = this.#tracker.continuation();
    const lines: Buffer[] = [];
    for (const r of continued) {
      if (r.event) lines.push(Buffer.from(JSON.stringify(r.event) + '\n'));
      else lines.push(chunkLine(r.chunk.t, 'http-request', r.chunk.x, r.chunk.data.length), r.chunk.data, NEWLINE);
    }
    try {
      this.#o.counters.bytesRecorded += next.write(lines);
    } catch (err) {
      next.close();
      this.#pause(err);
      return;
    }
    this.#closeFile(true);
    this.#file = next;
    this.#due = undefined;
    this.#tracker.rotated();
    announceNewFile(this, this.now(), next.sessionId); // live listeners name its sessions by its id, as its fold will
  }

  /** The next part of a long stdio session: a cassette of its own, labelled `part <n>`; the one
   * before ends with the reason `continued`. */
  #rotateStdio(): void {
    const header = this.#o.header;
    const session = header.session as { label?: string };
    const part = this.#part + 1;
    let next: JournalFile;
    try {
      next = this.#open(randomUUID(), {
        ...session,
        label: `${session.label ? `${session.label}, ` : ''}part ${part} of session ${header.sessionId}`,
      });
    } catch (err) {
      this.#pause(err);
      return;
    }
    try {
      this.#o.counters.bytesRecorded += this.#file!.write([Buffer.from(JSON.stringify({ t: this.now(), ev: 'continued' }) + '\n')]);
    } catch {
      // the part ends without saying so; its reason is then `recovered`
    }
    this.#part = part;
    this.#closeFile(true);
    this.#file = next;
    this.#due = undefined;
  }

  /** Ends the current file (the exchanges that go on end in it as `continued`) and hands it on. */
  #closeFile(continuing: boolean): void {
    const file = this.#file;
    if (!file) return;
    if (continuing && this.#tracker.open.size > 0) {
      const t = this.now();
      const ends = [...this.#tracker.open.keys()].map((x) =>
        Buffer.from(JSON.stringify({ t, ev: 'http-end', x, outcome: 'continued' }) + '\n'),
      );
      try {
        this.#o.counters.bytesRecorded += file.write(ends);
      } catch {
        // the fold ends them as cut off instead
      }
    }
    file.close();
    this.#file = undefined;
    // Nothing happened in it (a proxy stopped right after a rotation, or before any traffic).
    if (file.records === 0 && !continuing) {
      try {
        unlinkSync(file.path);
        return;
      } catch {
        // left for the fold
      }
    }
    this.#o.closed({ journal: file.path, cassette: file.cassette, trigger: continuing ? this.#dueBy : 'end' });
  }
}
