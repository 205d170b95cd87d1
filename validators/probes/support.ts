/** Helpers shared by the probes: picking recorded requests, reading answers, comparing them. */
import { isObject } from '../rule.js';
import { result } from './catalogue.js';
import { callsOf, isSafe, metaOf, paramsOf, unsafeReason, type Json, type Plan, type RecordedCall } from './plan.js';
import type { Conn, Exchange, Opened } from './target.js';
import type { ProbeContext, ProbeResult } from './types.js';
import { jsonSnippet } from '../../lib/json-snippet.js';

export function errorOf(ex: Exchange): { code?: number; message?: string; data?: unknown } | undefined {
  const e = ex.response?.error;
  return isObject(e) ? (e as { code?: number; message?: string; data?: unknown }) : undefined;
}

export function resultOf(ex: Exchange): Json | undefined {
  const r = ex.response?.result;
  return isObject(r) ? r : undefined;
}

/** A recorded request of this era that is safe to re-send; on 2026-07-28 a `server/discover`
 * built from a recorded envelope when nothing recorded is. */
export function safeRequest(plan: Plan, era: 'modern' | 'legacy', prefer: string[] = ['tools/list', 'server/discover']): Json | undefined {
  const calls = callsOf(plan, era);
  for (const m of prefer) {
    const c = calls.find((x) => x.request.method === m);
    if (c) return c.request;
  }
  const safe = calls.find((c) => isSafe(plan, c.request));
  if (safe) return safe.request;
  const meta = calls.map((c) => metaOf(c.request)).find((m) => m);
  if (era === 'modern' && meta) return { jsonrpc: '2.0', id: 0, method: 'server/discover', params: { _meta: meta } };
  return undefined;
}

/** The recorded `_meta` of this era's first request (the envelope to reuse on crafted requests). */
export function recordedMeta(plan: Plan): Json | undefined {
  return plan.modern.map((c) => metaOf(c.request)).find((m) => m);
}

/** Whether the probe may re-send this recorded call; if not, the skipped results to report. */
export function gate(ctx: ProbeContext, call: RecordedCall, probe: string, rules: readonly string[]): ProbeResult[] | undefined {
  if (ctx.options.allowSideEffects || isSafe(ctx.plan, call.request)) return undefined;
  return rules.map((r) => result(probe, r, 'skipped', unsafeReason(ctx.plan, call.request), { sent: call.request }));
}

export function notApplicable(probe: string, rules: readonly string[], reason: string): ProbeResult[] {
  return rules.map((r) => result(probe, r, 'not-applicable', reason));
}

export function inconclusive(
  probe: string,
  rules: readonly string[],
  reason: string,
  extra: { sent?: unknown; received?: unknown } = {},
): ProbeResult[] {
  return rules.map((r) => result(probe, r, 'inconclusive', reason, extra));
}

/** Opens a connection, or turns the failure into inconclusive results. */
export async function openOr(
  ctx: ProbeContext,
  era: 'modern' | 'legacy',
  probe: string,
  rules: readonly string[],
  options: Parameters<ProbeContext['target']['open']>[2] = {},
): Promise<Conn | ProbeResult[]> {
  const opened: Opened = await ctx.target.open(era, ctx.plan.initialize, options);
  if ('conn' in opened) return opened.conn;
  return inconclusive(
    probe,
    rules,
    `could not open a connection: ${opened.error}`,
    opened.exchange ? { sent: opened.exchange.sent, received: ctx.target.describe(opened.exchange) } : {},
  );
}

/** A transport failure or timeout, as inconclusive results (the probe learnt nothing). */
export function transportTrouble(ctx: ProbeContext, ex: Exchange, probe: string, rules: readonly string[]): ProbeResult[] | undefined {
  if (ex.error) return inconclusive(probe, rules, ex.error, { sent: ex.sent, received: ctx.target.describe(ex) });
  if (ex.timedOut)
    return inconclusive(probe, rules, `no answer within ${ctx.options.timeoutMs} ms (--timeout)`, {
      sent: ex.sent,
      received: ctx.target.describe(ex),
    });
  if (!ex.response && ex.status === undefined) return inconclusive(probe, rules, 'no answer', { sent: ex.sent });
  return undefined;
}

/** Sends on a fresh connection and closes it. */
export async function once(
  ctx: ProbeContext,
  era: 'modern' | 'legacy',
  message: Json,
  probe: string,
  rules: readonly string[],
  send: Parameters<Conn['request']>[1] = {},
): Promise<Exchange | ProbeResult[]> {
  const conn = await openOr(ctx, era, probe, rules);
  if (Array.isArray(conn)) return conn;
  try {
    return await conn.request({ ...message, id: conn.nextId() }, send);
  } finally {
    await conn.close();
  }
}

/** Results compared across connections: `_meta` (serverInfo, trace ids) and `ttlMs` left out,
 * object keys sorted, list entries sorted (order is TOOLS-LIST-ORDER, a different rule). */
export function normalise(v: unknown, top = true): unknown {
  if (Array.isArray(v)) {
    const items = v.map((x) => normalise(x, false));
    return top
      ? items
      : items
          .map((x) => JSON.stringify(x))
          .sort()
          .map((x) => JSON.parse(x) as unknown);
  }
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const k of Object.keys(v).sort()) {
    if (k === '_meta' || k === 'ttlMs') continue;
    out[k] = normalise(v[k], false);
  }
  return out;
}

export function sameAnswer(a: Exchange, b: Exchange): boolean {
  const pick = (ex: Exchange) =>
    ex.response && 'result' in ex.response
      ? { result: ex.response.result }
      : { error: isObject(ex.response?.error) ? { code: ex.response.error.code } : ex.response?.error };
  return JSON.stringify(normalise(pick(a))) === JSON.stringify(normalise(pick(b)));
}

export function args(request: Json): Json {
  const a = paramsOf(request).arguments;
  return isObject(a) ? a : {};
}

/** A value as the probes quote it in their texts and reports (`max` characters, then `…`). */
export function short(v: unknown, max = 300): string {
  return jsonSnippet(v, max, { absent: 'undefined', cut: 'after' });
}

/** A 2025-11-25 `initialize` carrying the recorded one's params, for probes that need a request
 * the server must read even when the recording has none they could send (and for the fuzzer's
 * handshake mutations, which have a plan and no probe context). */
export function initializeFor(ctx: Pick<ProbeContext, 'plan'>, id: string | number = 'x'): Json {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'mcp-cassette-probe', version: '0.0.0' },
      ...(ctx.plan.initialize ?? {}),
    },
  };
}
