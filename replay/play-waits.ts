/**
 * The player's pacing (player.ts): waiting for live answers before the client's next step, for
 * listen streams to deliver what the recorded ones had, for POST exchanges to end, and for the
 * answer to a GET or DELETE, each bounded by the timeout or the stream grace period. A timeout
 * becomes the session's failure.
 */
import type { RecordedMessage } from '../lib/message.js';
import type { ExchangeAnswer } from './live/connection.js';
import type { ExchangeStep, Interaction, PlayOptions } from './play-model.js';
import { poke, wakeOnFailure, type SessionPlay } from './play-state.js';

/** A recorded point: before the message with this seq, before this time, or the session's end. */
export type Point = { seq: number } | { t: number } | 'end';

/** How many of the sorted `values` are below `x`. */
function countBelow(values: readonly number[], x: number): number {
  let lo = 0;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (values[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** How many times its recorded latency a request may take by default. */
export const LATENCY_FACTOR = 5;

/** A request's timeout: the one given; by default the larger of it and LATENCY_FACTOR times the
 * request's recorded latency, so a tool that was slow when recorded is not a timeout now. */
export function timeoutFor(it: Interaction, options: PlayOptions): { ms: number; why: string } {
  const recorded = it.recordedResponse ? it.recordedResponse.t - it.recorded.t : 0;
  const scaled = Math.ceil(recorded * LATENCY_FACTOR);
  if (options.timeoutGiven || scaled <= options.timeoutMs) return { ms: options.timeoutMs, why: '' };
  return { ms: scaled, why: ` (${LATENCY_FACTOR}x its recorded ${Math.round(recorded)} ms)` };
}

/** Resolves once `it` has its live answer, on a failure, or after the timeout (a failure). */
export function waitFor(p: SessionPlay, it: Interaction): Promise<void> {
  if (it.live || p.failure) return Promise.resolve();
  const timeout = timeoutFor(it, p.options);
  return new Promise((resolve) => {
    const remaining = Math.max(0, (it.sentAt ?? performance.now()) + timeout.ms - performance.now());
    const done = () => {
      clearTimeout(timer);
      p.failureWaiters.delete(done);
      resolve();
    };
    const timer = setTimeout(() => {
      p.failure ??= {
        code: 'MCPC_REPLAY_TIMEOUT',
        message: `the server did not answer ${it.method}${it.name ? ` (${it.name})` : ''} within ${timeout.ms} ms${timeout.why}; raise --timeout if it is only slow`,
      };
      done();
    }, remaining);
    p.failureWaiters.add(done);
    it.waiters.push(done);
  });
}

/** Resolves true once `ready()` holds, false after `ms` or on a failure. */
export function waitUntil(p: SessionPlay, ready: () => boolean, ms: number): Promise<boolean> {
  if (ready()) return Promise.resolve(true);
  if (p.failure) return Promise.resolve(false);
  return new Promise((resolve) => {
    const finish = (v: boolean) => {
      clearTimeout(timer);
      p.pokes.delete(check);
      p.failureWaiters.delete(check);
      resolve(v);
    };
    const check = () => {
      if (ready()) finish(true);
      else if (p.failure) finish(false);
    };
    const timer = setTimeout(() => finish(false), ms);
    p.pokes.add(check);
    p.failureWaiters.add(check);
  });
}

/** Resolves when every promise settled, or after `ms`, or on a failure. */
export async function waitUntilSettled(p: SessionPlay, list: Promise<void>[], ms: number): Promise<void> {
  let settled = false;
  void Promise.allSettled(list).then(() => {
    settled = true;
    poke(p);
  });
  await waitUntil(p, () => settled, ms);
}

/** Before a recorded point, the live listen streams get a grace period to deliver what the
 * recorded ones had delivered before it (the client may have acted on it). */
export async function catchUp(p: SessionPlay, before: Point): Promise<void> {
  for (const s of p.rec.streams.values()) {
    if (!s.open || s.late) continue;
    // A count, not a filter of every recorded message: this runs before every client message.
    const want = before === 'end' ? s.recorded.length : 'seq' in before ? countBelow(s.seqs, before.seq) : countBelow(s.ts, before.t);
    if (!(await waitUntil(p, () => s.live.length >= want || !s.open, p.grace)) && !p.failure) s.late = true;
  }
}

/** Resolves with the live answer to a GET or DELETE, or sets a timeout failure. */
export async function exchangeAnswer(
  p: SessionPlay,
  x: ExchangeStep,
  pending: Promise<ExchangeAnswer | undefined>,
): Promise<ExchangeAnswer | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), p.options.timeoutMs);
  });
  const got = await Promise.race([pending, timeout]);
  clearTimeout(timer);
  if (got === 'timeout') {
    const what = x.method === 'GET' ? 'GET (the listen stream)' : 'DELETE (the session end)';
    p.failure ??= {
      code: 'MCPC_REPLAY_TIMEOUT',
      message: `the server did not answer the client's ${what} within ${p.options.timeoutMs} ms; raise --timeout if it is only slow`,
    };
    wakeOnFailure(p);
    return undefined;
  }
  return got;
}

/** Waits for the live answer to every sent request whose recorded answer came `before` a point;
 * at the session's `end`, also for a request awaited without a recorded answer
 * (PlayOptions.awaitSeq), so the steps recorded after it still go out as they did. */
export async function waitForAnswers(p: SessionPlay, before: (r: RecordedMessage) => boolean, end = false): Promise<void> {
  for (const it of p.awaited) {
    if (!it.live && (it.recordedResponse ? before(it.recordedResponse) : end)) {
      p.waitingOn = it.recorded;
      await waitFor(p, it);
      if (p.failure) return;
    }
  }
}
