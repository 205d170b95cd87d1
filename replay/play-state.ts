/**
 * The live side of one session as the player plays it (player.ts): what was sent and with which
 * ids, the live answers and notifications, the differences that belong to no request, and whether
 * the session failed or the server refused the recorded revision. The steps (play-steps.ts), the
 * live message handling (play-live.ts), the waits (play-waits.ts) and the judging at the end
 * (play-outcome.ts) all work on it.
 */
import type { RecordedMessage } from '../lib/message.js';
import type { LiveConnection } from './live/connection.js';
import type { Interaction, Json, PlayOptions, SentMessage } from './play-model.js';
import type { Recording } from './play-recording.js';
import type { Difference, ReplayRunError } from './types.js';

/** A live server request that matched no recorded one, and where its difference went. */
export interface UnexpectedAsk {
  method: string;
  params: unknown;
  diff: Difference;
  target: Difference[];
  /** ` while it handles tools/call x`, or empty: where it came, for the message. */
  handling: string;
}

export interface SessionPlay {
  rec: Recording;
  conn: LiveConnection;
  options: PlayOptions;
  /** How long a listen stream gets to deliver what the recorded one had (streamGraceMs). */
  grace: number;
  byLiveId: Map<string, Interaction>;
  liveNotifications: Json[];
  sessionDiffs: Difference[];
  liveRequestCount: Map<string, number>;
  lastSent?: Interaction;
  /** Sent requests that have a recorded answer but no live one yet, in the order sent (which is
   * the recorded order): what waitForAnswers looks at, rather than every interaction of the
   * session before every message (which made replay quadratic in the session's length). */
  awaited: Set<Interaction>;
  sent: SentMessage[];
  recordedIds: Map<string, unknown>;
  /** The interaction whose live answer said the server no longer speaks the recorded revision. */
  refused?: Interaction;
  failure?: Omit<ReplayRunError, 'session' | 'seq'>;
  /** The recorded message whose answers were awaited when the session failed. */
  waitingOn?: RecordedMessage;
  /** HTTP: when each replayed POST's exchange ended live, keyed by when the recorded one ended. */
  posts: Array<{ endT: number; done: Promise<void> }>;
  failureWaiters: Set<() => void>;
  /** Checks run after every live message (waits for messages on listen streams). */
  pokes: Set<() => void>;
  unexpected: UnexpectedAsk[];
  /** Requests of replay's own for the rest of a listing (play-steps.ts fetchRemainingPages). */
  extraPages: number;
}

export function newPlay(rec: Recording, conn: LiveConnection, options: PlayOptions): SessionPlay {
  return {
    rec,
    conn,
    options,
    grace: options.streamGraceMs ?? Math.min(options.timeoutMs, 2000),
    byLiveId: new Map(),
    liveNotifications: [],
    sessionDiffs: [],
    liveRequestCount: new Map(),
    awaited: new Set(),
    sent: [],
    recordedIds: new Map(),
    posts: [],
    failureWaiters: new Set(),
    pokes: new Set(),
    unexpected: [],
    extraPages: 0,
  };
}

/** Sends one client message. `synthetic`: an answer of replay's own (no recorded exchange to
 * take headers from). */
export function send(p: SessionPlay, json: Json, recorded: RecordedMessage, synthetic = false): void {
  p.sent.push({ recorded, json, ...(synthetic ? { synthetic: true as const } : {}) });
  const exchange = synthetic ? undefined : p.rec.exchangeOf(recorded);
  const done = p.conn.send(json, recorded, exchange, verbatimText(p, json, recorded, synthetic));
  if (done && exchange?.endT !== undefined) p.posts.push({ endT: exchange.endT, done });
}

/** The recorded text of a message sent unchanged in a verbatim play (PlayOptions.verbatim). */
function verbatimText(p: SessionPlay, json: Json, recorded: RecordedMessage, synthetic: boolean): string | undefined {
  if (!p.options.verbatim || synthetic || recorded.raw === undefined) return undefined;
  return JSON.stringify(json) === JSON.stringify(recorded.json) ? recorded.raw : undefined;
}

/** Wakes every wait: the session failed. */
export function wakeOnFailure(p: SessionPlay): void {
  for (const w of p.failureWaiters) w();
}

/** Wakes the waits for listen streams: a live message came, or a stream ended. */
export function poke(p: SessionPlay): void {
  for (const f of p.pokes) f();
}
