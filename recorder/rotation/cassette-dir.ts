import { Worker } from 'node:worker_threads';
import type { RecordingCounters } from './counters.js';
import type { MetricsSink } from '../../lib/metrics.js';
import type { SamplingSettings } from '../capture/sampling.js';
import type { FoldJob, FoldJudge, FoldResult } from './fold-worker.js';
import { leftAloneLine, prune, type RetentionPolicy } from './retention.js';

export interface CassetteDirOptions {
  dir: string;
  retention: RetentionPolicy;
  counters: RecordingCounters;
  info: (fields: Record<string, unknown>, message: string) => void;
  warn: (fields: Record<string, unknown>, message: string) => void;
  /** How often journals whose fold failed are tried again (default 5 s). */
  retryMs?: number;
  /** What each fold also does: `--sample`, and judge-at-write (asked when the fold starts, since
   * whether live validation shed is known only then). */
  fold?: FoldSettings;
  /** Where cassettes rotated and pruned are counted. */
  metrics?: MetricsSink;
}

export interface FoldSettings {
  sampling?: SamplingSettings;
  judge?: () => FoldJudge | undefined;
  /** Told of every fold that wrote or left out sessions (sampling counts, verdicts judged). */
  folded?: (result: Extract<FoldResult, { ok: true }>) => void;
}

const WORKER = new URL('./fold-worker.js', import.meta.url);
/** How long after the start the journals of dead recorders are folded. */
const RECOVER_AFTER_MS = 5_000;

/**
 * The cassette directory of a running `record --cassette-dir`: folds each closed journal into
 * its cassette (one at a time, in a worker thread), then applies the retention policy. A fold
 * that fails (disk full) keeps its journal and is tried again later; `recover` folds it too.
 */
export class CassetteDir {
  readonly #o: CassetteDirOptions;
  #queue: FoldJob[] = [];
  #failed: FoldJob[] = [];
  #running: Promise<void> | undefined;
  #retry: NodeJS.Timeout | undefined;
  #recover: NodeJS.Timeout | undefined;
  /** The fold in its worker now. */
  #current: { job: FoldJob; worker: Worker } | undefined;
  #handedOff = false;

  constructor(options: CassetteDirOptions) {
    this.#o = options;
    // Journals that dead recorders left here are folded, then the policy is applied: a while
    // after the start, never while the server answers its host's first requests (a recorder
    // that ends before then hands the directory to its finisher, which does the same).
    this.#recover = setTimeout(() => this.#push({ kind: 'recover', dir: options.dir }), RECOVER_AFTER_MS);
    this.#recover.unref();
  }

  /** A closed journal to fold into its cassette. */
  closed(file: { journal: string; cassette: string; trigger?: string }): void {
    // The last file waits for the end of the recording: drained here, or handed to the finisher.
    if (file.trigger === 'end') this.#queue.push({ kind: 'fold', ...file });
    else this.#push({ kind: 'fold', ...file });
  }

