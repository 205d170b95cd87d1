/**
 * What the player (player.ts) and the judging of its results (play-results.ts) share: the replay's
 * memory across sessions, the options, the state of each recorded request and client exchange as it
 * is played, and the small helpers over recorded messages.
 */
import type { HttpExchange, RecordedSession } from '../lib/cassette/cassette.js';
import { messageValue, type RecordedMessage } from '../lib/message.js';
import { isObject } from './diff.js';
import type { ExchangeAnswer } from './live/connection.js';
import type { IgnorePattern } from './normalise.js';
import { newLiveListing, planListings, type Listing, type LiveListing, type PagePlan } from './pagination.js';
import { VERDICT_RANK, type Difference, type InteractionResult, type ReplayRunError, type Verdict } from './types.js';

export type Json = Record<string, unknown>;

/** Values learned from the live server that later recorded requests must carry instead of the
 * recorded ones. Shared by every session of a cassette: over stateless HTTP an MRTR retry or the
 * next page is a session of its own. */
export interface ReplayMemory {
  /** Recorded `requestState` (JSON text) → the one the live server returned. */
  requestState: Map<string, unknown>;
  /** Recorded `nextCursor` (JSON text) → the live one. */
  cursor: Map<string, unknown>;
  /** The cassette's listings the recorded client read to the end, by page request (pagination.ts). */
  listings: Map<RecordedMessage, PagePlan>;
  /** What the live server listed for each of them so far. */
  live: Map<Listing, LiveListing>;
  /** The next live JSON-RPC id. One counter for the whole replay, not one per session: over
   * stateless HTTP a retry is a session of its own, and a retry must not reuse the id of the
   * request it retries (TOOLS-RETRY-NEW-ID, MRTR-NEW-ID). */
  nextId: number;
}

/** The memory for replaying `sessions` (all of a cassette's, in order). */
export function newMemory(sessions: readonly RecordedSession[] = []): ReplayMemory {
  return { requestState: new Map(), cursor: new Map(), listings: planListings(sessions), live: new Map(), nextId: 1 };
}

export function liveListing(memory: ReplayMemory, listing: Listing): LiveListing {
  let state = memory.live.get(listing);
  if (!state) memory.live.set(listing, (state = newLiveListing()));
  return state;
}

/** A calibrated request's volatile paths, applied while the request still has this method and name. */
export interface VolatilePaths {
  method: string;
  name?: string;
  patterns: IgnorePattern[];
}

/** One compared answer, both sides normalised (what calibration learns from). */
export interface ComparedAnswer {
  /** 1-based index of the request among the session's client requests. */
  index: number;
  seq: number;
  method: string;
  name?: string;
  recorded: unknown;
  live: unknown;
  /** Both answers as they came, before normalisation (calibration reads the handshake's
   * serverInfo from them). */
  raw: { recorded: unknown; live: unknown };
}

export interface PlayOptions {
  timeoutMs: number;
  /** The timeout was given (option or config): it is used as it is, not raised to a multiple of
   * each request's recorded latency (play-waits.ts timeoutFor). */
  timeoutGiven?: boolean;
  /** Global patterns, and patterns scoped to a method (and name): see `patternsFor`. */
  ignore: readonly IgnorePattern[];
  memory: ReplayMemory;
  /** `--calibrate`'s paths, by the request's index among the session's client requests. */
  volatile?: ReadonlyMap<number, VolatilePaths>;
  /** Sees every compared answer. */
  observe?: (answer: ComparedAnswer) => void;
  /** How long to keep listening for notifications after the last answer. */
  settleMs?: number;
  /** The request at this recorded seq is waited for even though the recording holds no answer
   * (a fuzz finding's request, which crashed or hung the recorded server): its answer, the
   * server's exit or the timeout decides whether the finding is still there. */
  awaitSeq?: number;
  /** A fuzz finding's session: each request goes out with its recorded id and, when replay changes
   * nothing in it, its recorded bytes. The finding may be in them (a fractional id, an id past
   * 2^53, a duplicate key), and renumbering or re-serialising would send another request. */
  verbatim?: boolean;
  /** How long to wait, at a recorded point, for messages the recording got on a listen stream
   * (HTTP GET) before that point (default: the smaller of `timeoutMs` and 2 s). A message that
   * does not come in that time is a difference, not a failure. */
  streamGraceMs?: number;
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

export interface Interaction {
  recorded: RecordedMessage;
  /** 1-based, among the session's client requests (the key of calibrated paths). */
  index: number;
  recordedResponse?: RecordedMessage;
  method: string;
  name?: string;
  liveId?: string | number | null;
  sentAt?: number;
  doneAt?: number;
  live?: Json;
  skipped?: string;
  extra: Difference[];
  waiters: Array<() => void>;
  /** Why it was not sent (the session stopped before it). */
  notSent?: string;
  /** A page of a listing the recorded client read to the end (pagination.ts). */
  page?: PagePlan;
  /** A recorded page not sent because the live server had already listed everything. */
  merged?: true;
  /** The last page of a listing whose remaining live pages were fetched. */
  drained?: true;
}

export const key = (v: unknown) => JSON.stringify(v);

export function pushTo<K, V>(map: Map<K, V[]>, k: K, value: V): void {
  const list = map.get(k);
  if (list) list.push(value);
  else map.set(k, [value]);
}

export function jsonOf(m: RecordedMessage): Json {
  return messageValue(m) as Json;
}

export function nameOf(params: unknown): string | undefined {
  if (!isObject(params)) return undefined;
  if (typeof params.name === 'string') return params.name;
  if (typeof params.uri === 'string') return params.uri;
  if (isObject(params.ref) && typeof params.ref.name === 'string') return params.ref.name;
  return undefined;
}

export function worst(diffs: readonly Difference[]): Verdict | undefined {
  let w: Verdict | undefined;
  for (const d of diffs) if (!w || VERDICT_RANK[d.verdict] > VERDICT_RANK[w]) w = d.verdict;
  return w;
}

/** A client-side HTTP exchange without a body that replay plays too: the GET that opens a listen
 * stream, or the DELETE that ends the session. */
export interface ExchangeStep {
  exchange: HttpExchange;
  method: 'GET' | 'DELETE';
  /** GET: the notifications and server→client requests the recording got on the stream. */
  recorded: RecordedMessage[];
  /** GET: the same on the live stream, as they arrived. */
  live: Json[];
  /** GET: the seq and the time of each of `recorded`, sorted, to count those before a point. */
  seqs: number[];
  ts: number[];
  answer?: ExchangeAnswer;
  /** GET: the live stream is open and delivering. */
  open: boolean;
  /** GET: a wait for a recorded message on it ran out once; later points do not wait again. */
  late: boolean;
  sentAt?: number;
  doneAt?: number;
  extra: Difference[];
  skipped?: string;
  notSent?: string;
}

/** A server→client request the recording got, the client's answer to it, and the client request
 * it came while (its owner). */
export interface ServerAsk {
  request: RecordedMessage;
  answer: RecordedMessage;
  owner?: Interaction;
  served?: true;
}

/** The recorded server request a live one replays: the first unserved one of its method that came
 * while the same client request was handled, else one that came while none was; never one that
 * belongs to another request (that would answer it with another request's answer). */
export function matchServerRequest(list: readonly ServerAsk[], owner: Interaction | undefined): ServerAsk | undefined {
  return (
    list.find((a) => !a.served && a.owner === owner) ??
    list.find((a) => !a.served && a.owner === undefined) ??
    (owner === undefined ? list.find((a) => !a.served) : undefined)
  );
}
