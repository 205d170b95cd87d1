/**
 * Plays the client's steps of one session (player.ts) in recorded order: each message after the
 * live answers the client had seen when it sent it, with our own JSON-RPC id, the live
 * requestState of an MRTR retry and the live cursor of a next page; each GET (listen stream)
 * and DELETE (session end) at its recorded place, its status judged.
 */
import type { RecordedMessage } from '../lib/message.js';
import { isObject } from './diff.js';
import { MAX_EXTRA_PAGES } from './pagination.js';
import { jsonOf, key, liveListing, type Interaction } from './play-model.js';
import { hasHeader, type Step } from './play-recording.js';
import { poke, send, type SessionPlay } from './play-state.js';
import { catchUp, exchangeAnswer, waitFor, waitForAnswers, waitUntil, waitUntilSettled } from './play-waits.js';
import { judgeExchangeStatus } from './verdicts/http-status.js';

/** Plays the plan until its end, a failure, or the server refusing the recorded revision. */
export async function playSteps(p: SessionPlay, plan: readonly Step[]): Promise<void> {
  for (const step of plan) {
    if (p.failure || p.refused) break;
    if (step.kind === 'message') await playMessage(p, step.m);
    else await playExchange(p, step);
  }
}

/** A GET opened or closed, or a DELETE sent, at its recorded place. */
async function playExchange(p: SessionPlay, step: Exclude<Step, { kind: 'message' }>): Promise<void> {
  const { x } = step;
  const { conn } = p;
  await waitForAnswers(p, (r: RecordedMessage) => r.t < step.t);
  if (p.failure) return;
  // The POSTs whose exchange had ended (e.g. the 202 to notifications/initialized) end first:
  // a server may send on a listen stream what it would otherwise have dropped.
  const ended = p.posts.filter((q) => q.endT < step.t).map((q) => q.done);
  if (ended.length) await waitUntilSettled(p, ended, p.options.timeoutMs);
  await catchUp(p, { t: step.t });
  if (p.failure) return;
  if (step.kind === 'close') {
    conn.closeStream!(x.exchange);
    return;
  }
  if (step.kind === 'open') {
    // A stream the server had ended before this one was opened ends first (a server may
    // allow one listen stream per session at a time).
    for (const s of p.rec.streams.values()) {
      const endedBefore = s.exchange.outcome !== 'client-aborted' && s.exchange.endT !== undefined && s.exchange.endT < step.t;
      if (s.open && endedBefore) await waitUntil(p, () => !s.open, p.grace);
    }
  }
  if (step.kind === 'delete') await fetchRemainingPages(p);
  if (p.failure) return;
  if (step.kind === 'delete' && hasHeader(x.exchange, 'mcp-session-id') && conn.hasSession === false) {
    // A client sends no DELETE when the server gave it no session id.
    x.skipped = 'not sent: the live server gave this session no Mcp-Session-Id, so there is no session to end';
    return;
  }
  x.sentAt = performance.now();
  const answer = await exchangeAnswer(p, x, step.kind === 'open' ? conn.openStream!(x.exchange) : conn.endSession!(x.exchange));
  x.doneAt = performance.now();
  if (p.failure) return;
  if (!answer) return;
  x.answer = answer;
  if (x.exchange.status !== undefined) x.extra.push(...judgeExchangeStatus(x.method, x.exchange.status, answer.status));
  if (step.kind === 'open' && answer.ended) {
    x.open = true;
    void answer.ended.then(() => {
      x.open = false;
      poke(p);
    });
  }
}

/** A client request or notification, once the answers it followed in the recording came live. */
async function playMessage(p: SessionPlay, m: RecordedMessage): Promise<void> {
  await waitForAnswers(p, (r) => r.seq < m.seq);
  if (p.failure || p.refused) return;
  await catchUp(p, { seq: m.seq });
  if (p.failure || p.refused) return;
  const j = structuredClone(jsonOf(m));
  const params = isObject(j.params) ? j.params : undefined;
  if (m.kind !== 'request') {
    if (j.method === 'notifications/cancelled' && params && params.requestId !== undefined) {
      const target = p.rec.byRecordedId.get(key(params.requestId))?.find((i) => i.liveId !== undefined);
      if (target) params.requestId = target.liveId;
    }
    send(p, j, m);
    return;
  }
  const { memory } = p.options;
  const it = p.rec.byRecorded.get(m)!;
  if (params && params.requestState !== undefined) {
    const live = memory.requestState.get(key(params.requestState));
    if (live === undefined) {
      it.skipped = 'an MRTR retry, but the live server did not ask for input, so there is no live requestState to send';
      return;
    }
    params.requestState = live;
  }
  const listing = it.page && it.page.index > 0 ? liveListing(memory, it.page.listing) : undefined;
  if (listing && !listing.broken) {
    // Follow the live server's cursors: a page it no longer has is not asked for.
    if (listing.next === undefined) {
      it.merged = true;
      return;
    }
    params!.cursor = listing.next;
  } else if (params && params.cursor !== undefined) {
    const live = memory.cursor.get(key(params.cursor));
    if (live !== undefined) params.cursor = live;
  }
  it.liveId = p.options.verbatim ? (j.id as string | number | null) : memory.nextId++;
  p.recordedIds.set(key(it.liveId), j.id);
  j.id = it.liveId;
  p.byLiveId.set(key(it.liveId), it);
  it.sentAt = performance.now();
  p.lastSent = it;
  if (it.recordedResponse || it.recorded.seq === p.options.awaitSeq) p.awaited.add(it);
  send(p, j, m);
}

/** Where the live server lists more than the recording read, asks for the rest of each listing
 * whose last recorded page is done, so the whole lists can be compared (pagination.ts). The
 * requests carry ids of their own (`mcp-cassette-page-N`), never a recorded client's. */
export async function fetchRemainingPages(p: SessionPlay): Promise<void> {
  for (const it of p.rec.interactions) {
    if (!it.page?.last || (!it.live && !it.merged) || it.drained) continue;
    it.drained = true;
    const state = liveListing(p.options.memory, it.page.listing);
    for (let fetched = 0; !state.broken && state.next !== undefined && fetched < MAX_EXTRA_PAGES && !p.failure; fetched++) {
      const json = structuredClone(jsonOf(it.recorded));
      json.params = { ...(isObject(json.params) ? json.params : {}), cursor: state.next };
      json.id = `mcp-cassette-page-${++p.extraPages}`;
      const extra: Interaction = {
        recorded: it.recorded,
        index: it.index,
        method: it.method,
        page: it.page,
        extra: [],
        waiters: [],
        sentAt: performance.now(),
      };
      p.byLiveId.set(key(json.id), extra);
      send(p, json, it.recorded);
      await waitFor(p, extra);
    }
  }
}
