/**
 * Plays the client side of one recorded session against a live connection and compares every
 * answer. Requests are sent in recorded order; before each client message the player waits for
 * the live answers to every request whose recorded answer came before that message (what the
 * client had seen when it sent it), so dependent steps (initialize → initialized, an MRTR retry,
 * the next page) run in the same causal order as recorded while independent requests may overlap
 * as they did. JSON-RPC ids are our own on the wire and never compared.
 */
import type { HttpExchange, RecordedSession } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import { diffJson, isObject } from './diff.js';
import type { LiveConnection } from './live/connection.js';
import { normalise, pointer, type IgnorePattern } from './normalise.js';
import { carryRedactions } from './redactions.js';
import { VERDICT_RANK, type Difference, type InteractionResult, type ReplayRunError, type Verdict } from './types.js';
import { isRevisionRefused, judgeResponse } from './verdicts.js';

type Json = Record<string, unknown>;

/** Values learned from the live server that later recorded requests must carry instead of the
 * recorded ones. Shared by every session of a cassette: over stateless HTTP an MRTR retry or the
 * next page is a session of its own. */
export interface ReplayMemory {
  /** Recorded `requestState` (JSON text) → the one the live server returned. */
  requestState: Map<string, unknown>;
  /** Recorded `nextCursor` (JSON text) → the live one. */
  cursor: Map<string, unknown>;
}

export function newMemory(): ReplayMemory {
  return { requestState: new Map(), cursor: new Map() };
}

export interface PlayOptions {
  timeoutMs: number;
  ignore: readonly IgnorePattern[];
  memory: ReplayMemory;
  /** How long to keep listening for notifications after the last answer. */
  settleMs?: number;
}

/** One client message as replay sent it (with its live id, requestState and cursor). */
export interface SentMessage {
  /** The recorded message it replays (for a synthetic answer: the request it followed). */
  recorded: RecordedMessage;
  json: Json;
  /** Replay's own -32601 answer to a server request the recording never saw. */
  synthetic?: true;
}

export interface PlayOutcome {
  interactions: InteractionResult[];
  error?: Omit<ReplayRunError, 'session'>;
  /** Every client message in the order it was sent: what `--update` stores on the client side. */
  sent: SentMessage[];
  /** Live JSON-RPC id (as JSON text) of each replayed request → its recorded id. */
  recordedIds: Map<string, unknown>;
}

interface Interaction {
  recorded: RecordedMessage;
  recordedResponse?: RecordedMessage;
  method: string;
  name?: string;
  liveId?: number;
  sentAt?: number;
  doneAt?: number;
  live?: Json;
  skipped?: string;
  extra: Difference[];
  waiters: Array<() => void>;
  /** Why it was not sent (the session stopped before it). */
  notSent?: string;
}

const key = (v: unknown) => JSON.stringify(v);

function jsonOf(m: RecordedMessage): Json {
  return m.json as Json;
}

function nameOf(params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  if (typeof params.name === 'string') return params.name;
  if (typeof params.uri === 'string') return params.uri;
  if (isObject(params.ref) && typeof params.ref.name === 'string') return params.ref.name;
  return undefined;
}

function worst(diffs: readonly Difference[]): Verdict | undefined {
  let w: Verdict | undefined;
  for (const d of diffs) if (!w || VERDICT_RANK[d.verdict] > VERDICT_RANK[w]) w = d.verdict;
  return w;
}

