import type { SessionEnd } from '../lib/cassette/cassette.js';
import type { JournalChunk, JournalEvent, JournalRecord, JournalSink } from '../lib/cassette/journal.js';
import type { LiveWorkerInput, LiveWorkerSpec } from '../lib/live-observer.js';
import { skipLine } from '../lib/live-journal.js';
import { appendStdio, type StdioChannel } from '../lib/live-stdio.js';
import { liveValidationStats, maxBacklogBytes } from '../lib/live-stats.js';
import { LiveLane } from './live-lane.js';
import { SEVERITY_ORDER, type Severity } from '../lib/violation.js';
import { LiveRouter } from './live-route.js';
import { NEW_JOURNAL_FILE } from '../lib/cassette/http-session-ids.js';

/** How long the end of a session waits for the last verdicts and alerts. Hosts send SIGTERM a
 * couple of seconds after closing stdin (and SIGKILL soon after): the cassette must be written
 * before that; verdicts still pending are what `mcp-cassette validate` computes offline anyway. */
const FINISH_TIMEOUT_MS = 3_000;
/** After FINISH_TIMEOUT_MS the worker is told to stop waiting for alert sinks: it logs what became
 * of the alerts (delivered, failed, dropped, undelivered) and says done, which takes it one turn of
 * its event loop; this bounds the wait for that answer. */
const DEADLINE_ANSWER_MS = 1_000;
/** At the end of a stdio session, how long at most the proxy waits for the validator's last
 * verdicts before it closes the journal and exits. A host gives it little time, and a proxy must
 * exit within about 100 ms of its server (issue 28): a validator that keeps up gives its last
 * verdicts in a few milliseconds, well within this. One still loading (a short session, such as a
 * v2 client's probe) is not waited for: the finisher judges the session when it writes the
 * cassette (recorder/finisher.ts), at low priority after the host has what it waits for. Only the
 * messages of the last moments can miss a live alert that way; an offending message that came
 * 500 ms or more before the close has been judged live by then (the validator is loaded some
 * 100-250 ms after the first answer). */
export const LIVE_EXIT_WAIT_MS = 50;
/** With alert sinks that deliver asynchronously (--alert-webhook, --alert-exec), how long more the
 * last alerts may hold the exit once the verdicts are in. */
export const ALERT_EXIT_WAIT_MS = 1_000;
/** Traffic goes to the worker in one message per this many milliseconds at most (verdicts and
 * alerts come that much later, which nobody notices). A message per event-loop turn cost a
 * `postMessage` (and a reply) for every few records: on HTTP about two per exchange, and the
 * largest item in the proxy's CPU profile; its cost is per message far more than per record
 * (bench, 4,300 sequential HTTP exchanges: 2,031 messages took 200 ms of the forwarding thread at
 * 2 ms, 221 took 65 ms at 20 ms). */
const LIVE_FLUSH_MS = 20;
/** Messages above this size are recorded but not validated live (the worker numbers and skips
 * them): parsing them costs too much, and holding them whole costs their size again. */
const LIVE_MAX_FRAME = 8 * 1024 * 1024;

/** HTTP: how far into each body of an open exchange the traffic is, to send the worker only the
 * size of bytes it would not keep (a copy of a 50 MB body to be dropped there cost its size). */
interface BodyRun {
  mcp: boolean;
  request: number;
  response: number;
  /** An MCP event stream: split into events, so only a line's length tells what is dropped. */
  sse: boolean;
  /** Bytes since the response's last CR or LF. */
  line: number;
  /** The previous response chunk ended on a UTF-8 character boundary. */
  whole: boolean;
}

/** How the live validation of a recording went, for the cassette write. */
export interface LiveOutcome {
  /** Violations at the --fail-on level were seen live. */
  failed: boolean;
  /** The worst verdict seen live (none: no violation). */
  worst?: Severity;
  /** Every message was judged live. False when the validator shed (fell behind past its bound,
   * or was cut off at the end before it caught up): the cassette write then judges them all. */
  complete: boolean;
}

/**
 * Streams the traffic to the live validator's worker threads once it has been journaled and
 * forwarded; their violations come back and go into the journal, so the cassette and a recovery
 * keep them. The forwarding thread only copies each chunk into a message. With several workers
 * (`--validate-workers`, HTTP), each session goes to one of them (live-route.ts); a stdio
 * recording is one session, judged by one worker.
 *
 * Overload: the bytes handed over and not judged yet are bounded (lib/live-stats.ts,
 * MCPC_LIVE_MAX_BACKLOG). Past the bound the tap sheds: the workers stop, the rest of the
 * recording is not judged live, which is counted and said, and the cassette write judges every
 * message (LiveOutcome.complete is false). Forwarding never waits for any of it.
 */
