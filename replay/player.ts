/**
 * Plays the client side of one recorded session against a live connection and compares every
 * answer. Requests are sent in recorded order; before each client message the player waits for
 * the live answers to every request whose recorded answer came before that message (what the
 * client had seen when it sent it), so dependent steps (initialize → initialized, an MRTR retry,
 * the next page) run in the same causal order as recorded while independent requests may overlap
 * as they did. JSON-RPC ids are our own on the wire and never compared.
 *
 * Over Streamable HTTP the client's own GET (the listen stream of a 2025 sessionful server) and
 * DELETE (the session end) are steps too, placed among the messages by the time the client sent
 * them: the GET is opened with the live session id and closed where the client closed it, what
 * arrives on it is compared per stream, and the DELETE's status is judged (verdicts.ts).
 */
import type { HttpExchange, RecordedSession } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import { diffJson, isObject } from './diff.js';
import type { ExchangeAnswer, LiveConnection } from './live/connection.js';
import { normalise, patternsFor, pointer } from './normalise.js';
import { MAX_EXTRA_PAGES, takeLivePage } from './pagination.js';
import { jsonOf, key, liveListing, matchServerRequest, nameOf, pushTo, worst, type ExchangeStep, type Interaction, type Json, type PlayOptions, type PlayOutcome, type SentMessage, type ServerAsk } from './play-model.js';
import { compareNotifications, exchangeResult, progressByToken, toResult } from './play-results.js';
import type { Difference, InteractionResult, ReplayRunError } from './types.js';
import { isRevisionRefused, judgeExchangeStatus } from './verdicts.js';

type Step =
  | { t: number; kind: 'message'; m: RecordedMessage }
  | { t: number; kind: 'open' | 'close' | 'delete'; x: ExchangeStep };

/** A recorded point: before the message with this seq, before this time, or the session's end. */
type Point = { seq: number } | { t: number } | 'end';

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

const hasHeader = (x: HttpExchange, name: string) => Object.keys(x.requestHeaders).some((h) => h.toLowerCase() === name);