export async function playSession(session: RecordedSession, conn: LiveConnection, options: PlayOptions): Promise<PlayOutcome> {
  const frames = session.messages.filter((m) => m.json !== undefined && m.channel !== 'stderr' && ['request', 'notification', 'response', 'error'].includes(m.kind));
  const exchanges = new Map<number, HttpExchange>((session.exchanges ?? []).map((e) => [e.id, e]));
  const exchangeOf = (m: RecordedMessage) => (m.http ? exchanges.get(m.http.exchange) : undefined);

  // Pair the recording: client requests with their answers, server requests with the client's.
  const openClient = new Map<string, Interaction>();
  const openServer = new Map<string, RecordedMessage>();
  const interactions: Interaction[] = [];
  const byRecorded = new Map<RecordedMessage, Interaction>();
  const answers = new Map<string, Array<{ request: RecordedMessage; answer: RecordedMessage }>>();
  const recordedNotifications: Json[] = [];
  for (const m of frames) {
    const j = jsonOf(m);
    if (m.direction === 'client-to-server') {
      if (m.kind === 'request') {
        const it: Interaction = { recorded: m, method: String(j.method), name: nameOf(j.params), extra: [], waiters: [] };
        interactions.push(it);
        byRecorded.set(m, it);
        openClient.set(key(j.id), it);
      } else if (m.kind === 'response' || m.kind === 'error') {
        const req = openServer.get(key(j.id));
        if (req) {
          openServer.delete(key(j.id));
          const method = String(jsonOf(req).method);
          answers.set(method, [...(answers.get(method) ?? []), { request: req, answer: m }]);
        }
      }
    } else if (m.kind === 'request') {
      openServer.set(key(j.id), m);
    } else if (m.kind === 'notification') {
      recordedNotifications.push(j);
    } else {
      const it = openClient.get(key(j.id));
      if (it) {
        openClient.delete(key(j.id));
        it.recordedResponse = m;
      }
    }
  }

  // Live side.
  let nextId = 1;
  const byLiveId = new Map<string, Interaction>();
  const liveNotifications: Json[] = [];
  const sessionDiffs: Difference[] = [];
  const served = new Map<string, number>();
  let lastSent: Interaction | undefined;
  const sent: SentMessage[] = [];
  const recordedIds = new Map<string, unknown>();
  /** The interaction whose live answer said the server no longer speaks the recorded revision. */
  let refused: Interaction | undefined;
  let failure: Omit<ReplayRunError, 'session' | 'seq'> | undefined;
  /** `synthetic`: an answer of replay's own (no recorded exchange to take headers from). */
  const send = (json: Json, recorded: RecordedMessage, synthetic = false): void => {
    sent.push({ recorded, json, ...(synthetic ? { synthetic: true as const } : {}) });
    conn.send(json, recorded, synthetic ? undefined : exchangeOf(recorded));
  };
  const failureWaiters = new Set<() => void>();

  conn.onFailure = (err) => {
    failure ??= err;
    for (const w of failureWaiters) w();
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
    (byRecorded.get(recorded)?.extra ?? sessionDiffs).push(d);
  };
  conn.onMessage = (msg) => {
    if (!isObject(msg)) return;
    if (typeof msg.method === 'string' && 'id' in msg) {
      answerServerRequest(msg);
    } else if (typeof msg.method === 'string') {
      liveNotifications.push(msg);
    } else if ('id' in msg) {
      const it = byLiveId.get(key(msg.id));
      if (!it || it.live) return;
      it.live = msg;
      it.doneAt = performance.now();
      if (!refused && it.recordedResponse && isRevisionRefused(it.method, it.recordedResponse.json, msg)) refused = it;
      learn(it);
      for (const w of it.waiters) w();
      it.waiters = [];
    }
  };

  /** Remember what later requests must carry instead of their recorded values. */
  const learn = (it: Interaction): void => {
    const rec = it.recordedResponse ? jsonOf(it.recordedResponse).result : undefined;
    const live = it.live?.result;
    if (!isObject(rec) || !isObject(live)) return;
    if (rec.requestState !== undefined && live.requestState !== undefined) options.memory.requestState.set(key(rec.requestState), live.requestState);
    if (rec.nextCursor !== undefined && live.nextCursor !== undefined) options.memory.cursor.set(key(rec.nextCursor), live.nextCursor);
  };

  /** 2025-era server→client requests get the recorded client answer, matched by method and order. */
  const answerServerRequest = (msg: Json): void => {
    const method = String(msg.method);
    const n = served.get(method) ?? 0;
    const entry = answers.get(method)?.[n];
    const target = lastSent?.extra ?? sessionDiffs;
    if (!entry) {
      target.push({ verdict: 'breaking', kind: 'unexpected-server-request', path: '', message: `the server now sends ${method} to the client, which the recorded session never got`, live: msg.params });
      send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `mcp-cassette replay: the recording has no client answer to ${method}` } }, lastSent?.recorded ?? frames[0]!, true);
      return;
    }
    served.set(method, n + 1);
    for (const c of diffJson(normalise(jsonOf(entry.request).params, options.ignore), normalise(msg.params, options.ignore), ['params'])) {
      target.push({ verdict: 'warning', kind: 'server-request-changed', path: pointer(c.path), message: `the server's ${method} request: ${pointer(c.path)} ${c.type}`, recorded: c.recorded, live: c.live });
    }
    send({ ...jsonOf(entry.answer), id: msg.id }, entry.answer);
  };

  const waitFor = (it: Interaction): Promise<void> => {
    if (it.live || failure) return Promise.resolve();
    return new Promise((resolve) => {
      const remaining = Math.max(0, (it.sentAt ?? performance.now()) + options.timeoutMs - performance.now());
      const done = () => {
        clearTimeout(timer);
        failureWaiters.delete(done);
        resolve();
      };
      const timer = setTimeout(() => {
        failure ??= {
          code: 'MCPC_REPLAY_TIMEOUT',
          message: `the server did not answer ${it.method}${it.name ? ` (${it.name})` : ''} within ${options.timeoutMs} ms; raise --timeout if it is only slow`,
        };
        done();
      }, remaining);
      failureWaiters.add(done);
      it.waiters.push(done);
    });
  };

  let waitingOn: RecordedMessage | undefined;
  for (const m of frames) {
    if (failure || refused) break;
    if (m.direction !== 'client-to-server' || (m.kind !== 'request' && m.kind !== 'notification')) continue;
    for (const it of interactions) {
      if (it.liveId !== undefined && !it.live && it.recordedResponse && it.recordedResponse.seq < m.seq) {
        waitingOn = it.recorded;
        await waitFor(it);
        if (failure) break;
      }
    }
    if (failure || refused) break;
    const j = structuredClone(jsonOf(m));
    const params = isObject(j.params) ? j.params : undefined;
    if (m.kind === 'request') {
      const it = byRecorded.get(m)!;
      if (params && params.requestState !== undefined) {
        const live = options.memory.requestState.get(key(params.requestState));
        if (live === undefined) {
          it.skipped = 'an MRTR retry, but the live server did not ask for input, so there is no live requestState to send';
          continue;
        }
        params.requestState = live;
      }
      if (params && params.cursor !== undefined) {
        const live = options.memory.cursor.get(key(params.cursor));
        if (live !== undefined) params.cursor = live;
      }
      it.liveId = nextId++;
      recordedIds.set(key(it.liveId), j.id);
      j.id = it.liveId;
      byLiveId.set(key(it.liveId), it);
      it.sentAt = performance.now();
      lastSent = it;
      send(j, m);
    } else {
      if (j.method === 'notifications/cancelled' && params && params.requestId !== undefined) {
        const target = interactions.find((i) => key(jsonOf(i.recorded).id) === key(params.requestId) && i.liveId !== undefined);
        if (target) params.requestId = target.liveId;
      }
      send(j, m);
    }
  }
  if (refused) {
    const note = `not replayed: the server refused the recorded protocol revision at #${refused.recorded.seq} ${refused.method}`;
    for (const it of interactions) if (it.liveId === undefined && !it.skipped) it.notSent = note;
  }
  if (!failure) {
    for (const it of interactions) {
      if (it.liveId !== undefined && !it.live && it.recordedResponse) {
        waitingOn = it.recorded;
        await waitFor(it);
        if (failure) break;
      }
    }
  }
  if (!failure) await new Promise((r) => setTimeout(r, options.settleMs ?? 50));

  const context = { ...(session.protocol.revision !== undefined ? { revision: session.protocol.revision } : {}) };
  const results = interactions.map((it) => toResult(it, recordedNotifications, liveNotifications, options, context));
  // A session cut short (a failure, or a refused revision) has no comparable notification stream.
  const notes = failure || refused ? [] : compareNotifications(recordedNotifications, liveNotifications, options);
  const sessionLevel = [...sessionDiffs, ...notes];
  if (sessionLevel.length) {
    results.push({ seq: 0, method: 'notifications', outcome: worst(sessionLevel)!, differences: sessionLevel });
  }
  return {
    interactions: results,
    ...(failure ? { error: { ...failure, ...(waitingOn ? { seq: waitingOn.seq } : {}) } } : {}),
    sent,
    recordedIds,
  };
}