export class LiveTap {
  #lanes: LiveLane[] = [];
  #router: LiveRouter | undefined;
  #backlog = 0;
  readonly #maxBacklog = maxBacklogBytes();
  #disabled = false;
  #shed = false;
  #started = false;
  #flushing = false;
  #spec: LiveWorkerSpec | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #runs = new Map<number, BodyRun>();
  /** stdio: bytes since each channel's last newline. */
  readonly #lineBytes: Record<StdioChannel, number> = { stdin: 0, stdout: 0, stderr: 0 };
  readonly #stats = liveValidationStats();

  constructor(
    private readonly journal: JournalSink,
    private readonly warn: (message: string) => void,
  ) {
    this.#stats.maxBacklogBytes = this.#maxBacklog;
  }

  /**
   * Starts the workers after `delayMs`, or `afterAnswerMs` after the server's first output has
   * been forwarded (stdio): loading the validator takes CPU that the server needs to answer its
   * first request quickly (a host gives `server/discover` about a second, and starts all its
   * servers at once), and a session that ends right after that answer (a v2 client's probe) is
   * judged by the finisher without a validator loaded here at all. Traffic before the start is
   * queued for the workers (bounded like any backlog) and judged while the session runs.
   */
  start(spec: LiveWorkerSpec, delayMs = 0, afterAnswerMs?: number): void {
    this.#spec = spec;
    const n = spec.data.transport === 'streamable-http' ? Math.max(1, Math.floor(spec.workers ?? 1)) : 1;
    this.#lanes = Array.from({ length: n }, () => new LiveLane());
    if (n > 1) this.#router = new LiveRouter(n, (lane, parts) => this.#lanes[lane]!.journal.append(...parts));
    if (delayMs <= 0) return this.#startNow();
    this.#afterAnswerMs = afterAnswerMs;
    this.#timer = setTimeout(() => this.#startNow(), delayMs);
    this.#timer.unref();
  }

  #afterAnswerMs: number | undefined;
  /** Traffic was tapped (a session with none needs no verdicts). */
  #tapped = false;
  #worst: Severity | undefined;

