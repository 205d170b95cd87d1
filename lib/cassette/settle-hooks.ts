import type { Severity } from '../violation.js';
import type { RecordedSession } from './cassette.js';

/**
 * What the composition root plugs into settling (lib/cassette/settle.ts): lib/ knows neither the
 * validator nor the sampler. Its own module, so that the entry point sets them without loading
 * the settler.
 */
export interface SettleHooks {
  /** Judges at write: `all` replaces the live verdicts, `cross-session` adds the recording's. */
  judge?(
    sessions: RecordedSession[],
    scope: 'all' | 'cross-session',
    failOn: Severity | undefined,
  ): Promise<{ judged: number; violations: number; failed: boolean }>;
  select?(sessions: RecordedSession[], sampling: unknown): Promise<RecordedSession[]>;
}

let hooks: SettleHooks = {};

export function setSettleHooks(h: SettleHooks): void {
  hooks = h;
}

export function settleHooks(): SettleHooks {
  return hooks;
}