function progressOf(list: Json[], token: unknown): Json[] {
  return list.filter((n) => n.method === 'notifications/progress' && isObject(n.params) && key(n.params.progressToken) === key(token));
}

function toResult(it: Interaction, recordedN: Json[], liveN: Json[], options: PlayOptions, context: { revision?: string }): InteractionResult {
  const base = { seq: it.recorded.seq, method: it.method, ...(it.name !== undefined ? { name: it.name } : {}) };
  if (it.skipped) return { ...base, outcome: 'skipped', differences: [], note: it.skipped };
  if (it.liveId === undefined) return { ...base, outcome: 'skipped', differences: [], note: it.notSent ?? 'not sent: the replay stopped before it' };
  if (!it.recordedResponse) return { ...base, outcome: 'skipped', differences: it.extra, note: 'the recording has no answer to compare with (the session ended or the request was cancelled)' };
  if (!it.live) return { ...base, outcome: 'unanswered', differences: [], note: 'the live server did not answer' };
  // What the cassette holds redacted is masked on the live side too: it cannot be compared.
  const live = carryRedactions(it.recordedResponse.json, it.live);
  const differences = [
    ...judgeResponse(it.method, normalise(it.recordedResponse.json, options.ignore), normalise(live, options.ignore), context),
    ...it.extra,
  ];
  const params = jsonOf(it.recorded).params;
  const token = isObject(params) && isObject(params._meta) ? params._meta.progressToken : undefined;
  if (token !== undefined) {
    const recorded = progressOf(recordedN, token);
    const rec = recorded.map((n) => normalise(n.params, options.ignore));
    const lp = progressOf(liveN, token).map((n, i) => normalise(carryRedactions(recorded[i]?.params, n.params), options.ignore));
    const changes = diffJson(rec, lp, ['progress']);
    if (changes.length) {
      differences.push({ verdict: 'warning', kind: 'progress-changed', path: '', message: `progress notifications changed: ${rec.length} recorded, ${lp.length} live${changes.length && rec.length === lp.length ? ' (values differ)' : ''}`, recorded: rec, live: lp });
    }
  }
  const outcome = worst(differences) ?? 'same';
  return { ...base, outcome, differences, durationMs: Math.round(((it.doneAt ?? 0) - (it.sentAt ?? 0)) * 10) / 10 };
}

