import { spawn } from 'node:child_process';
import type { Logger } from '../lib/log.js';
import type { Violation } from '../lib/violation.js';
import { cjsExport } from '../lib/cjs-export.js';

export interface AlertOptions {
  logger: Logger;
  /** POST each new violation as JSON (with a Slack-compatible `text`). */
  webhook?: string;
  /** Pipe each new violation as one JSON line into this shell command. */
  exec?: string;
  /** Masks what must not reach a log, webhook or command (the recorder's payload redaction). */
  redact?: (text: string) => string;
  /** Name each alert's session in its line: a Streamable HTTP recording has many (a stdio one has
   * one, named when the recording starts). */
  namesSession?: boolean;
}

/** Alerts waiting for a slow sink beyond this many are dropped (and counted). */
export const ALERT_QUEUE_LIMIT = 200;
/** Attempts per alert and sink; the waits between them double from ALERT_BACKOFF_MS. */
export const ALERT_ATTEMPTS = 3;
export const ALERT_BACKOFF_MS = 250;

/** What happened to the alerts of a session, logged when it ends. */
export interface AlertCounts {
  /** Delivered to every sink (after retries, if needed). */
  delivered: number;
  /** A sink still failed after ALERT_ATTEMPTS attempts. */
  failed: number;
  /** Not queued: ALERT_QUEUE_LIMIT alerts were already waiting. */
  dropped: number;
  /** Still queued or in flight when the proxy stopped waiting (see live-tap's FINISH_TIMEOUT_MS). */
  undelivered: number;
}

/** One rule in the end-of-session summary. */
export interface SummaryRow {
  rule: string;
  severity: string;
  count: number;
  /** The distinct tools, prompts and resources its violations were about (absent when none). */
  subjects?: string[];
}

/** How many subjects a summary line names before it says how many more there were. */
const SUBJECTS_SHOWN = 10;

/** The summary as the lines of its log message. */
export function summaryLines(rows: readonly SummaryRow[]): string {
  return rows
    .map((r) => {
      const more = (r.subjects?.length ?? 0) - SUBJECTS_SHOWN;
      const subjects = r.subjects?.length
        ? `  (${r.subjects.slice(0, SUBJECTS_SHOWN).join(', ')}${more > 0 ? `, and ${more} more` : ''})`
        : '';
      return `  ${String(r.count).padStart(5)}  ${r.severity.padEnd(7)}  ${r.rule}${subjects}`;
    })
    .join('\n');
}

/** An alert as one line; `namesSession`: with the session's id, as the cassette holds it. */
export function oneLine(v: Violation, namesSession = false): string {
  const arrow = v.direction === 'client-to-server' ? 'C>S' : 'S>C';
  const session = namesSession ? `session ${v.session} ` : '';
  return `${v.severity.toUpperCase()} ${v.rule} (${session}message #${v.seq} ${arrow}${v.path ? ` ${v.path}` : ''}): ${v.message} ${v.spec}`;
}

/**
 * Turns violations into alerts: a structured pino record whose message is a readable one-liner,
 * a webhook POST and/or a command, for the first occurrence of a rule at a place; repeats are
 * counted for the summary. Delivery is queued (bounded) and asynchronous: it never blocks the
 * proxy, and a failing sink is retried with backoff, then logged and dropped.
 */
export class AlertHub {
  readonly #seen = new Map<string, { violation: Violation; count: number; subjects: Set<string> }>();
  readonly #queue: Violation[] = [];
  readonly #counts: AlertCounts = { delivered: 0, failed: 0, dropped: 0, undelivered: 0 };
  #inFlight = 0;
  #draining: Promise<void> | undefined;

  constructor(private readonly options: AlertOptions) {}

