/**
 * What the player (player.ts) reads from one recorded session before it sends anything: the
 * client requests paired with their answers, the server→client requests paired with the client's
 * answers, the client's GET and DELETE exchanges (HTTP), and the plan: the client's steps in
 * recorded order.
 */
import type { HttpExchange, RecordedSession } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import type { LiveConnection } from './live/connection.js';
import {
  jsonOf,
  key,
  nameOf,
  pushTo,
  type ExchangeStep,
  type Interaction,
  type Json,
  type PlayOptions,
  type ServerAsk,
} from './play-model.js';

/** One step of the client's: a message, or the opening, closing or DELETE of an exchange. */
export type Step = { t: number; kind: 'message'; m: RecordedMessage } | { t: number; kind: 'open' | 'close' | 'delete'; x: ExchangeStep };

/** One recorded session, read for playing. */
export interface Recording {
  session: RecordedSession;
  /** The JSON-RPC messages of the session (stderr and unparsed frames left out). */
  frames: RecordedMessage[];
  /** The HTTP exchange a message travelled in. */
  exchangeOf: (m: RecordedMessage) => HttpExchange | undefined;
  /** The client's GET and DELETE exchanges, when the live connection can play them (HTTP). */
  steps: ExchangeStep[];
  /** The GETs among `steps`, by exchange id. */
  streams: Map<number, ExchangeStep>;
  /** The listen stream a recorded message came on, when it is compared per stream. */
  onStream: (m: RecordedMessage) => ExchangeStep | undefined;
  interactions: Interaction[];
  byRecorded: Map<RecordedMessage, Interaction>;
  /** Recorded JSON-RPC id (as JSON text) → the requests that had it, in order. */
  byRecordedId: Map<string, Interaction[]>;
  /** The recorded server→client requests the client answered, by method, in order. */
  answers: Map<string, ServerAsk[]>;
  recordedNotifications: Json[];
  /** How many server→client requests of each method the recording got. */
  recordedRequestCount: Map<string, number>;
}

export const hasHeader = (x: HttpExchange, name: string) => Object.keys(x.requestHeaders).some((h) => h.toLowerCase() === name);

/** The client's GET and DELETE exchanges that replay plays, each with why it is skipped if it is. */
function exchangeSteps(session: RecordedSession, sentAnything: boolean): ExchangeStep[] {
  const steps: ExchangeStep[] = [];
  for (const x of session.exchanges ?? []) {
    if (!x.mcp || x.outcome === 'refused' || (x.method !== 'GET' && x.method !== 'DELETE')) continue;
    const step: ExchangeStep = {
      exchange: x,
      method: x.method,
      recorded: [],
      live: [],
      seqs: [],
      ts: [],
      open: false,
      late: false,
      extra: [],
    };
    if (x.method === 'GET') {
      if (hasHeader(x, 'last-event-id')) {
        step.skipped = "a resumption GET (Last-Event-ID) is not replayed: the live server's event ids are not the recorded ones";
      } else if (hasHeader(x, 'mcp-session-id') && !sentAnything) {
        step.skipped = 'the recorded GET listened on a session this recording did not open, so there is no live session to listen on';
      }
    } else if (hasHeader(x, 'mcp-session-id') && !sentAnything) {
      step.skipped = 'the recorded DELETE ended a session this recording did not open';
    }
    if (x.status === undefined && !step.skipped)
      step.skipped = `the recording has no answer to this ${x.method} to compare with (${x.outcome})`;
    steps.push(step);
  }
  return steps;
}

export function readRecording(session: RecordedSession, conn: LiveConnection, options: PlayOptions): Recording {
  const frames = session.messages.filter(
    (m) => m.json !== undefined && m.channel !== 'stderr' && ['request', 'notification', 'response', 'error'].includes(m.kind),
  );
  const exchanges = new Map<number, HttpExchange>((session.exchanges ?? []).map((e) => [e.id, e]));
  const exchangeOf = (m: RecordedMessage) => (m.http ? exchanges.get(m.http.exchange) : undefined);

  // The client's GET and DELETE exchanges, when the live connection can play them (HTTP).
  const sentAnything = frames.some((m) => m.direction === 'client-to-server');
  const steps = conn.openStream && conn.endSession ? exchangeSteps(session, sentAnything) : [];
  const streams = new Map<number, ExchangeStep>();
  for (const step of steps) if (step.method === 'GET') streams.set(step.exchange.id, step);
  /** Messages the recording got on a listen stream are compared per stream (progress excepted:
   * it belongs to its request wherever it travels). */
  const onStream = (m: RecordedMessage) => {
    const method = m.http && m.direction === 'server-to-client' ? jsonOf(m).method : undefined;
    return typeof method === 'string' && method !== 'notifications/progress' ? streams.get(m.http!.exchange) : undefined;
  };

  const paired = pairFrames(frames, options, onStream);
  for (const s of streams.values()) {
    s.seqs.sort((a, b) => a - b);
    s.ts.sort((a, b) => a - b);
  }
  return { session, frames, exchangeOf, steps, streams, onStream, ...paired };
}

