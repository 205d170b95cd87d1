/**
 * Shrinks a finding to a minimal session: on a fresh server each time, first the case alone, else
 * the fewest cases before it that still draw the same signature; then the case itself, argument
 * by argument and long string by long string. Every attempt is a real run, and the session kept
 * is the last run that reproduced the finding, so the cassette holds what the server really sent.
 * The attempts are bounded (`maxAttempts`), a hang's more tightly since each one waits the timeout.
 */
import { isObject } from '../../lib/plain-object.js';
import type { Observed } from './judge.js';
import { openConn, runCase, type Conn, type RunnerContext } from './runner.js';
import type { FuzzCase, Json } from './types.js';

export interface Shrunk {
  /** The cases of the minimal session, the finding's own last. */
  cases: FuzzCase[];
  /** The connection of the run that reproduced it (closed), or of the last attempt. */
  conn?: Conn;
  observed?: Observed;
  reproducible: boolean;
  attempts: number;
  ms: number;
}

/** Restarts an HTTP server we started, so each attempt meets a fresh one. */
async function freshServer(ctx: RunnerContext): Promise<void> {
  if (!ctx.server) return;
  await ctx.server.stop();
  await ctx.server.start();
}

/** One attempt: the cases on a fresh connection; the observation with the signature, if any. */
async function attempt(ctx: RunnerContext, cases: readonly FuzzCase[], signature: string): Promise<{ conn?: Conn; observed?: Observed }> {
  await freshServer(ctx);
  const last = cases.at(-1)!;
  const conn = await openConn(ctx, last.era, !last.beforeHandshake);
  if ('error' in conn) return {};
  try {
    for (const c of cases) {
      const { observed, trace } = await runCase(ctx, conn, c);
      const hit = observed.find((o) => o.signature === signature);
      if (hit && c === last) return { conn, observed: hit };
      if (trace.results.some((r) => r.gone || r.timedOut)) return { conn };
    }
    return { conn };
  } finally {
    await conn.wire.close();
  }
}

/** The case with its request's arguments edited (a copy); undefined when there is nothing to edit. */
function editArguments(c: FuzzCase, edit: (args: Json) => Json | undefined): FuzzCase | undefined {
  const i = c.steps.findIndex((s) => s.raw === undefined && isObject(s.message.params) && isObject(s.message.params.arguments));
  if (i < 0) return undefined;
  const step = c.steps[i]!;
  const params = step.message.params as Json;
  const edited = edit({ ...(params.arguments as Json) });
  if (!edited) return undefined;
  const steps = c.steps.slice();
  steps[i] = { ...step, message: { ...step.message, params: { ...params, arguments: edited } } };
  return { ...c, steps };
}

/** Smaller versions of the case: each argument left out, then each long string cut in half. */
function* smaller(c: FuzzCase): Generator<FuzzCase> {
  const step = c.steps.find((s) => s.raw === undefined && isObject(s.message.params) && isObject(s.message.params.arguments));
  if (!step) return;
  const args = (step.message.params as Json).arguments as Json;
  for (const k of Object.keys(args)) {
    const out = editArguments(c, (a) => {
      delete a[k];
      return a;
    });
    if (out) yield out;
  }
  for (const [k, v] of Object.entries(args)) {
    if (typeof v !== 'string' || v.length <= 64) continue;
    const half = Math.floor(v.length / 2);
    for (const part of [v.slice(0, half), v.slice(half)]) {
      const out = editArguments(c, (a) => ({ ...a, [k]: part }));
      if (out) yield out;
    }
  }
}

export async function shrink(
  ctx: RunnerContext,
  history: readonly FuzzCase[],
  found: FuzzCase,
  signature: string,
  maxAttempts: number,
): Promise<Shrunk> {
  const started = performance.now();
  const budget = signature.startsWith('hang|') ? Math.min(maxAttempts, 6) : maxAttempts;
  let attempts = 0;
  let best: { cases: FuzzCase[]; conn: Conn; observed: Observed } | undefined;
  const tryCases = async (cases: FuzzCase[]): Promise<boolean> => {
    if (attempts >= budget) return false;
    attempts++;
    const r = await attempt(ctx, cases, signature);
    if (r.conn && r.observed) {
      best = { cases, conn: r.conn, observed: r.observed };
      return true;
    }
    return false;
  };
  // The fewest cases before it: alone, then the last 1, 2, 4... of its connection's history.
  // A case on a connection of its own (before the handshake, or its ids the mutation) had none.
  const own = found.beforeHandshake || found.fixedIds;
  const before = own ? [] : history.filter((c) => c !== found && c.era === found.era && !c.beforeHandshake && !c.fixedIds);
  let window: FuzzCase[] | undefined;
  if (await tryCases([found])) window = [];
  for (let w = 1; !window && w <= Math.min(before.length, 64) && attempts < budget; w *= 2) {
    const tail = before.slice(-w);
    if (await tryCases([...tail, found])) window = tail;
  }
  if (window && window.length > 1) {
    let kept: FuzzCase[] = window;
    for (let i = 0; i < kept.length && attempts < budget; ) {
      const without: FuzzCase[] = kept.filter((_, j) => j !== i);
      if (await tryCases([...without, found])) kept = without;
      else i++;
    }
    window = kept;
  }
  // Then the case itself.
  if (window) {
    let current = found;
    let progress = true;
    while (progress && attempts < budget) {
      progress = false;
      for (const candidate of smaller(current)) {
        if (attempts >= budget) break;
        if (await tryCases([...window, candidate])) {
          current = candidate;
          progress = true;
          break;
        }
      }
    }
  }
  const ms = Math.round(performance.now() - started);
  if (best) return { cases: best.cases, conn: best.conn, observed: best.observed, reproducible: true, attempts, ms };
  return { cases: [...before.slice(-64), found], reproducible: false, attempts, ms };
}
