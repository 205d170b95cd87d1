/**
 * What the test helpers need of an ava test, for the benches that reuse them (validation-recall,
 * fuzz-bench): somewhere to register cleanups. The bench runs them when it is done (processes it
 * started, folders it made).
 */
import type { ExecutionContext } from 'ava';

export class Scope {
  readonly #cleanups: (() => unknown)[] = [];
  teardown(fn: () => unknown): void {
    this.#cleanups.push(fn);
  }
  async close(): Promise<void> {
    for (const fn of this.#cleanups.reverse()) await fn();
  }
  /** The helpers take an ExecutionContext and use only its teardown. */
  get t(): ExecutionContext {
    return this as unknown as ExecutionContext;
  }
}
