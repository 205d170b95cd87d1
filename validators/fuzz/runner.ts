/**
 * Runs cases on connections and traces what each drew: the one place that sends a case, used by
 * the fuzzing loop (engine.ts) on its long-lived connection and by the shrinker (shrink.ts) on a
 * fresh server per attempt. Request ids are made unique per connection (`fuzz-<n>`), except where
 * the id is what the case mutates, or the step is raw text.
 */
import type { Plan } from '../probes/plan.js';
import { judgeCase, stderrOf, WireValidator, type CaseTrace, type Observed } from './judge.js';
import { openWire, START_ALLOWANCE_MS, type Endpoint, type HttpServerProcess } from './target.js';
import type { FuzzCase, FuzzStep, Json } from './types.js';
import { pendingReads, type Wire } from './wire.js';

export interface Conn {
  wire: Wire;
  validator: WireValidator;
  era: 'modern' | 'legacy';
  /** The cases sent on it so far (what a finding may need before its own case). */
  history: FuzzCase[];
  /** Ids handed out on this connection. */
  ids: number;
}

export interface RunnerContext {
  endpoint: Endpoint;
  plan: Plan;
  timeoutMs: number;
  /** HTTP with a command: the server process (its stderr, its restarts). */
  server?: HttpServerProcess;
}

export async function openConn(ctx: RunnerContext, era: 'modern' | 'legacy', handshake = true): Promise<Conn | { error: string }> {
  const opened = await openWire(ctx.endpoint, ctx.plan, era, ctx.timeoutMs, handshake);
  if ('error' in opened) return { error: opened.error };
  return { wire: opened.wire, validator: new WireValidator(opened.wire), era, history: [], ids: 0 };
}

const keepsIds = (c: FuzzCase): boolean => c.fixedIds === true;

/** The case's steps with fresh ids on this connection (a cancellation follows its request). */
export function withConnIds(conn: Conn, c: FuzzCase): FuzzStep[] {
  if (keepsIds(c)) return c.steps;
  const map = new Map<string, string>();
  const fresh = (id: unknown): unknown => {
    const k = JSON.stringify(id);
    if (!map.has(k)) map.set(k, `fuzz-${++conn.ids}`);
    return map.get(k);
  };
  return c.steps.map((s) => {
    if (s.raw !== undefined) return s;
    const m: Json = { ...s.message };
    if ('id' in m && typeof m.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number')) m.id = fresh(m.id);
    if (m.method === 'notifications/cancelled' && m.params && typeof m.params === 'object') {
      const p = { ...(m.params as Json) };
      if (p.requestId !== undefined) p.requestId = fresh(p.requestId);
      m.params = p;
    }
    return { ...s, message: m };
  });
}

/** How long the answers to a case's requests sent without waiting may take once its last awaited
 * answer came: a cancelled call rightly never gets one, so this is paid by each such case. */
const UNAWAITED_GRACE_MS = 200;

/** Sends one case on a connection and judges it. */
export async function runCase(ctx: RunnerContext, conn: Conn, c: FuzzCase): Promise<{ trace: CaseTrace; observed: Observed[] }> {
  const from = conn.wire.messages.length;
  const stderrFrom = ctx.server?.stderrTotal ?? 0;
  const results = [];
  // Before the handshake, the case's first request is the fresh server's first: its start is no hang.
  let timeoutMs = c.beforeHandshake ? Math.max(ctx.timeoutMs, START_ALLOWANCE_MS) : ctx.timeoutMs;
  const sent = withConnIds(conn, c);
  for (const step of sent) {
    const r = await conn.wire.send(step, timeoutMs);
    timeoutMs = ctx.timeoutMs;
    results.push(r);
    if (r.gone || r.timedOut) break;
  }
  // The answers to requests sent without waiting (a call about to be cancelled, pipelined
  // requests) come within a short grace, or are judged with the case that drew them at all: one
  // arriving after the case would be no case's (judge.ts), and the findings would depend on timing.
  const unawaited = sent.filter((s) => s.wait === 'none' && typeof s.message.method === 'string' && 'id' in s.message);
  for (const until = performance.now() + UNAWAITED_GRACE_MS; unawaited.length && performance.now() < until; ) {
    if (!conn.wire.alive || unawaited.every((s) => conn.wire.answered(s.message.id))) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  // A panic written to stderr just before the answer arrives in the same turn or the next.
  await pendingReads();
  conn.history.push(c);
  const frames = conn.wire.messages.slice(from);
  const trace: CaseTrace = {
    case: c,
    results,
    frames,
    stderr: ctx.server ? ctx.server.stderrSince(stderrFrom) : stderrOf(frames),
    violations: conn.validator.take(),
    timeoutMs: ctx.timeoutMs,
  };
  return { trace, observed: judgeCase(trace) };
}