/** Notifications other than progress (log messages, list_changed, resource updates), compared per
 * method as a sequence: their timing relative to answers is not deterministic, their content is. */
function compareNotifications(recorded: Json[], live: Json[], options: PlayOptions): Difference[] {
  const group = (list: Json[]) => {
    const m = new Map<string, unknown[]>();
    for (const n of list) {
      if (n.method === 'notifications/progress') continue;
      m.set(String(n.method), [...(m.get(String(n.method)) ?? []), n.params ?? null]);
    }
    return m;
  };
  const rawR = group(recorded);
  const rawL = group(live);
  const r = new Map([...rawR].map(([method, list]) => [method, list.map((p) => normalise(p, options.ignore))]));
  const l = new Map([...rawL].map(([method, list]) => [method, list.map((p, i) => normalise(carryRedactions(rawR.get(method)?.[i], p), options.ignore))]));
  const out: Difference[] = [];
  for (const method of new Set([...r.keys(), ...l.keys()])) {
    const rs = r.get(method) ?? [];
    const ls = l.get(method) ?? [];
    const changes = diffJson(rs, ls, [method]);
    if (!changes.length) continue;
    out.push({
      verdict: 'warning',
      kind: 'notifications-changed',
      path: '',
      message: rs.length === ls.length ? `${method}: content changed` : `${method}: ${rs.length} recorded, ${ls.length} live`,
      recorded: rs,
      live: ls,
    });
  }
  return out;
}
