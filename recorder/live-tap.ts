import { Worker } from 'node:worker_threads';
import type { SessionEnd } from '../lib/cassette/cassette.js';
import type { JournalChunk, JournalEvent, JournalRecord, JournalSink } from '../lib/cassette/journal.js';
import type { LiveWorkerInput, LiveWorkerOutput, LiveWorkerSpec } from '../lib/live-observer.js';
import { LiveJournalBuffer, skipLine, type LiveJournalInput } from '../lib/live-journal.js';

type StdioChannel = 'stdin' | 'stdout' | 'stderr';

/** If validation falls this far behind the traffic, it stops for the session; recording goes on. */
const LIVE_MAX_BACKLOG = 64 * 1024 * 1024;
/** How long the end of a session waits for the last verdicts and alerts. Hosts send SIGTERM a
 * couple of seconds after closing stdin (and SIGKILL soon after): the cassette must be written
 * before that; verdicts still pending are what `mcp-cassette validate` computes offline anyway. */
const FINISH_TIMEOUT_MS = 3_000;
/** After FINISH_TIMEOUT_MS the worker is told to stop waiting for alert sinks: it logs what became
 * of the alerts (delivered, failed, dropped, undelivered) and says done, which takes it one turn of
 * its event loop; this bounds the wait for that answer. */
const DEADLINE_ANSWER_MS = 1_000;
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

/**
 * Streams the stdio traffic to the live validator's worker thread once it has been journaled
 * and forwarded; the worker's violations come back and go into the journal, so the cassette and
 * a recovery keep them. The forwarding thread only copies each chunk into a message.
 */
export class LiveTap {
  #worker: Worker | undefined;
  #backlog = 0;
  #disabled = false;
  #done: Promise<void> | undefined;
  /** The worker's verdict on the session, which comes before its last alerts are delivered. */
  #verdict = { failed: false };
  /** Inputs since the last flush, sent to the worker as one message. */
  #batch: (LiveWorkerInput | LiveJournalInput)[] = [];
  /** HTTP: the records since the last flush, in the journal's format (one item of the batch). */
  #journal = new LiveJournalBuffer();
  /** The batch's byte copies, moved (not copied again) to the worker. */
  #transfer: ArrayBuffer[] = [];
  #flushing = false;
  #spec: LiveWorkerSpec | undefined;
  #timer: NodeJS.Timeout | undefined;
  readonly #runs = new Map<number, BodyRun>();
  /** stdio: bytes since each channel's last newline. */
  readonly #lineBytes: Record<StdioChannel, number> = { stdin: 0, stdout: 0, stderr: 0 };

  constructor(
    private readonly journal: JournalSink,
    private readonly warn: (message: string) => void,
  ) {}

  /**
   * Starts the worker after `delayMs`: loading the validator takes CPU that the server needs to
   * answer its first request quickly (clients give `server/discover` about a second). Traffic
   * before that is queued for it.
   */
  start(spec: LiveWorkerSpec, delayMs = 0): void {
    this.#spec = spec;
    if (delayMs <= 0) return this.#startNow();
    this.#timer = setTimeout(() => this.#startNow(), delayMs);
    this.#timer.unref();
  }

  #startNow(): void {
    if (this.#worker || this.#disabled || !this.#spec) return;
    clearTimeout(this.#timer);
    const spec = this.#spec;
    const worker = new Worker(spec.script, { workerData: { ...spec.data, maxFrame: LIVE_MAX_FRAME }, stdout: false, stderr: false });
    worker.unref();
    this.#done = new Promise((resolve) => {
      worker.on('message', (out: LiveWorkerOutput) => {
        if (out.type === 'verdict') return void (this.#verdict = { failed: out.failed });
        if (out.type === 'done') return resolve();
        this.#backlog -= out.processed;
        // One journal write for the whole batch.
        for (const { ref, ...violation } of out.violations) this.journal.event('violation', { violation, ...(ref ? { ref } : {}) }, true);
        this.journal.flush();
      });
      worker.on('error', (err) => {
        this.#stop(`live validation stopped: ${err.message}`);
        resolve();
      });
      worker.on('exit', () => resolve());
    });
    this.#worker = worker;
    this.#flush();
  }