  #startNow(): void {
    if (this.#started || this.#disabled || !this.#spec) return;
    this.#started = true;
    clearTimeout(this.#timer);
    const { script, data } = this.#spec;
    const n = this.#lanes.length;
    this.#lanes.forEach((lane, i) =>
      lane.start(
        script,
        { ...data, maxFrame: LIVE_MAX_FRAME, lane: i, lanes: n },
        (out) => {
          this.#settle(-out.processed);
          this.#stats.judgedLive += out.judged;
          // One journal write for the whole batch.
          for (const { ref, ...violation } of out.violations) {
            this.journal.event('violation', { violation, ...(ref ? { ref } : {}) }, true);
            if (this.#worst === undefined || SEVERITY_ORDER[violation.severity] > SEVERITY_ORDER[this.#worst])
              this.#worst = violation.severity;
          }
          this.journal.flush();
        },
        (err) => this.#stop(`live validation stopped: ${err.message}`),
      ),
    );
    this.#stats.workers += n;
    this.#flush();
  }

  /** Counts `bytes` into the backlog (negative: judged); sheds past the bound. */
  #settle(bytes: number): boolean {
    this.#backlog += bytes;
    this.#stats.backlogBytes += bytes;
    if (bytes > 0) this.#stats.tappedBytes += bytes;
    if (this.#backlog + (this.#router?.heldBytes ?? 0) <= this.#maxBacklog) return true;
    this.#shedNow();
    return false;
  }

  #shedNow(): void {
    this.#shed = true;
    this.#stats.shedEvents++;
    this.#stats.shedBytes += this.#backlog + (this.#router?.heldBytes ?? 0);
    this.#stop(
      `live validation fell more than ${Math.round(this.#maxBacklog / 1024 / 1024)} MB behind the traffic and shed the rest of this recording (counted); recording goes on, and every message is judged when the cassette is written`,
    );
  }

  chunk(channel: StdioChannel, data: Buffer, t: number): void {
    this.#tapped = true;
    if (this.#afterAnswerMs !== undefined && channel === 'stdout' && !this.#started) {
      // The host has its first answer (this chunk was forwarded before it got here).
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.#startNow(), this.#afterAnswerMs);
      this.#timer.unref();
      this.#afterAnswerMs = undefined;
    }
    if (this.#disabled) {
      if (this.#shed) this.#stats.shedBytes += data.length;
      return;
    }
    // A chunk inside a line the worker already drops (past LIVE_MAX_FRAME) goes as its size
    // only: copying a 50 MB line to be dropped there cost the proxy its size again.
    const before = this.#lineBytes[channel];
    const nl = data.lastIndexOf(0x0a);
    this.#lineBytes[channel] = nl === -1 ? before + data.length : data.length - nl - 1;
    if (nl === -1 && before > LIVE_MAX_FRAME) {
      appendStdio(this.#lanes[0]!.stdio, 'skip', channel, t, undefined, data.length);
      this.#schedule();
      return;
    }
    if (!this.#settle(data.length)) return;
    // Copied into the batch's buffer (stream chunks may share pooled memory or still be queued for
    // writing, and the worker needs bytes of its own), which is then moved to the worker.
    appendStdio(this.#lanes[0]!.stdio, 'chunk', channel, t, data);
    this.#schedule();
  }

  /** HTTP: every journal record, as it is written, with its journal line (wired to
   * JournalWriter.onRecord). The bytes are copied into the batch's buffer (lib/live-journal.ts). */
  record(record: JournalRecord, line: Buffer): void {
    if (this.#disabled) {
      if (this.#shed && !('ev' in record)) this.#stats.shedBytes += record.data.length;
      return;
    }
    let parts: Uint8Array[];
    if ('ev' in record && record.ev === NEW_JOURNAL_FILE) {
      // Every worker names the sessions of the new file by its id (--cassette-dir).
      if (this.#router) this.#router.broadcast([line]);
      else this.#lanes[0]!.journal.append(line);
      this.#schedule();
      return;
    }
    if ('ev' in record) {
      if (record.x === undefined) return; // not an exchange's record (the tap's own violations)
      this.#track(record);
      parts = [line];
    } else if (this.#sizeOnly(record)) {
      parts = [skipLine(record.t, record.c === 'http-request' ? 'q' : 'r', record.x, record.data.length)];
    } else {
      if (!this.#settle(record.data.length)) return;
      parts = [line, record.data, NEWLINE];
    }
    if (this.#router) this.#router.route(record, parts);
    else this.#lanes[0]!.journal.append(...parts);
    this.#schedule();
  }
  #track(event: JournalEvent): void {
    const x = Number(event.x);
    if (event.ev === 'http-request') {
      this.#runs.set(x, { mcp: event.mcp === true, request: 0, response: 0, sse: false, line: 0, whole: true });
    } else if (event.ev === 'http-response') {
      const run = this.#runs.get(x);
      const type = (event.headers as Record<string, string | string[] | undefined> | undefined)?.['content-type'];
      // As the worker's framer decides it.
      if (run) run.sse = run.mcp && ((Array.isArray(type) ? type[0] : type)?.toLowerCase().startsWith('text/event-stream') ?? false);
    } else if (event.ev === 'http-end') {
      this.#runs.delete(x);
    }
  }

  /**
   * Whether the worker would only count this chunk's bytes, never keep them: a body past
   * LIVE_MAX_FRAME; in an event stream, a chunk without a line end inside a line already past it
   * (plus 9 bytes: a `data: ` prefix, and up to 3 bytes a decoder may still hold), which starts
   * and ends on a character boundary so that the worker's decoder stays in step.
   */
  #sizeOnly(chunk: JournalChunk): boolean {
    const run = chunk.x === undefined ? undefined : this.#runs.get(chunk.x);
    if (!run) return false;
    const n = chunk.data.length;
    if (chunk.c === 'http-request') return (run.request += n) > LIVE_MAX_FRAME;
    if (!run.sse) return (run.response += n) > LIVE_MAX_FRAME;
    if (n === 0) return false;
    const end = Math.max(chunk.data.lastIndexOf(0x0d), chunk.data.lastIndexOf(0x0a));
    const whole = endsOnCharBoundary(chunk.data);
    const skip = end === -1 && run.line > LIVE_MAX_FRAME + 9 && run.whole && whole;
    run.line = end === -1 ? run.line + n : n - 1 - end;
    run.whole = whole;
    return skip;
  }

  end(channel: StdioChannel, t: number): void {
    if (this.#disabled) return;
    appendStdio(this.#lanes[0]!.stdio, 'end', channel, t);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setTimeout(() => this.#flush(), LIVE_FLUSH_MS);
  }

  #flush(): void {
    this.#flushing = false;
    for (const lane of this.#lanes) lane.flush();
  }

  #stop(message: string): void {
    if (this.#disabled) return;
    this.#disabled = true;
    this.#router?.clear();
    for (const lane of this.#lanes) lane.stop();
    if (this.#started) this.#stats.workers -= this.#lanes.length;
    this.#stats.backlogBytes -= this.#backlog;
    this.#backlog = 0;
    this.warn(message);
  }

  #hurry: () => void = () => {};

  /** Stops waiting for the last verdicts: the host wants the proxy gone (a signal during
   * shutdown), and the cassette matters more than the verdicts still being computed. */
  hurry(): void {
    this.#hurry();
  }

  /** Ends the workers without waiting (the server never ran). */
  abort(): void {
    if (this.#started && !this.#disabled) this.#stats.workers -= this.#lanes.length;
    this.#disabled = true;
    clearTimeout(this.#timer);
    for (const lane of this.#lanes) void lane.worker?.terminate();
  }

  /**
   * Waits for the last verdicts, then ends the workers. stdio: `end` is how the session ended
   * (exit status, who started the shutdown), which the session-end rules judge as they will on the
   * cassette. `waitMs` bounds the wait: a host gives the proxy little time once its server has
   * exited, so the stdio proxy waits briefly (LIVE_EXIT_WAIT_MS) and what is not judged by then is
   * judged when the journal is settled; with --fail-on it waits up to FINISH_TIMEOUT_MS, since the
   * exit status depends on the verdicts. `alertsMs`: how long alerts still being delivered (a
   * webhook, a command) may hold the end once the verdicts are in. A validator that has not judged
   * everything by then is cut off: the outcome is incomplete, which the settler makes good.
   */
  async finish(
    end?: Partial<Pick<SessionEnd, 'exitCode' | 'signal' | 'initiatedBy'>>,
    waitMs = FINISH_TIMEOUT_MS,
    alertsMs = 0,
  ): Promise<LiveOutcome> {
    const patient = waitMs >= FINISH_TIMEOUT_MS;
    if (!this.#started && !patient) {
      // A session that ended before its validator started (a probe): judged by the finisher,
      // rather than loading a validator now that the host waits for this process to exit.
      clearTimeout(this.#timer);
      this.#disabled = true;
      return { failed: false, complete: !this.#tapped && !this.#shed };
    }
    this.#startNow(); // a session shorter than the start delay is judged now (the exit waits for it)
    if (!this.#started) return { failed: false, complete: !this.#shed };
    if (!this.#disabled) {
      for (const lane of this.#lanes) {
        lane.push({ type: 'finish', ...(end ? { end } : {}) });
        lane.flush();
      }
    }
    const all = Promise.all(this.#lanes.map((l) => l.done)).then(() => 'done' as const);
    const verdicts = Promise.all(this.#lanes.map((l) => l.verdictIn)).then(() => 'verdicts' as const);
    const timer = (ms: number): Promise<'timeout'> => new Promise((r) => setTimeout(() => r('timeout'), ms).unref());
    const hurried = new Promise<'hurried'>((r) => (this.#hurry = () => r('hurried')));
    if (patient) {
      const ended = await Promise.race([all, timer(FINISH_TIMEOUT_MS), hurried]);
      if (ended === 'timeout') {
        // Verdicts or alerts still pending (a slow webhook): the alert counts are still worth a line.
        for (const lane of this.#lanes) lane.worker?.postMessage([{ type: 'deadline' } satisfies LiveWorkerInput]);
        await Promise.race([all, timer(DEADLINE_ANSWER_MS), hurried]);
      }
    } else if (
      // A validator still loading would need some 100 ms more: not waited for (the finisher judges).
      this.#lanes.every((l) => l.ready) &&
      (await Promise.race([verdicts, timer(waitMs), hurried])) === 'verdicts' &&
      alertsMs > 0
    ) {
      await Promise.race([all, timer(alertsMs), hurried]);
    }
    const judgedAll = !this.#disabled && this.#lanes.every((l) => l.verdict !== undefined);
    if (!this.#disabled && !judgedAll) {
      this.#shed = true;
      this.#stats.shedEvents++;
      this.#stats.shedBytes += this.#backlog;
    }
    if (!this.#disabled) this.#stats.workers -= this.#lanes.length;
    this.#stats.backlogBytes -= this.#backlog;
    this.#backlog = 0;
    this.#disabled = true;
    // The proxy exits next: a worker still busy is not waited for (it is unref'd).
    if (patient) await Promise.all(this.#lanes.map((l) => l.worker?.terminate()));
    else for (const l of this.#lanes) void l.worker?.terminate();
    return {
      failed: this.#lanes.some((l) => l.verdict?.failed === true),
      complete: judgedAll && !this.#shed,
      ...(this.#worst ? { worst: this.#worst } : {}),
    };
  }
}

const NEWLINE = Buffer.from('\n');

/** Whether a UTF-8 decoder holds nothing back after `data` (false when unsure). */
function endsOnCharBoundary(data: Buffer): boolean {
  for (let i = 1; i <= Math.min(4, data.length); i++) {
    const b = data[data.length - i]!;
    if (b < 0x80) return i === 1;
    // A lead byte: the character is complete if it has all its continuation bytes.
    if (b >= 0xc0) return i === (b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : 2);
  }
  return false;
}