  /** Waits for every fold queued so far (at exit); journals that still cannot be folded are
   * left for `recover`, and their number returned. */
  async drain(): Promise<number> {
    clearTimeout(this.#retry);
    this.#queue.push(...this.#failed);
    this.#failed = [];
    this.#kick();
    while (this.#running) await this.#running;
    return this.#failed.filter((j) => j.kind === 'fold').length;
  }

  /**
   * The end of a stdio recording that exits with its server: stops folding and returns the
   * journals not folded yet (queued, failed, or in the fold now, whose worker is stopped: a fold
   * writes its cassette whole or not at all, and folding a journal again adds its sessions once),
   * for the finisher (recorder/finisher.ts).
   */
  handOff(): string[] {
    this.#handedOff = true;
    clearTimeout(this.#retry);
    clearTimeout(this.#recover);
    const jobs = [...(this.#current ? [this.#current.job] : []), ...this.#queue, ...this.#failed];
    this.#queue = [];
    this.#failed = [];
    void this.#current?.worker.terminate();
    return jobs.flatMap((j) => (j.kind === 'fold' ? [j.journal] : []));
  }

  #push(job: FoldJob): void {
    if (this.#handedOff) return;
    this.#queue.push(job);
    this.#kick();
  }

  #kick(): void {
    if (this.#running || this.#queue.length === 0) return;
    this.#running = (async () => {
      while (this.#queue.length > 0) await this.#run(this.#queue.shift()!);
      this.#running = undefined;
    })();
  }

  /** The job as the worker gets it: a fold with this run's sampling and judge. */
  #withSettings(job: FoldJob): FoldJob {
    const f = this.#o.fold;
    if (job.kind !== 'fold' || !f) return job;
    const judge = f.judge?.();
    return { ...job, ...(f.sampling ? { sampling: f.sampling } : {}), ...(judge ? { judge } : {}) };
  }

  async #run(job: FoldJob): Promise<void> {
    const result = await new Promise<FoldResult>((resolve) => {
      const worker = new Worker(WORKER, { workerData: this.#withSettings(job) });
      this.#current = { job, worker };
      let settled = false;
      worker.once('message', (r: FoldResult) => {
        settled = true;
        resolve(r);
      });
      worker.once('error', (err) => resolve({ ok: false, error: err.message }));
      worker.once('exit', () => {
        if (!settled) resolve({ ok: false, error: 'the fold worker stopped' });
      });
    });
    this.#current = undefined;
    if (this.#handedOff) return;
    const c = this.#o.counters;
    if (!result.ok) {
      if (job.kind === 'fold') {
        c.foldFailures += 1;
        this.#failed.push(job);
        this.#o.warn(
          { journal: job.journal, err: result.error },
          'a closed journal could not be written as a cassette yet; it is kept and tried again (or run `mcp-cassette recover` on the directory)',
        );
        this.#scheduleRetry();
      } else this.#o.warn({ dir: job.dir, err: result.error }, 'journals left by an earlier recorder could not be recovered');
      return;
    }
    for (const line of result.logs) (line.level === 'info' ? this.#o.info : this.#o.warn)(line.fields, line.message);
    if (job.kind === 'fold') {
      this.#o.fold?.folded?.(result);
      const sampling = result.sampling ? { sampling: result.sampling } : {};
      if (result.written) {
        c.cassettesRotated += 1;
        c.messagesRecorded += result.messages;
        this.#o.metrics?.count('mcp_cassette_cassettes_rotated_total', { trigger: job.trigger ?? 'end' });
        this.#o.info({ cassette: job.cassette, sessions: result.sessions, messages: result.messages, ...sampling }, 'cassette closed');
      } else this.#o.info({ cassette: job.cassette, ...sampling }, 'cassette not written: --sample left every session out');
    } else if (result.sessions > 0)
      this.#o.info(
        { dir: job.dir, sessions: result.sessions, cassettes: result.recovered ?? [] },
        'recovered sessions of an earlier recorder',
      );
    this.#prune();
    // A fold that works means the disk has room again: the ones that failed go next.
    if (this.#failed.length > 0) {
      this.#queue.push(...this.#failed);
      this.#failed = [];
    }
  }

  #prune(): void {
    try {
      const { pruned, leftAlone } = prune(this.#o.dir, this.#o.retention);
      // Said when their number changes: a user learns that retention is not deleting them.
      if (leftAlone !== this.#o.counters.cassettesLeftAlone && leftAlone > 0)
        this.#o.warn({ dir: this.#o.dir, files: leftAlone }, leftAloneLine(this.#o.dir, leftAlone));
      this.#o.counters.cassettesLeftAlone = leftAlone;
      for (const p of pruned) {
        this.#o.counters.cassettesPruned += 1;
        this.#o.counters.bytesPruned += p.bytes;
        this.#o.metrics?.count('mcp_cassette_cassettes_pruned_total', { rule: p.why });
        this.#o.info({ cassette: p.path, bytes: p.bytes, by: p.why }, 'cassette deleted by the retention policy');
      }
    } catch (err) {
      this.#o.warn({ dir: this.#o.dir, err: (err as Error).message }, 'retention could not be applied');
    }
  }

  #scheduleRetry(): void {
    if (this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      const failed = this.#failed;
      this.#failed = [];
      for (const job of failed) this.#push(job);
    }, this.#o.retryMs ?? 5000);
    this.#retry.unref();
  }
}
