import { Worker } from 'node:worker_threads';
import type { SessionEnd } from '../lib/cassette/cassette.js';
import type { JournalRecord, JournalWriter } from '../lib/cassette/journal.js';
import type { LiveWorkerInput, LiveWorkerOutput, LiveWorkerSpec } from '../lib/live-observer.js';

type StdioChannel = 'stdin' | 'stdout' | 'stderr';

/** If validation falls this far behind the traffic, it stops for the session; recording goes on. */
const LIVE_MAX_BACKLOG = 64 * 1024 * 1024;
/** How long the end of a session waits for the last verdicts and alerts. Hosts send SIGTERM a
 * couple of seconds after closing stdin (and SIGKILL soon after): the cassette must be written
 * before that; verdicts still pending are what `mcp-cassette validate` computes offline anyway. */
const FINISH_TIMEOUT_MS = 3_000;
/** Traffic goes to the worker in one message per this many milliseconds at most (verdicts and
 * alerts come that much later, which nobody notices). A message per event-loop turn cost a
 * `postMessage` (and a reply) for every few records: on HTTP about two per exchange, and the
 * largest item in the proxy's CPU profile; its cost is per message far more than per record
 * (bench, 4,300 sequential HTTP exchanges: 2,031 messages took 200 ms of the forwarding thread at
 * 2 ms, 221 took 65 ms at 20 ms). */
const LIVE_FLUSH_MS = 20;

/**
 * Streams the stdio traffic to the live validator's worker thread once it has been journaled
 * and forwarded; the worker's violations come back and go into the journal, so the cassette and
 * a recovery keep them. The forwarding thread only copies each chunk into a message.
 */
export class LiveTap {
  #worker: Worker | undefined;
  #backlog = 0;
  #disabled = false;
  #done: Promise<{ failed: boolean }> | undefined;
  /** Inputs since the last flush, sent to the worker as one message. */
  #batch: LiveWorkerInput[] = [];
  /** The batch's byte copies, moved (not copied again) to the worker. */
  #transfer: ArrayBuffer[] = [];
  #flushing = false;
  #spec: LiveWorkerSpec | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly journal: JournalWriter, private readonly warn: (message: string) => void) {}

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
    const worker = new Worker(spec.script, { workerData: spec.data, stdout: false, stderr: false });
    worker.unref();
    this.#done = new Promise((resolve) => {
      worker.on('message', (out: LiveWorkerOutput) => {
        if (out.type === 'done') return resolve({ failed: out.failed });
        this.#backlog -= out.processed;
        for (const { ref, ...violation } of out.violations) this.journal.event('violation', { violation, ...(ref ? { ref } : {}) });
      });
      worker.on('error', (err) => {
        this.#stop(`live validation stopped: ${err.message}`);
        resolve({ failed: false });
      });
      worker.on('exit', () => resolve({ failed: false }));
    });
    this.#worker = worker;
    this.#flush();
  }

  chunk(channel: StdioChannel, data: Buffer, t: number): void {
    if (this.#disabled) return;
    this.#backlog += data.length;
    if (this.#backlog > LIVE_MAX_BACKLOG) {
      this.#stop('live validation fell too far behind the traffic and stopped for this session; recording goes on (run `mcp-cassette validate` on the cassette)');
      return;
    }
    // A copy: stream chunks may share pooled memory or still be queued for writing, and the
    // worker needs bytes of its own. The copy itself is then moved to the worker, not cloned.
    const copy = new Uint8Array(data);
    this.#transfer.push(copy.buffer);
    this.#post({ type: 'chunk', channel, data: copy, t });
  }

  /** HTTP: every journal record, as it is written (wired to JournalWriter.onRecord). */
  record(record: JournalRecord): void {
    if (this.#disabled) return;
    if (!('ev' in record)) {
      this.#backlog += record.data.length;
      if (this.#backlog > LIVE_MAX_BACKLOG) {
        this.#stop('live validation fell too far behind the traffic and stopped; recording goes on (run `mcp-cassette validate` on the cassette)');
        return;
      }
      const copy = new Uint8Array(record.data);
      this.#transfer.push(copy.buffer);
      this.#post({ type: 'record', record: { ...record, data: copy } });
    } else {
      this.#post({ type: 'record', record });
    }
  }

  end(channel: StdioChannel, t: number): void {
    if (!this.#disabled) this.#post({ type: 'end', channel, t });
  }

  #post(input: LiveWorkerInput): void {
    this.#batch.push(input);
    if (this.#flushing) return;
    this.#flushing = true;
    setTimeout(() => this.#flush(), LIVE_FLUSH_MS);
  }

  #flush(): void {
    this.#flushing = false;
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
      this.#batch.push({ type: 'finish', ...(end ? { end } : {}) });
      this.#flush();
    }
    const timeout = new Promise<{ failed: boolean }>((r) => setTimeout(() => r({ failed: false }), FINISH_TIMEOUT_MS).unref());
    const hurried = new Promise<{ failed: boolean }>((r) => (this.#hurry = () => r({ failed: false })));
    const verdict = await Promise.race([this.#done, timeout, hurried]);
    await this.#worker.terminate();
    return verdict;
  }
}
