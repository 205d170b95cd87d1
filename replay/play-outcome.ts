/**
 * The end of one played session (player.ts): what the recorded server asked and the live one no
 * longer does, each request's and each GET's or DELETE's result in recorded order
 * (play-results.ts judges them), and the differences that belong to no request.
 */
import { diffJson } from './diff.js';
import { normalise, patternsFor } from './normalise.js';
import { jsonOf, worst, type PlayOutcome } from './play-model.js';
import { compareNotifications, exchangeResult, progressByToken, toResult } from './play-results.js';
import type { SessionPlay } from './play-state.js';
import type { InteractionResult } from './types.js';
import { weighSchemaEvidence, type ReplayedCall, type SchemaEvidence } from './verdicts/schema-evidence.js';
import { isObject } from './diff.js';

/** What the recorded server asked the client and the live one no longer does (a GET stream's
 * are counted with that stream, exchangeResult). */
function missingServerRequests(p: SessionPlay): void {
  for (const [method, list] of p.rec.answers) {
    // A request the server sends on its own schedule (roots/list some time after initialize)
    // may come while another client request is handled than when recorded: a recorded one not
    // asked for and a live one not expected, with the same method and params, are the same
    // question at another moment, no difference.
    const moved = p.unexpected.filter((u) => u.method === method);
    for (const a of list) {
      if (a.served || p.rec.onStream(a.request)) continue;
      const recordedParams = normalise(jsonOf(a.request).params, patternsFor(p.options.ignore, method));
      const u = moved.find((x) => diffJson(recordedParams, x.params).length === 0);
      if (u) {
        moved.splice(moved.indexOf(u), 1);
        u.target.splice(u.target.indexOf(u.diff), 1);
        continue;
      }
      const handling = a.owner ? ` while it handles ${a.owner.method}${a.owner.name ? ` ${a.owner.name}` : ''}` : '';
      (a.owner?.extra ?? p.sessionDiffs).push({
        verdict: 'warning',
        kind: 'server-request-missing',
        path: '',
        message: `the server no longer sends ${method} to the client${handling} (the recording got it at #${a.request.seq})`,
        recorded: jsonOf(a.request).params,
      });
    }
    // Asked once more than recorded. When the recording asked the very same question (method and
    // params) elsewhere, the client already answers it, and a server that asks again on its own
    // schedule (server-everything asks for the roots from a tool while its first roots/list is
    // still out) is no break; a question the recorded client never got stays breaking.
    for (const u of moved) {
      const same = list.find(
        (a) => diffJson(normalise(jsonOf(a.request).params, patternsFor(p.options.ignore, method)), u.params).length === 0,
      );
      if (!same) continue;
      u.diff.verdict = 'warning';
      u.diff.kind = 'server-request-repeated';
      u.diff.message = `the server sends ${method} to the client once more than recorded${u.handling}: the same request as the recording's at #${same.request.seq}, so replay gave that recorded answer`;
    }
  }
}

/** The session's tool calls and the input schemas both sides listed, to weigh its input
 * narrowings against its calls (verdicts/schema-evidence.ts). */
function schemaEvidence(p: SessionPlay): SchemaEvidence {
  const recorded = new Map<string, unknown>();
  const live = new Map<string, unknown>();
  const calls: ReplayedCall[] = [];
  const take = (into: Map<string, unknown>, tools: unknown) => {
    if (Array.isArray(tools)) for (const t of tools) if (isObject(t) && typeof t.name === 'string') into.set(t.name, t.inputSchema);
  };
  const resultOf = (m: unknown) => (isObject(m) && isObject(m.result) ? m.result : {});
  for (const it of p.rec.interactions) {
    const answer = it.recordedResponse ? jsonOf(it.recordedResponse) : undefined;
    if (it.method === 'tools/list') {
      take(recorded, resultOf(answer).tools);
      take(live, resultOf(it.live).tools);
      if (it.page) take(live, p.options.memory.live.get(it.page.listing)?.items);
    } else if (it.method === 'tools/call' && it.name !== undefined) {
      const params = jsonOf(it.recorded).params;
      const failed = isObject(answer) && (isObject(answer.error) || resultOf(answer).isError === true);
      calls.push({
        seq: it.recorded.seq,
        tool: it.name,
        arguments: isObject(params) ? params.arguments : undefined,
        failedWhenRecorded: failed,
      });
    }
  }
  return { calls, recorded, live };
}

/** The session's results: every request and client exchange in recorded order, then the
 * session-level differences; a failure with the seq of the message whose answers it awaited. */
export function sessionOutcome(p: SessionPlay): PlayOutcome {
  const { rec, options } = p;
  const context = { ...(rec.session.protocol.revision !== undefined ? { revision: rec.session.protocol.revision } : {}) };
  const cut = Boolean(p.failure || p.refused);
  if (!cut) missingServerRequests(p);
  const recordedProgress = progressByToken(rec.recordedNotifications);
  const liveProgress = progressByToken(p.liveNotifications);
  const results: Array<{ t: number; r: InteractionResult }> = rec.interactions.map((it) => ({
    t: rec.exchangeOf(it.recorded)?.t ?? it.recorded.t,
    r: toResult(it, recordedProgress, liveProgress, options, context),
  }));
  const exchangeResults = rec.steps.map((x) => ({
    t: x.exchange.t,
    r: exchangeResult(x, cut, options, rec.recordedRequestCount, p.liveRequestCount),
  }));
  // Each GET or DELETE takes its place among the interactions by the time it was sent.
  for (const e of exchangeResults) {
    const at = results.findIndex((r) => r.t > e.t);
    results.splice(at === -1 ? results.length : at, 0, e);
  }
  const out = results.map((r) => r.r);
  weighSchemaEvidence(out, schemaEvidence(p));
  // A session cut short (a failure, or a refused revision) has no comparable notification stream.
  const notes = cut ? [] : compareNotifications(rec.recordedNotifications, p.liveNotifications, options);
  const sessionLevel = [...p.sessionDiffs, ...notes];
  if (sessionLevel.length) {
    out.push({ seq: 0, method: 'notifications', outcome: worst(sessionLevel)!, differences: sessionLevel });
  }
  return {
    interactions: out,
    ...(p.failure ? { error: { ...p.failure, ...(p.waitingOn ? { seq: p.waitingOn.seq } : {}) } } : {}),
    sent: p.sent,
    recordedIds: p.recordedIds,
  };
}