  chunk(channel: StdioChannel, data: Buffer, t: number): void {
    if (this.#disabled) return;
    // A chunk inside a line the worker already drops (past LIVE_MAX_FRAME) goes as its size
    // only: copying a 50 MB line to be dropped there cost the proxy its size again.
    const before = this.#lineBytes[channel];
    const nl = data.lastIndexOf(0x0a);
    this.#lineBytes[channel] = nl === -1 ? before + data.length : data.length - nl - 1;
    if (nl === -1 && before > LIVE_MAX_FRAME) {
      this.#post({ type: 'skip', channel, n: data.length, t });
      return;
    }
    this.#backlog += data.length;
    if (this.#backlog > LIVE_MAX_BACKLOG) {
      this.#stop(
        'live validation fell too far behind the traffic and stopped for this session; recording goes on (run `mcp-cassette validate` on the cassette)',
      );
      return;
    }
    // A copy: stream chunks may share pooled memory or still be queued for writing, and the
    // worker needs bytes of its own. The copy itself is then moved to the worker, not cloned.
    const copy = new Uint8Array(data);
    this.#transfer.push(copy.buffer);
    this.#post({ type: 'chunk', channel, data: copy, t });
  }

  /** HTTP: every journal record, as it is written, with its journal line (wired to
   * JournalWriter.onRecord). The bytes are copied into the batch's buffer (lib/live-journal.ts). */
  record(record: JournalRecord, line: Buffer): void {
    if (this.#disabled) return;
    if ('ev' in record) {
      this.#track(record);
      this.#journal.append(line);
    } else if (this.#sizeOnly(record)) {
      this.#journal.append(skipLine(record.t, record.c === 'http-request' ? 'q' : 'r', record.x, record.data.length));
    } else {
      this.#backlog += record.data.length;
      if (this.#backlog > LIVE_MAX_BACKLOG) {
        this.#stop(
          'live validation fell too far behind the traffic and stopped; recording goes on (run `mcp-cassette validate` on the cassette)',
        );
        return;
      }
      this.#journal.append(line, record.data, NEWLINE);
    }
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
    if (!this.#disabled) this.#post({ type: 'end', channel, t });
  }

  #post(input: LiveWorkerInput): void {
    this.#batch.push(input);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#flushing) return;
    this.#flushing = true;
    setTimeout(() => this.#flush(), LIVE_FLUSH_MS);
  }

  /** Moves the HTTP records gathered so far into the batch (one item per buffer). */
  #seal(): void {
    for (const journal of this.#journal.take()) {
      this.#batch.push(journal);
      this.#transfer.push(journal.bytes.buffer as ArrayBuffer);
    }
  }

  #flush(): void {
    this.#flushing = false;
    this.#seal();
    if (this.#batch.length === 0 || !this.#worker) return; // kept until the worker exists
    const batch = this.#batch;
    const transfer = this.#transfer;
    this.#batch = [];
    this.#transfer = [];
    this.#worker.postMessage(batch, transfer);
  }

  #stop(message: string): void {
    if (this.#disabled) return;
    this.#disabled = true;
    this.#batch = [];
    this.#transfer = [];
    this.#journal = new LiveJournalBuffer();
    this.warn(message);
    void this.#worker?.terminate();
  }

  #hurry: () => void = () => {};

  /** Stops waiting for the last verdicts: the host wants the proxy gone (a signal during
   * shutdown), and the cassette matters more than the verdicts still being computed. */
  hurry(): void {
    this.#hurry();
  }

  /** Ends the worker without waiting (the server never ran). */
  abort(): void {
    this.#disabled = true;
    clearTimeout(this.#timer);
    void this.#worker?.terminate();
  }

  /** Waits for the last verdicts (bounded), then ends the worker. stdio: `end` is how the
   * session ended (exit status, who started the shutdown), which the session-end rules judge as
   * they will on the cassette. */
  async finish(end?: Partial<Pick<SessionEnd, 'exitCode' | 'signal' | 'initiatedBy'>>): Promise<{ failed: boolean }> {
    this.#startNow(); // a session shorter than the start delay is judged now
    if (!this.#worker || !this.#done) return { failed: false };
    if (!this.#disabled) {
      this.#seal(); // the last records before the end
      this.#batch.push({ type: 'finish', ...(end ? { end } : {}) });
      this.#flush();
    }
    const timer = (ms: number): Promise<'timeout'> => new Promise((r) => setTimeout(() => r('timeout'), ms).unref());
    const hurried = new Promise<'hurried'>((r) => (this.#hurry = () => r('hurried')));
    const ended = await Promise.race([this.#done, timer(FINISH_TIMEOUT_MS), hurried]);
    if (ended === 'timeout') {
      // Verdicts or alerts still pending (a slow webhook): the alert counts are still worth a line.
      this.#worker.postMessage([{ type: 'deadline' } satisfies LiveWorkerInput]);
      await Promise.race([this.#done, timer(DEADLINE_ANSWER_MS), hurried]);
    }
    await this.#worker.terminate();
    return this.#verdict;
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