export async function playSession(session: RecordedSession, conn: LiveConnection, options: PlayOptions): Promise<PlayOutcome> {
  const frames = session.messages.filter((m) => m.json !== undefined && m.channel !== 'stderr' && ['request', 'notification', 'response', 'error'].includes(m.kind));
  const exchanges = new Map<number, HttpExchange>((session.exchanges ?? []).map((e) => [e.id, e]));
  const exchangeOf = (m: RecordedMessage) => (m.http ? exchanges.get(m.http.exchange) : undefined);
  const grace = options.streamGraceMs ?? Math.min(options.timeoutMs, 2000);

  // The client's GET and DELETE exchanges, when the live connection can play them (HTTP).
  const steps: ExchangeStep[] = [];
  const streams = new Map<number, ExchangeStep>();
  const sentAnything = frames.some((m) => m.direction === 'client-to-server');
  if (conn.openStream && conn.endSession) {
    for (const x of session.exchanges ?? []) {
      if (!x.mcp || x.outcome === 'refused' || (x.method !== 'GET' && x.method !== 'DELETE')) continue;
      const step: ExchangeStep = { exchange: x, method: x.method, recorded: [], live: [], seqs: [], ts: [], open: false, late: false, extra: [] };
      if (x.method === 'GET') {
        streams.set(x.id, step);
        if (hasHeader(x, 'last-event-id')) step.skipped = 'a resumption GET (Last-Event-ID) is not replayed: the live server\'s event ids are not the recorded ones';
        else if (hasHeader(x, 'mcp-session-id') && !sentAnything) step.skipped = 'the recorded GET listened on a session this recording did not open, so there is no live session to listen on';
      } else if (hasHeader(x, 'mcp-session-id') && !sentAnything) {
        step.skipped = 'the recorded DELETE ended a session this recording did not open';
      }
      if (x.status === undefined && !step.skipped) step.skipped = `the recording has no answer to this ${x.method} to compare with (${x.outcome})`;
      steps.push(step);
    }
  }
  /** Messages the recording got on a listen stream are compared per stream (progress excepted:
   * it belongs to its request wherever it travels). */
  const onStream = (m: RecordedMessage) => (m.http && m.direction === 'server-to-client' && typeof jsonOf(m).method === 'string' && jsonOf(m).method !== 'notifications/progress' ? streams.get(m.http.exchange) : undefined);

  // Pair the recording: client requests with their answers, server requests with the client's.
  const openClient = new Map<string, Interaction>();
  const interactions: Interaction[] = [];
  const byRecorded = new Map<RecordedMessage, Interaction>();
  /** Recorded JSON-RPC id (as JSON text) → the requests that had it, in order. */
  const byRecordedId = new Map<string, Interaction[]>();
  /** The recorded server→client requests the client answered, by method, in order. */
  const answers = new Map<string, ServerAsk[]>();
  /** The recorded server→client requests not yet answered by the client, by id, with their owner. */
  const asked = new Map<string, { request: RecordedMessage; owner?: Interaction }>();
  /** HTTP: the client request each POST exchange carried. */
  const byExchange = new Map<number, Interaction>();
  const recordedNotifications: Json[] = [];
  const recordedRequestCount = new Map<string, number>();
  for (const m of frames) {
    const j = jsonOf(m);
    if (m.direction === 'client-to-server') {
      if (m.kind === 'request') {
        const it: Interaction = { recorded: m, index: interactions.length + 1, method: String(j.method), name: nameOf(j.params), extra: [], waiters: [] };
        const page = options.memory.listings.get(m);
        if (page) it.page = page;
        interactions.push(it);
        byRecorded.set(m, it);
        pushTo(byRecordedId, key(j.id), it);
        openClient.set(key(j.id), it);
        if (m.http) byExchange.set(m.http.exchange, it);
      } else if (m.kind === 'response' || m.kind === 'error') {
        const ask = asked.get(key(j.id));
        if (ask) {
          asked.delete(key(j.id));
          pushTo(answers, String(jsonOf(ask.request).method), { ...ask, answer: m });
        }
      }
      continue;
    }
    const stream = onStream(m);
    if (stream) {
      stream.recorded.push(m);
      stream.seqs.push(m.seq);
      stream.ts.push(m.t);
    }
    if (m.kind === 'request') {
      // It belongs to the client request whose POST stream it came on, or else to the newest one
      // still waiting for its answer (over stdio a server asks while it handles a request).
      const owner = (m.http ? byExchange.get(m.http.exchange) : undefined) ?? [...openClient.values()].at(-1);
      asked.set(key(j.id), { request: m, ...(owner ? { owner } : {}) });
      recordedRequestCount.set(String(j.method), (recordedRequestCount.get(String(j.method)) ?? 0) + 1);
    } else if (m.kind === 'notification') {
      if (!onStream(m)) recordedNotifications.push(j);
    } else {
      const it = openClient.get(key(j.id));
      if (it) {
        openClient.delete(key(j.id));
        it.recordedResponse = m;
      }
    }
  }

  for (const s of streams.values()) {
    s.seqs.sort((a, b) => a - b);
    s.ts.sort((a, b) => a - b);
  }

  // Live side.
  let nextId = 1;
  const byLiveId = new Map<string, Interaction>();
  const liveNotifications: Json[] = [];
  const sessionDiffs: Difference[] = [];
  const liveRequestCount = new Map<string, number>();
  let lastSent: Interaction | undefined;
  /** Sent requests that have a recorded answer but no live one yet, in the order sent (which is
   * the recorded order): what waitForAnswers looks at, rather than every interaction of the
   * session before every message (which made replay quadratic in the session's length). */
  const awaited = new Set<Interaction>();
  const sent: SentMessage[] = [];
  const recordedIds = new Map<string, unknown>();
  /** The interaction whose live answer said the server no longer speaks the recorded revision. */
  let refused: Interaction | undefined;
  let failure: Omit<ReplayRunError, 'session' | 'seq'> | undefined;
  /** HTTP: when each replayed POST's exchange ended live, keyed by when the recorded one ended. */
  const posts: Array<{ endT: number; done: Promise<void> }> = [];
  /** `synthetic`: an answer of replay's own (no recorded exchange to take headers from). */
  const send = (json: Json, recorded: RecordedMessage, synthetic = false): void => {
    sent.push({ recorded, json, ...(synthetic ? { synthetic: true as const } : {}) });
    const exchange = synthetic ? undefined : exchangeOf(recorded);
    const done = conn.send(json, recorded, exchange);
    if (done && exchange?.endT !== undefined) posts.push({ endT: exchange.endT, done });
  };
  const failureWaiters = new Set<() => void>();
  /** Checks run after every live message (waits for messages on listen streams). */
  const pokes = new Set<() => void>();

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
  conn.onMessage = (msg, via) => {
    if (!isObject(msg)) return;
    const stream = via?.stream !== undefined ? streams.get(via.stream) : undefined;
    if (typeof msg.method === 'string' && 'id' in msg) {
      stream?.live.push(msg);
      answerServerRequest(msg, stream);
    } else if (typeof msg.method === 'string') {
      (stream && msg.method !== 'notifications/progress' ? stream.live : liveNotifications).push(msg);
    } else if ('id' in msg) {
      const it = byLiveId.get(key(msg.id));
      if (!it || it.live) return;
      it.live = msg;
      awaited.delete(it);
      it.doneAt = performance.now();
      if (!refused && it.recordedResponse && isRevisionRefused(it.method, jsonOf(it.recordedResponse), msg)) refused = it;
      learn(it);
      for (const w of it.waiters) w();
      it.waiters = [];
    }
    for (const p of pokes) p();
  };

  /** Remember what later requests must carry instead of their recorded values. */
  const learn = (it: Interaction): void => {
    if (it.page && it.live) takeLivePage(liveListing(options.memory, it.page.listing), it.page.listing.field, it.live);
    const rec = it.recordedResponse ? jsonOf(it.recordedResponse).result : undefined;
    const live = it.live?.result;
    if (!isObject(rec) || !isObject(live)) return;
    if (rec.requestState !== undefined && live.requestState !== undefined) options.memory.requestState.set(key(rec.requestState), live.requestState);
    if (rec.nextCursor !== undefined && live.nextCursor !== undefined) options.memory.cursor.set(key(rec.nextCursor), live.nextCursor);
  };

  /** 2025-era server→client requests get the recorded client answer to the recorded request of
   * that method that belongs to the same client request (matchServerRequest), whichever stream
   * they come on: a client answers them wherever they arrive. */
  /** Live server requests that matched no recorded one, and where their difference went. */
  const unexpected: Array<{ method: string; params: unknown; diff: Difference; target: Difference[] }> = [];
  const answerServerRequest = (msg: Json, stream: ExchangeStep | undefined): void => {
    const method = String(msg.method);
    liveRequestCount.set(method, (liveRequestCount.get(method) ?? 0) + 1);
    // The newest request still waiting for its live answer is the one the server is handling.
    let owner: Interaction | undefined;
    for (const it of awaited) owner = it;
    const entry = matchServerRequest(answers.get(method) ?? [], owner);
    const target = stream?.extra ?? owner?.extra ?? lastSent?.extra ?? sessionDiffs;
    if (!entry) {
      // The recorded client answered this method elsewhere: it would answer here too, so the
      // server gets that answer (not an error that would fail the request it is handling).
      const borrowed = answers.get(method)?.[0];
      const diff: Difference = { verdict: 'breaking', kind: 'unexpected-server-request', path: '', message: `the server now sends ${method} to the client${owner ? ` while it handles ${owner.method}${owner.name ? ` ${owner.name}` : ''}` : ''}, which the recorded session never got there (replay answered it ${borrowed ? `with the recorded answer to the ${method} at #${borrowed.request.seq}` : 'with an error'})`, live: msg.params };
      target.push(diff);
      unexpected.push({ method, params: normalise(msg.params, patternsFor(options.ignore, method)), diff, target });
      if (borrowed) send({ ...jsonOf(borrowed.answer), id: msg.id }, borrowed.answer);
      else send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: `mcp-cassette replay: the recording has no client answer to ${method}` } }, lastSent?.recorded ?? frames[0]!, true);
      return;
    }
    entry.served = true;
    const ignore = patternsFor(options.ignore, method);
    for (const c of diffJson(normalise(jsonOf(entry.request).params, ignore), normalise(msg.params, ignore), ['params'])) {
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

  /** Resolves true once `ready()` holds, false after `ms` or on a failure. */
  const waitUntil = (ready: () => boolean, ms: number): Promise<boolean> => {
    if (ready()) return Promise.resolve(true);
    if (failure) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (v: boolean) => {
        clearTimeout(timer);
        pokes.delete(check);
        failureWaiters.delete(check);
        resolve(v);
      };
      const check = () => {
        if (ready()) finish(true);
        else if (failure) finish(false);
      };
      const timer = setTimeout(() => finish(false), ms);
      pokes.add(check);
      failureWaiters.add(check);
    });
  };

  /** Resolves when every promise settled, or after `ms`, or on a failure. */
  const waitUntilSettled = async (list: Promise<void>[], ms: number): Promise<void> => {
    let settled = false;
    void Promise.allSettled(list).then(() => {
      settled = true;
      for (const p of pokes) p();
    });
    await waitUntil(() => settled, ms);
  };

  /** Before a recorded point, the live listen streams get a grace period to deliver what the
   * recorded ones had delivered before it (the client may have acted on it). */
  const catchUp = async (before: Point): Promise<void> => {
    for (const s of streams.values()) {
      if (!s.open || s.late) continue;
      // A count, not a filter of every recorded message: this runs before every client message.
      const want = before === 'end' ? s.recorded.length : 'seq' in before ? countBelow(s.seqs, before.seq) : countBelow(s.ts, before.t);
      if (!(await waitUntil(() => s.live.length >= want || !s.open, grace)) && !failure) s.late = true;
    }
  };

  /** Resolves with the live answer to a GET or DELETE, or sets a timeout failure. */
  const exchangeAnswer = async (x: ExchangeStep, pending: Promise<ExchangeAnswer | undefined>): Promise<ExchangeAnswer | undefined> => {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), options.timeoutMs);
    });
    const got = await Promise.race([pending, timeout]);
    clearTimeout(timer);
    if (got === 'timeout') {
      failure ??= { code: 'MCPC_REPLAY_TIMEOUT', message: `the server did not answer the client's ${x.method === 'GET' ? 'GET (the listen stream)' : 'DELETE (the session end)'} within ${options.timeoutMs} ms; raise --timeout if it is only slow` };
      for (const w of failureWaiters) w();
      return undefined;
    }
    return got;
  };

  let extraPages = 0;
  /** Where the live server lists more than the recording read, asks for the rest of each listing
   * whose last recorded page is done, so the whole lists can be compared (pagination.ts). The
   * requests carry ids of their own (`mcp-cassette-page-N`), never a recorded client's. */
  const fetchRemainingPages = async (): Promise<void> => {
    for (const it of interactions) {
      if (!it.page?.last || (!it.live && !it.merged) || it.drained) continue;
      it.drained = true;
      const state = liveListing(options.memory, it.page.listing);
      for (let fetched = 0; !state.broken && state.next !== undefined && fetched < MAX_EXTRA_PAGES && !failure; fetched++) {
        const json = structuredClone(jsonOf(it.recorded));
        json.params = { ...(isObject(json.params) ? json.params : {}), cursor: state.next };
        json.id = `mcp-cassette-page-${++extraPages}`;
        const extra: Interaction = { recorded: it.recorded, index: it.index, method: it.method, page: it.page, extra: [], waiters: [], sentAt: performance.now() };
        byLiveId.set(key(json.id), extra);
        send(json, it.recorded);
        await waitFor(extra);
      }
    }
  };

  const waitForAnswers = async (before: (r: RecordedMessage) => boolean): Promise<void> => {
    for (const it of awaited) {
      if (!it.live && before(it.recordedResponse!)) {
        waitingOn = it.recorded;
        await waitFor(it);
        if (failure) return;
      }
    }
  };

  // The client's steps in recorded order: its messages, and its GETs and DELETEs placed among
  // them by the time they were sent (a stream the client closed is closed where it was closed).
  const plan: Step[] = [];
  {
    const events: Step[] = [];
    for (const x of steps) {
      if (x.skipped) continue;
      if (x.method === 'DELETE') {
        events.push({ t: x.exchange.t, kind: 'delete', x });
        continue;
      }
      events.push({ t: x.exchange.t, kind: 'open', x });
      if (x.exchange.outcome === 'client-aborted' && x.exchange.endT !== undefined) events.push({ t: x.exchange.endT, kind: 'close', x });
    }
    events.sort((a, b) => a.t - b.t);
    let e = 0;
    for (const m of frames) {
      if (m.direction !== 'client-to-server' || (m.kind !== 'request' && m.kind !== 'notification')) continue;
      const t = exchangeOf(m)?.t ?? m.t;
      while (e < events.length && events[e]!.t < t) plan.push(events[e++]!);
      plan.push({ t, kind: 'message', m });
    }
    plan.push(...events.slice(e));
  }

  let waitingOn: RecordedMessage | undefined;
  for (const step of plan) {
    if (failure || refused) break;
    if (step.kind !== 'message') {
      const { x } = step;
      const before = (r: RecordedMessage) => r.t < step.t;
      await waitForAnswers(before);
      if (failure) break;
      // The POSTs whose exchange had ended (e.g. the 202 to notifications/initialized) end first:
      // a server may send on a listen stream what it would otherwise have dropped.
      const ended = posts.filter((p) => p.endT < step.t).map((p) => p.done);
      if (ended.length) await waitUntilSettled(ended, options.timeoutMs);
      await catchUp({ t: step.t });
      if (failure) break;
      if (step.kind === 'close') {
        conn.closeStream!(x.exchange);
        continue;
      }
      if (step.kind === 'open') {
        // A stream the server had ended before this one was opened ends first (a server may
        // allow one listen stream per session at a time).
        for (const s of streams.values()) {
          if (s.open && s.exchange.outcome !== 'client-aborted' && s.exchange.endT !== undefined && s.exchange.endT < step.t) await waitUntil(() => !s.open, grace);
        }
      }
      if (step.kind === 'delete') await fetchRemainingPages();
      if (failure) break;
      if (step.kind === 'delete' && hasHeader(x.exchange, 'mcp-session-id') && conn.hasSession === false) {
        // A client sends no DELETE when the server gave it no session id.
        x.skipped = 'not sent: the live server gave this session no Mcp-Session-Id, so there is no session to end';
        continue;
      }
      x.sentAt = performance.now();
      const answer = await exchangeAnswer(x, step.kind === 'open' ? conn.openStream!(x.exchange) : conn.endSession!(x.exchange));
      x.doneAt = performance.now();
      if (failure) break;
      if (!answer) continue;
      x.answer = answer;
      if (x.exchange.status !== undefined) x.extra.push(...judgeExchangeStatus(x.method, x.exchange.status, answer.status));
      if (step.kind === 'open' && answer.ended) {
        x.open = true;
        void answer.ended.then(() => {
          x.open = false;
          for (const p of pokes) p();
        });
      }
      continue;
    }
    const m = step.m;
    await waitForAnswers((r) => r.seq < m.seq);
    if (failure || refused) break;
    await catchUp({ seq: m.seq });
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
      const listing = it.page && it.page.index > 0 ? liveListing(options.memory, it.page.listing) : undefined;
      if (listing && !listing.broken) {
        // Follow the live server's cursors: a page it no longer has is not asked for.
        if (listing.next === undefined) {
          it.merged = true;
          continue;
        }
        params!.cursor = listing.next;
      } else if (params && params.cursor !== undefined) {
        const live = options.memory.cursor.get(key(params.cursor));
        if (live !== undefined) params.cursor = live;
      }
      it.liveId = nextId++;
      recordedIds.set(key(it.liveId), j.id);
      j.id = it.liveId;
      byLiveId.set(key(it.liveId), it);
      it.sentAt = performance.now();
      lastSent = it;
      if (it.recordedResponse) awaited.add(it);
      send(j, m);
    } else {
      if (j.method === 'notifications/cancelled' && params && params.requestId !== undefined) {
        const target = byRecordedId.get(key(params.requestId))?.find((i) => i.liveId !== undefined);
        if (target) params.requestId = target.liveId;
      }
      send(j, m);
    }
  }
  if (refused) {
    const note = `not replayed: the server refused the recorded protocol revision at #${refused.recorded.seq} ${refused.method}`;
    for (const it of interactions) if (it.liveId === undefined && !it.skipped) it.notSent = note;
    for (const x of steps) if (x.sentAt === undefined && !x.skipped) x.notSent = note;
  }
  if (!failure) await waitForAnswers(() => true);
  if (!failure && !refused) await fetchRemainingPages();
  // A server also asks on its own schedule (roots/list some time after initialize): before a
  // request the recording got is called missing, it gets the same grace as a listen stream.
  const unasked = () => [...answers.values()].some((list) => list.some((a) => !a.served && !onStream(a.request)));
  if (!failure && !refused && unasked()) await waitUntil(() => !unasked(), grace);
  if (!failure && !refused) await catchUp('end');
  if (!failure) await new Promise((r) => setTimeout(r, options.settleMs ?? 50));

  const context = { ...(session.protocol.revision !== undefined ? { revision: session.protocol.revision } : {}) };
  const cut = Boolean(failure || refused);
  if (!cut) {
    // What the recorded server asked the client and the live one no longer does (a GET stream's
    // are counted with that stream, exchangeResult).
    for (const [method, list] of answers) {
      // A request the server sends on its own schedule (roots/list some time after initialize)
      // may come while another client request is handled than when recorded: a recorded one not
      // asked for and a live one not expected, with the same method and params, are the same
      // question at another moment, no difference.
      const moved = unexpected.filter((u) => u.method === method);
      for (const a of list) {
        if (a.served || onStream(a.request)) continue;
        const recordedParams = normalise(jsonOf(a.request).params, patternsFor(options.ignore, method));
        const u = moved.find((x) => diffJson(recordedParams, x.params).length === 0);
        if (u) {
          moved.splice(moved.indexOf(u), 1);
          u.target.splice(u.target.indexOf(u.diff), 1);
          continue;
        }
        (a.owner?.extra ?? sessionDiffs).push({ verdict: 'warning', kind: 'server-request-missing', path: '', message: `the server no longer sends ${method} to the client${a.owner ? ` while it handles ${a.owner.method}${a.owner.name ? ` ${a.owner.name}` : ''}` : ''} (the recording got it at #${a.request.seq})`, recorded: jsonOf(a.request).params });
      }
    }
  }
  const recordedProgress = progressByToken(recordedNotifications);
  const liveProgress = progressByToken(liveNotifications);
  const results: Array<{ t: number; r: InteractionResult }> = interactions.map((it) => ({
    t: exchangeOf(it.recorded)?.t ?? it.recorded.t,
    r: toResult(it, recordedProgress, liveProgress, options, context),
  }));
  const exchangeResults = steps.map((x) => ({ t: x.exchange.t, r: exchangeResult(x, cut, options, recordedRequestCount, liveRequestCount) }));
  // Each GET or DELETE takes its place among the interactions by the time it was sent.
  for (const e of exchangeResults) {
    const at = results.findIndex((r) => r.t > e.t);
    results.splice(at === -1 ? results.length : at, 0, e);
  }
  const out = results.map((r) => r.r);
  // A session cut short (a failure, or a refused revision) has no comparable notification stream.
  const notes = cut ? [] : compareNotifications(recordedNotifications, liveNotifications, options);
  const sessionLevel = [...sessionDiffs, ...notes];
  if (sessionLevel.length) {
    out.push({ seq: 0, method: 'notifications', outcome: worst(sessionLevel)!, differences: sessionLevel });
  }
  return {
    interactions: out,
    ...(failure ? { error: { ...failure, ...(waitingOn ? { seq: waitingOn.seq } : {}) } } : {}),
    sent,
    recordedIds,
  };
}

