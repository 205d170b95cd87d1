/**
 * What the live server sends while the player plays a session (player.ts): answers are matched to
 * the requests by our own ids and teach later requests their live requestState and cursors,
 * notifications are kept (per listen stream where they came on one), and server→client requests
 * get the recorded client's answer.
 */
import { diffJson, isObject } from './diff.js';
import { normalise, patternsFor, pointer } from './normalise.js';
import { takeLivePage } from './pagination.js';
import { jsonOf, key, liveListing, matchServerRequest, type ExchangeStep, type Interaction, type Json } from './play-model.js';
import { poke, send, wakeOnFailure, type SessionPlay } from './play-state.js';
import type { Difference } from './types.js';
import { isRevisionRefused } from './verdicts/index.js';

/** Hooks the session's handlers to the live connection. */
export function listenToLive(p: SessionPlay): void {
  const { conn } = p;
  conn.onFailure = (err) => {
    p.failure ??= err;
    wakeOnFailure(p);
  };
  conn.onStatus = (recorded, recordedStatus, liveStatus) => {
    const d: Difference = {
      verdict: recordedStatus < 400 && liveStatus >= 400 ? 'breaking' : 'warning',
      kind: 'http-status-changed',
      path: '',
      message: `HTTP status ${recordedStatus} became ${liveStatus}`,
      recorded: recordedStatus,
      live: liveStatus,
    };
    (p.rec.byRecorded.get(recorded)?.extra ?? p.sessionDiffs).push(d);
  };
  conn.onMessage = (msg, via) => {
    if (!isObject(msg)) return;
    const stream = via?.stream !== undefined ? p.rec.streams.get(via.stream) : undefined;
    if (typeof msg.method === 'string' && 'id' in msg) {
      stream?.live.push(msg);
      answerServerRequest(p, msg, stream);
    } else if (typeof msg.method === 'string') {
      (stream && msg.method !== 'notifications/progress' ? stream.live : p.liveNotifications).push(msg);
    } else if ('id' in msg) {
      const it = p.byLiveId.get(key(msg.id));
      if (!it || it.live) return;
      it.live = msg;
      p.awaited.delete(it);
      it.doneAt = performance.now();
      if (!p.refused && it.recordedResponse && isRevisionRefused(it.method, jsonOf(it.recordedResponse), msg)) p.refused = it;
      learn(p, it);
      for (const w of it.waiters) w();
      it.waiters = [];
    }
    poke(p);
  };
}

/** Remember what later requests must carry instead of their recorded values. */
function learn(p: SessionPlay, it: Interaction): void {
  const { memory } = p.options;
  if (it.page && it.live) takeLivePage(liveListing(memory, it.page.listing), it.page.listing.field, it.live);
  const rec = it.recordedResponse ? jsonOf(it.recordedResponse).result : undefined;
  const live = it.live?.result;
  if (!isObject(rec) || !isObject(live)) return;
  if (rec.requestState !== undefined && live.requestState !== undefined) memory.requestState.set(key(rec.requestState), live.requestState);
  if (rec.nextCursor !== undefined && live.nextCursor !== undefined) memory.cursor.set(key(rec.nextCursor), live.nextCursor);
}

/** 2025-era server→client requests get the recorded client answer to the recorded request of
 * that method that belongs to the same client request (matchServerRequest), whichever stream
 * they come on: a client answers them wherever they arrive. */
function answerServerRequest(p: SessionPlay, msg: Json, stream: ExchangeStep | undefined): void {
  const { answers } = p.rec;
  const method = String(msg.method);
  p.liveRequestCount.set(method, (p.liveRequestCount.get(method) ?? 0) + 1);
  // The newest request still waiting for its live answer is the one the server is handling.
  let owner: Interaction | undefined;
  for (const it of p.awaited) owner = it;
  const entry = matchServerRequest(answers.get(method) ?? [], owner);
  const target = stream?.extra ?? owner?.extra ?? p.lastSent?.extra ?? p.sessionDiffs;
  if (!entry) {
    // The recorded client answered this method elsewhere: it would answer here too, so the
    // server gets that answer (not an error that would fail the request it is handling).
    const borrowed = answers.get(method)?.[0];
    const handling = owner ? ` while it handles ${owner.method}${owner.name ? ` ${owner.name}` : ''}` : '';
    const answered = borrowed ? `with the recorded answer to the ${method} at #${borrowed.request.seq}` : 'with an error';
    const diff: Difference = {
      verdict: 'breaking',
      kind: 'unexpected-server-request',
      path: '',
      message: `the server now sends ${method} to the client${handling}, which the recorded session never got there (replay answered it ${answered})`,
      live: msg.params,
    };
    target.push(diff);
    p.unexpected.push({ method, params: normalise(msg.params, patternsFor(p.options.ignore, method)), diff, target, handling });
    if (borrowed) {
      send(p, { ...jsonOf(borrowed.answer), id: msg.id }, borrowed.answer);
    } else {
      const error = { code: -32601, message: `mcp-cassette replay: the recording has no client answer to ${method}` };
      send(p, { jsonrpc: '2.0', id: msg.id, error }, p.lastSent?.recorded ?? p.rec.frames[0]!, true);
    }
    return;
  }
  entry.served = true;
  const ignore = patternsFor(p.options.ignore, method);
  for (const c of diffJson(normalise(jsonOf(entry.request).params, ignore), normalise(msg.params, ignore), ['params'])) {
    const path = pointer(c.path);
    const message = `the server's ${method} request: ${path} ${c.type}`;
    target.push({ verdict: 'warning', kind: 'server-request-changed', path, message, recorded: c.recorded, live: c.live });
  }
  send(p, { ...jsonOf(entry.answer), id: msg.id }, entry.answer);
}