/** The recording paired: client requests with their answers, server requests with the client's. */
type Paired = Pick<
  Recording,
  'interactions' | 'byRecorded' | 'byRecordedId' | 'answers' | 'recordedNotifications' | 'recordedRequestCount'
>;

/** Pairing under way: what is still open besides what the pairing yields. */
interface Pairing extends Paired {
  openClient: Map<string, Interaction>;
  /** The recorded server→client requests not yet answered by the client, by id, with their owner. */
  asked: Map<string, { request: RecordedMessage; owner?: Interaction }>;
  /** HTTP: the client request each POST exchange carried. */
  byExchange: Map<number, Interaction>;
}

function pairFrames(frames: RecordedMessage[], options: PlayOptions, onStream: Recording['onStream']): Paired {
  const p: Pairing = {
    openClient: new Map(),
    interactions: [],
    byRecorded: new Map(),
    byRecordedId: new Map(),
    answers: new Map(),
    asked: new Map(),
    byExchange: new Map(),
    recordedNotifications: [],
    recordedRequestCount: new Map(),
  };
  for (const m of frames) {
    if (m.direction === 'client-to-server') pairClientFrame(p, m, options);
    else pairServerFrame(p, m, onStream);
  }
  const { interactions, byRecorded, byRecordedId, answers, recordedNotifications, recordedRequestCount } = p;
  return { interactions, byRecorded, byRecordedId, answers, recordedNotifications, recordedRequestCount };
}

/** A client request opens an interaction; a client answer closes the server request it answers. */
function pairClientFrame(p: Pairing, m: RecordedMessage, options: PlayOptions): void {
  const j = jsonOf(m);
  if (m.kind === 'request') {
    const it: Interaction = {
      recorded: m,
      index: p.interactions.length + 1,
      method: String(j.method),
      name: nameOf(j.params),
      extra: [],
      waiters: [],
    };
    const page = options.memory.listings.get(m);
    if (page) it.page = page;
    p.interactions.push(it);
    p.byRecorded.set(m, it);
    pushTo(p.byRecordedId, key(j.id), it);
    p.openClient.set(key(j.id), it);
    if (m.http) p.byExchange.set(m.http.exchange, it);
  } else if (m.kind === 'response' || m.kind === 'error') {
    const ask = p.asked.get(key(j.id));
    if (ask) {
      p.asked.delete(key(j.id));
      pushTo(p.answers, String(jsonOf(ask.request).method), { ...ask, answer: m });
    }
  }
}

/** A server frame: on a listen stream it is compared there; a request is owned by a client
 * request, an answer closes one. */
function pairServerFrame(p: Pairing, m: RecordedMessage, onStream: Recording['onStream']): void {
  const j = jsonOf(m);
  const stream = onStream(m);
  if (stream) {
    stream.recorded.push(m);
    stream.seqs.push(m.seq);
    stream.ts.push(m.t);
  }
  if (m.kind === 'request') {
    // It belongs to the client request whose POST stream it came on, or else to the newest one
    // still waiting for its answer (over stdio a server asks while it handles a request).
    const owner = (m.http ? p.byExchange.get(m.http.exchange) : undefined) ?? [...p.openClient.values()].at(-1);
    p.asked.set(key(j.id), { request: m, ...(owner ? { owner } : {}) });
    p.recordedRequestCount.set(String(j.method), (p.recordedRequestCount.get(String(j.method)) ?? 0) + 1);
  } else if (m.kind === 'notification') {
    if (!onStream(m)) p.recordedNotifications.push(j);
  } else {
    const it = p.openClient.get(key(j.id));
    if (it) {
      p.openClient.delete(key(j.id));
      it.recordedResponse = m;
    }
  }
}

/** The client's steps in recorded order: its messages, and its GETs and DELETEs placed among
 * them by the time they were sent (a stream the client closed is closed where it was closed). */
export function planSteps(rec: Recording): Step[] {
  const plan: Step[] = [];
  const events: Step[] = [];
  for (const x of rec.steps) {
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
  for (const m of rec.frames) {
    if (m.direction !== 'client-to-server' || (m.kind !== 'request' && m.kind !== 'notification')) continue;
    const t = rec.exchangeOf(m)?.t ?? m.t;
    while (e < events.length && events[e]!.t < t) plan.push(events[e++]!);
    plan.push({ t, kind: 'message', m });
  }
  plan.push(...events.slice(e));
  return plan;
}
