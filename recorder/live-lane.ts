import { Worker } from 'node:worker_threads';
import type { LiveWorkerInput, LiveWorkerOutput } from '../lib/live-observer.js';
import { LiveJournalBuffer, type LiveJournalInput } from '../lib/live-journal.js';

/**
 * One validator worker thread and what goes to it: the inputs since the last flush, sent as one
 * message with their byte copies moved (not copied again). Inputs wait here until the worker is
 * started (LiveTap starts workers a little after the proxy).
 */
export class LiveLane {
  batch: (LiveWorkerInput | LiveJournalInput)[] = [];
  /** HTTP: the records since the last flush, in the journal's format (one item of the batch). */
  journal = new LiveJournalBuffer();
  /** stdio: the chunks since the last flush (lib/live-stdio.ts). */
  stdio = new LiveJournalBuffer('stdio');
  transfer: ArrayBuffer[] = [];
  worker: Worker | undefined;
  /** The worker has loaded the validator (it takes a while: the rules, the SDK's schemas). */
  ready = false;
  /** The worker's verdict on its sessions, which comes before its last alerts are delivered. */
  verdict: { failed: boolean } | undefined;
  done: Promise<void> = Promise.resolve();
  /** Resolves once the worker's verdict came (or it is gone): before its last alerts are delivered. */
  verdictIn: Promise<void> = Promise.resolve();

  /** Starts the worker; `onOutput` hears its violation batches, `onError` a crash. */
  start(
    script: string,
    data: Record<string, unknown>,
    onOutput: (out: Extract<LiveWorkerOutput, { type: 'violations' }>) => void,
    onError: (err: Error) => void,
  ): void {
    const worker = new Worker(script, { workerData: data, stdout: false, stderr: false });
    worker.unref();
    this.worker = worker;
    let verdictIn = (): void => {};
    this.verdictIn = new Promise((resolve) => (verdictIn = resolve));
    this.done = new Promise((resolve) => {
      worker.on('message', (out: LiveWorkerOutput) => {
        if (out.type === 'ready') this.ready = true;
        else if (out.type === 'verdict') {
          this.verdict = { failed: out.failed };
          verdictIn();
        } else if (out.type === 'done') resolve();
        else onOutput(out);
      });
      worker.on('error', (err) => {
        onError(err);
        verdictIn();
        resolve();
      });
      worker.on('exit', () => {
        verdictIn();
        resolve();
      });
    });
  }

  /** Adds an input after the HTTP records gathered so far. */
  push(input: LiveWorkerInput, copy?: ArrayBuffer): void {
    this.#seal();
    this.batch.push(input);
    if (copy) this.transfer.push(copy);
  }

  /** Sends what was gathered (kept until the worker exists). */
  flush(): void {
    this.#seal();
    if (this.batch.length === 0 || !this.worker) return;
    const batch = this.batch;
    const transfer = this.transfer;
    this.batch = [];
    this.transfer = [];
    this.worker.postMessage(batch, transfer);
  }

  /** Moves the records and chunks gathered so far into the batch (one item per buffer). */
  #seal(): void {
    for (const buffer of [this.journal, this.stdio]) {
      for (const input of buffer.take()) {
        this.batch.push(input);
        this.transfer.push(input.bytes.buffer as ArrayBuffer);
      }
    }
  }

  /** Forgets what was gathered and ends the worker. */
  stop(): void {
    this.batch = [];
    this.transfer = [];
    this.journal = new LiveJournalBuffer();
    this.stdio = new LiveJournalBuffer('stdio');
    void this.worker?.terminate();
  }
}
