import { spawn } from 'node:child_process';
import { request } from 'undici';
import type { Logger } from '../lib/log.js';
import type { Violation } from '../lib/violation.js';

export interface AlertOptions {
  logger: Logger;
  /** POST each new violation as JSON (with a Slack-compatible `text`). */
  webhook?: string;
  /** Pipe each new violation as one JSON line into this shell command. */
  exec?: string;
}

const QUEUE_LIMIT = 200;
const RETRIES = 3;

export function oneLine(v: Violation): string {
  const arrow = v.direction === 'client-to-server' ? 'C>S' : 'S>C';
  return `${v.severity.toUpperCase()} ${v.rule} (message #${v.seq} ${arrow}${v.path ? ` ${v.path}` : ''}): ${v.message} ${v.spec}`;
}

/**
 * Turns violations into alerts: a structured pino record whose message is a readable one-liner,
 * a webhook POST and/or a command, for the first occurrence of a rule at a place; repeats are
 * counted for the summary. Delivery is queued (bounded) and asynchronous: it never blocks the
 * proxy, and a failing sink is retried with backoff, then logged and dropped.
 */
export class AlertHub {
  readonly #seen = new Map<string, { violation: Violation; count: number }>();
  readonly #queue: Violation[] = [];
  #dropped = 0;
  #draining: Promise<void> | undefined;

  constructor(private readonly options: AlertOptions) {}

  emit(v: Violation): void {
    const key = `${v.session}|${v.rule}|${v.direction}|${v.path}`;
    const seen = this.#seen.get(key);
    if (seen) {
      seen.count += 1;
      return;
    }
    this.#seen.set(key, { violation: v, count: 1 });
    const log = this.options.logger;
    const record = { violation: v };
    if (v.severity === 'error') log.error(record, oneLine(v));
    else if (v.severity === 'warning') log.warn(record, oneLine(v));
    else log.info(record, oneLine(v));
    if (!this.options.webhook && !this.options.exec) return;
    if (this.#queue.length >= QUEUE_LIMIT) {
      this.#dropped += 1;
      return;
    }
    this.#queue.push(v);
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = undefined;
    });
  }

  async #drain(): Promise<void> {
    for (let v = this.#queue.shift(); v; v = this.#queue.shift()) {
      if (this.options.webhook) await this.#retry('webhook', () => this.#post(this.options.webhook!, v!));
      if (this.options.exec) await this.#retry('exec', () => this.#exec(this.options.exec!, v!));
    }
  }

  async #retry(sink: string, fn: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await fn();
        return;
      } catch (err) {
        if (attempt + 1 >= RETRIES) {
          this.options.logger.warn({ sink, err: (err as Error).message }, `alert ${sink} failed ${RETRIES} times; dropped`);
          return;
        }
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      }
    }
  }

  async #post(url: string, v: Violation): Promise<void> {
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: `mcp-cassette: ${oneLine(v)}`, violation: v }),
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

  /** Waits (up to `timeoutMs`) for queued alerts, then returns the counts by rule. */
  async close(timeoutMs = 5000): Promise<{ rule: string; severity: string; count: number }[]> {
    if (this.#draining) await Promise.race([this.#draining, new Promise((r) => setTimeout(r, timeoutMs).unref())]);
    if (this.#dropped > 0) this.options.logger.warn({ dropped: this.#dropped }, 'alert queue was full; some alerts were not delivered');
    const byRule = new Map<string, { rule: string; severity: string; count: number }>();
    for (const { violation, count } of this.#seen.values()) {
      const e = byRule.get(violation.rule) ?? { rule: violation.rule, severity: violation.severity, count: 0 };
      e.count += count;
      byRule.set(violation.rule, e);
    }
    return [...byRule.values()].sort((a, b) => b.count - a.count);
  }
}