  /** `subject`: the tool, prompt or resource the violation's message is about (alert-subjects.ts). */
  emit(found: Violation, subject?: string): void {
    const redact = this.options.redact;
    const v = redact ? { ...found, message: redact(found.message), path: redact(found.path) } : found;
    const key = `${v.session}|${v.rule}|${v.direction}|${v.path}`;
    const seen = this.#seen.get(key);
    if (seen) {
      seen.count += 1;
      if (subject !== undefined) seen.subjects.add(subject);
      return;
    }
    this.#seen.set(key, { violation: v, count: 1, subjects: new Set(subject === undefined ? [] : [subject]) });
    const log = this.options.logger;
    const record = { violation: v };
    const line = oneLine(v, this.options.namesSession);
    if (v.severity === 'error') log.error(record, line);
    else if (v.severity === 'warning') log.warn(record, line);
    else log.info(record, line);
    if (!this.options.webhook && !this.options.exec) return;
    if (this.#queue.length >= ALERT_QUEUE_LIMIT) {
      this.#counts.dropped += 1;
      return;
    }
    this.#queue.push(v);
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  async #drain(): Promise<void> {
    for (let v = this.#queue.shift(); v; v = this.#queue.shift()) {
      this.#inFlight = 1;
      let ok = true;
      if (this.options.webhook) ok = (await this.#retry('webhook', () => this.#post(this.options.webhook!, v!))) && ok;
      if (this.options.exec) ok = (await this.#retry('exec', () => this.#exec(this.options.exec!, v!))) && ok;
      this.#inFlight = 0;
      if (ok) this.#counts.delivered += 1;
      else this.#counts.failed += 1;
    }
  }

  /** Whether the sink took the alert within ALERT_ATTEMPTS attempts. */
  async #retry(sink: string, fn: () => Promise<void>): Promise<boolean> {
    for (let attempt = 1; ; attempt++) {
      try {
        await fn();
        return true;
      } catch (err) {
        const reason = (err as Error).message;
        if (attempt >= ALERT_ATTEMPTS) {
          this.options.logger.warn(
            { sink, attempt, err: reason },
            `alert ${sink} failed ${ALERT_ATTEMPTS} times (${reason}); this alert is dropped`,
          );
          return false;
        }
        const waitMs = ALERT_BACKOFF_MS * 2 ** (attempt - 1);
        this.options.logger.info(
          { sink, attempt, waitMs, err: reason },
          `alert ${sink} attempt ${attempt} of ${ALERT_ATTEMPTS} failed (${reason}); retrying in ${waitMs} ms`,
        );
        await new Promise((r) => setTimeout(r, waitMs));
      }
    }
  }

  async #post(url: string, v: Violation): Promise<void> {
    // Loaded on the first webhook alert: undici is the largest part of the validator's code,
    // and a worker that never posts must not pay for it at start (issue 28).
    const request = cjsExport<typeof import('undici').request>(await import('undici'), 'request');
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: `mcp-cassette: ${oneLine(v, this.options.namesSession)}`, violation: v }),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await res.body.dump();
    if (res.statusCode >= 300) throw new Error(`webhook answered ${res.statusCode}`);
  }

  #exec(command: string, v: Violation): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = spawn(command, { shell: true, stdio: ['pipe', 'ignore', 'inherit'] });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} exited ${String(code)}`))));
      child.stdin.on('error', () => {});
      child.stdin.end(JSON.stringify(v) + '\n');
    });
  }

  /** The violations seen so far, counted by rule, most frequent first, each with the distinct
   * subjects (tools, prompts, resources) it was seen on, in the order they came. */
  summary(): SummaryRow[] {
    const byRule = new Map<string, SummaryRow & { subjects: string[] }>();
    for (const { violation, count, subjects } of this.#seen.values()) {
      const e = byRule.get(violation.rule) ?? { rule: violation.rule, severity: violation.severity, count: 0, subjects: [] };
      e.count += count;
      for (const s of subjects) if (!e.subjects.includes(s)) e.subjects.push(s);
      byRule.set(violation.rule, e);
    }
    return [...byRule.values()]
      .sort((a, b) => b.count - a.count)
      .map(({ subjects, ...row }) => (subjects.length > 0 ? { ...row, subjects } : row));
  }

  /** Waits for the queued alerts, or until `deadline` settles, then logs and returns what became
   * of them. Nothing is logged when no sink is set. */
  async close(deadline: Promise<void>): Promise<AlertCounts> {
    if (this.#draining) await Promise.race([this.#draining, deadline]);
    const counts = { ...this.#counts, undelivered: this.#queue.length + this.#inFlight };
    if (this.options.webhook || this.options.exec) {
      const lost = counts.failed + counts.dropped + counts.undelivered;
      const text = `alerts: ${counts.delivered} delivered, ${counts.failed} failed after ${ALERT_ATTEMPTS} attempts, ${counts.dropped} dropped (queue of ${ALERT_QUEUE_LIMIT} full), ${counts.undelivered} undelivered when the session ended`;
      if (lost > 0) this.options.logger.warn({ alerts: counts }, text);
      else this.options.logger.info({ alerts: counts }, text);
    }
    return counts;
  }
}
