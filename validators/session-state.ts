import type { HttpExchange, RecordedSession } from '../lib/cassette/cassette.js';
import type { Direction, RecordedMessage } from '../lib/message.js';
import { storedHeader } from '../lib/http-headers.js';
import { progressTokenOf } from '../lib/progress-token.js';
import { isObject, type Observed } from './rule.js';
import { modernResult, turnedAway } from './legacy-rejection.js';
import { ServerContext } from './server-context.js';
import { HANDED_OUT_KEPT, handedOutIds } from './state-ids.js';
import { ENDED_KEPT, forgetOldest, PER_REQUEST_KEPT } from './session-bounds.js';
import { idKey, LIST_KEYS, mrtrKey, revisionOf } from './message-keys.js';

export { idKey, LIST_KEYS, mrtrKey, revisionOf };

export const MODERN_REVISION = '2026-07-28';

export interface PendingRequest {
  msg: RecordedMessage;
  json: Record<string, unknown>;
  method: string;
  era?: 'legacy' | 'modern';
  /** The first rule of error severity the request broke (a missing envelope field, a schema
   * breach): its answer may be a refusal, whatever the rules that judge answers expect. */
  invalid?: string;
}

/**
 * What the validator knows about one session while it walks the messages in order: the requests
 * each side still awaits, the negotiated revision, MRTR rounds, and (through `context`, which
 * stateless HTTP exchanges share) what the server has shown of itself. Rules read it; only the
 * engine changes it (after all rules saw a message), so every rule sees the same "before" state.
 */
export class SessionState {
  readonly pending: Record<Direction, Map<string, PendingRequest>> = { 'client-to-server': new Map(), 'server-to-client': new Map() };
  /** The revision an `initialize` handshake settled, if any. */
  legacyRevision?: string;
  /** A request with the 2026-07-28 envelope has been seen. */
  modernSeen = false;
  /** HTTP: the exchanges of the session in flight, and the ended ones rules look back at (see
   * forgetExchange). Set through addExchange. */
  readonly exchanges = new Map<number, HttpExchange>();
  /** HTTP: the session saw more than one exchange (a stateless exchange is a session of its own). */
  manyExchanges = false;
  #firstExchange: number | undefined;
  /** Ended exchanges kept for the rules that look back (see forgetExchange), oldest first. */
  readonly #keptEnded: number[] = [];
  readonly #once = new Set<string>();
  /** `onceIn` keys, per exchange: let go when the exchange is over. */
  readonly #onceIn = new Map<number, Set<string>>();
  /** Rule-private memory per exchange, one map per `exchangeSlot`; let go when the exchange is over. */
  readonly exchangeSlots: (Map<number, unknown> | undefined)[] = [];
  /** Responses seen per HTTP exchange (one per request stream). */
  responsesInExchange = new Map<number, number>();
  /** Progress tokens of requests the client sent: the request's seq, whether it was answered,
   * and the last progress value seen. */
  progress = new Map<string, { requestKey: string; answered: boolean; last?: number; cancelled?: boolean }>();
  /** Ids of requests the client cancelled. */
  cancelled = new Set<string>();
  /** Rule-private memory of this session, one slot per `sessionSlot` (see there). */
  readonly slots: unknown[] = [];
  // The server's facts, read through to the context (the rules read them as the session's).
  get tools(): ServerContext['tools'] {
    return this.context.tools;
  }
  get serverCapabilities(): ServerContext['serverCapabilities'] {
    return this.context.serverCapabilities;
  }
  get supportedVersions(): ServerContext['supportedVersions'] {
    return this.context.supportedVersions;
  }
  get lastList(): ServerContext['lastList'] {
    return this.context.lastList;
  }
  get listChanged(): ServerContext['listChanged'] {
    return this.context.listChanged;
  }
  get cursors(): ServerContext['cursors'] {
    return this.context.cursors;
  }
  get issuedState(): ServerContext['issuedState'] {
    return this.context.issuedState;
  }
  get handedOut(): ServerContext['handedOut'] {
    return this.context.handedOut;
  }

  /** `target` (the recorded server) is known offline and, on HTTP, live. */
  constructor(
    readonly session: Pick<RecordedSession, 'id' | 'transport' | 'exchanges'> & { target?: RecordedSession['target'] },
    readonly context: ServerContext = new ServerContext(),
  ) {
    for (const x of session.exchanges ?? []) this.addExchange(x);
  }

  /** HTTP: an exchange's envelope, known before or while its messages are judged (again, with
   * status and end, when it is over). */
  addExchange(x: HttpExchange): void {
    this.exchanges.set(x.id, x);
    if (this.#firstExchange === undefined) this.#firstExchange = x.id;
    else if (x.id !== this.#firstExchange) this.manyExchanges = true;
  }

  /**
   * HTTP: an exchange is over and every rule has judged it: what the session kept of it goes, so
   * that a session that never ends (a proxy in front of a busy server for weeks) holds only its
   * exchanges in flight (live only: ValidateOptions.forgetEndedExchanges). Its messages all came
   * before its end, so no rule asks for it again, except the look-back at
   * exchanges that carried no MCP message (OAuth discovery: the authorization rules read the
   * Protected Resource Metadata a client fetched earlier), of which the latest ENDED_KEPT stay.
   */
  forgetExchange(id: number): void {
    const x = this.exchanges.get(id);
    if (x && !x.mcp) {
      this.#keptEnded.push(id);
      if (this.#keptEnded.length > ENDED_KEPT) this.exchanges.delete(this.#keptEnded.shift()!);
    } else this.exchanges.delete(id);
    this.responsesInExchange.delete(id);
    this.#onceIn.delete(id);
    for (const m of this.exchangeSlots) m?.delete(id);
  }

  /** Reads one message in the light of everything before it. */
  observe(msg: RecordedMessage): Observed {
    const json = isObject(msg.json) ? msg.json : undefined;
    // Every member present from the start, in one order: every Observed has the same shape, so
    // the rules' reads of it stay monomorphic (an object that grew members as it was classified
    // came in many shapes, and every rule paid for it).
    const o: Observed = {
      msg,
      transport: this.session.transport,
      json,
      revision: undefined,
      era: undefined,
      request: undefined,
      reported: undefined,
      invalid: undefined,
    };
    if (!json) return o;
    const method = typeof json.method === 'string' ? json.method : undefined;
    if (method !== undefined) {
      if (msg.direction === 'client-to-server' && 'id' in json) this.#classifyClientRequest(o, json, method);
      else this.#classifyOther(o);
      return o;
    }
    if ('result' in json || 'error' in json) {
      const other: Direction = msg.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server';
      const req = this.pending[other].get(idKey(json.id));
      if (req) {
        o.request = req;
        if (req.era) o.era = req.era;
        const rev = revisionOf(req.json);
        if (req.method === 'initialize' && isObject(json.result) && typeof json.result.protocolVersion === 'string') {
          o.revision = json.result.protocolVersion;
        } else if (rev) {
          o.revision = rev;
        } else if (req.era === 'legacy' && this.legacyRevision) {
          o.revision = this.legacyRevision;
        }
      } else this.#classifyOther(o);
      // A 2025-era server turning a 2026-07-28 attempt away speaks its own revision (legacy-rejection.ts).
      if (turnedAway(o, this)) {
        o.era = 'legacy';
        o.revision = this.legacyRevision;
      }
    }
    return o;
  }

  #classifyClientRequest(o: Observed, json: Record<string, unknown>, method: string): void {
    const declared = revisionOf(json);
    if (declared) {
      o.era = 'modern';
      o.revision = declared;
      return;
    }
    if (method === 'initialize') {
      o.era = 'legacy';
      const offered = isObject(json.params) ? json.params.protocolVersion : undefined;
      if (typeof offered === 'string') o.revision = offered;
      return;
    }
    if (this.legacyRevision) {
      o.era = 'legacy';
      o.revision = this.legacyRevision;
      return;
    }
    const header = this.header(o.msg, 'mcp-protocol-version');
    if (header) {
      o.era = header >= MODERN_REVISION ? 'modern' : 'legacy';
      o.revision = header;
      return;
    }
    if (this.session.transport === 'streamable-http') {
      // No header and no envelope: the legacy rule assumes 2025-03-26.
      o.era = 'legacy';
      o.revision = '2025-03-26';
      return;
    }
    if (this.modernSeen) o.era = 'modern';
  }

  #classifyOther(o: Observed): void {
    if (this.legacyRevision) {
      o.era = 'legacy';
      o.revision = this.legacyRevision;
    } else if (this.modernSeen) {
      o.era = 'modern';
      o.revision = MODERN_REVISION;
    }
  }

  header(msg: RecordedMessage, name: string): string | undefined {
    if (msg.http === undefined) return undefined;
    return storedHeader(this.exchanges.get(msg.http.exchange)?.requestHeaders, name);
  }

  /** True the first time a key is seen: for rules that report once per exchange. */
  once(key: string): boolean {
    if (this.#once.has(key)) return false;
    this.#once.add(key);
    return true;
  }

  /** True the first time a key is seen by the server's context: for findings about the server
   * itself (it answers without authorization, it hands out guessable ids), which a stateless
   * server would otherwise repeat on every exchange, each being a session of its own. On stdio
   * and sessionful HTTP the context is the session's, so this is `once`. */
  onceForServer(key: string): boolean {
    const said = this.context.said;
    if (said.has(key)) return false;
    said.add(key);
    return true;
  }

  /** What the session holds per exchange (SessionValidator.retained). */
  retained(): { exchanges: number; exchangeMemories: number } {
    let memories = this.#onceIn.size + this.responsesInExchange.size;
    for (const m of this.exchangeSlots) memories += m?.size ?? 0;
    return { exchanges: this.exchanges.size, exchangeMemories: memories };
  }

  /** True the first time `key` is seen in exchange `x`: for rules that report once per exchange
   * (the key goes with the exchange, see forgetExchange). */
  onceIn(x: number, key: string): boolean {
    let keys = this.#onceIn.get(x);
    if (!keys) this.#onceIn.set(x, (keys = new Set()));
    if (keys.has(key)) return false;
    keys.add(key);
    return true;
  }

  /** The request an HTTP exchange carried, while it is still awaiting its answer. */
  exchangeRequest(x: number): PendingRequest | undefined {
    for (const r of this.pending['client-to-server'].values()) if (r.msg.http?.exchange === x) return r;
    return undefined;
  }

  /** Applies a message to the state once every rule has seen it. */
  commit(o: Observed): void {
    const json = o.json;
    if (!json) return;
    if (typeof json.method === 'string' && 'id' in json) {
      const token = progressTokenOf(json);
      if (o.msg.direction === 'client-to-server' && token !== undefined) {
        this.progress.set(JSON.stringify(token), { requestKey: idKey(json.id), answered: false });
        forgetOldest(this.progress, PER_REQUEST_KEPT);
      }
      // (era always present, for one shape: see observe)
      const pending: PendingRequest = { msg: o.msg, json, method: json.method, era: o.era || undefined, invalid: o.invalid };
      this.pending[o.msg.direction].set(idKey(json.id), pending);
      if (o.era === 'modern' && o.msg.direction === 'client-to-server') this.modernSeen = true;
      return;
    }
    this.#commitNotice(o, json);
    if (!o.request) return;
    const other: Direction = o.msg.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server';
    this.pending[other].delete(idKey(json.id));
    if (o.msg.direction === 'server-to-client') {
      const token = progressTokenOf(o.request.json);
      const p = token !== undefined ? this.progress.get(JSON.stringify(token)) : undefined;
      if (p && p.requestKey === idKey(json.id)) p.answered = true;
    }
    const result = isObject(json.result) ? json.result : undefined;
    if (result) this.#commitResult(o, o.request, result);
  }

  /** Progress, cancellation and list changes; HTTP: the answers each exchange carried. */
  #commitNotice(o: Observed, json: Record<string, unknown>): void {
    if (json.method === 'notifications/progress' && isObject(json.params) && typeof json.params.progress === 'number') {
      const p = this.progress.get(JSON.stringify(json.params.progressToken));
      if (p) p.last = json.params.progress;
    }
    if (json.method === 'notifications/cancelled' && o.msg.direction === 'client-to-server' && isObject(json.params)) {
      this.cancelled.add(idKey(json.params.requestId));
      forgetOldest(this.cancelled, PER_REQUEST_KEPT);
      for (const p of this.progress.values()) if (p.requestKey === idKey(json.params.requestId)) p.cancelled = true;
    }
    if (typeof json.method === 'string' && json.method.endsWith('/list_changed') && o.msg.direction === 'server-to-client') {
      this.listChanged.add(json.method.split('/')[1]!); // notifications/tools/list_changed → tools
    }
    if (o.msg.http && (json.result !== undefined || json.error !== undefined) && o.msg.direction === 'server-to-client') {
      this.responsesInExchange.set(o.msg.http.exchange, (this.responsesInExchange.get(o.msg.http.exchange) ?? 0) + 1);
    }
  }

  /** What a result shows of the server: its revision, capabilities, lists, cursors, the state
   * and ids it handed out, its MRTR rounds and tools. */
  #commitResult(o: Observed, request: PendingRequest, result: Record<string, unknown>): void {
    if (o.msg.direction === 'server-to-client' && modernResult(request.method, result)) this.context.speaksModern = true;
    if (request.method === 'initialize' && typeof result.protocolVersion === 'string') this.legacyRevision = result.protocolVersion;
    if ((request.method === 'initialize' || request.method === 'server/discover') && isObject(result.capabilities))
      this.context.serverCapabilities = result.capabilities;
    if (request.method === 'server/discover' && Array.isArray(result.supportedVersions))
      this.context.supportedVersions = result.supportedVersions.filter((v): v is string => typeof v === 'string');
    const list = LIST_KEYS[request.method];
    if (list && Array.isArray(result[list]) && !(isObject(request.json.params) && request.json.params.cursor !== undefined)) {
      const authorization = this.header(request.msg, 'authorization');
      this.lastList.set(request.method, {
        seq: o.msg.seq,
        session: this.session.id,
        ...(o.msg.http ? { exchange: o.msg.http.exchange } : {}),
        items: result[list] as unknown[],
        ...(authorization ? { authorization } : {}),
      });
      this.listChanged.delete(list);
    }
    if (typeof result.nextCursor === 'string') {
      const set = this.cursors.get(request.method) ?? new Set<string>();
      set.add(result.nextCursor);
      forgetOldest(set, PER_REQUEST_KEPT);
      this.cursors.set(request.method, set);
    }
    if (typeof result.requestState === 'string') this.handedOut.push({ field: 'requestState', value: result.requestState });
    if (request.method === 'tools/call' && isObject(request.json.params) && typeof request.json.params.name === 'string')
      this.handedOut.push(...handedOutIds(request.json.params.name, result));
    if (this.handedOut.length > HANDED_OUT_KEPT) this.handedOut.splice(0, HANDED_OUT_KEPT / 2);
    if (result.resultType === 'input_required') {
      const inputRequests = isObject(result.inputRequests) ? result.inputRequests : {};
      this.issuedState.set(mrtrKey(request.json), {
        ...(typeof result.requestState === 'string' ? { state: result.requestState } : {}),
        id: request.json.id,
        kinds: Object.values(inputRequests)
          .filter(isObject)
          .map((r) => String(r.method)),
        keys: Object.keys(inputRequests),
      });
      forgetOldest(this.issuedState, PER_REQUEST_KEPT);
    }
    if (request.method === 'tools/list' && Array.isArray(result.tools)) {
      const isFirstPage = !(isObject(request.json.params) && request.json.params.cursor !== undefined);
      if (isFirstPage) this.tools.clear();
      for (const t of result.tools) if (isObject(t) && typeof t.name === 'string') this.tools.set(t.name, t);
    }
  }
}

/** Where an earlier answer the context keeps was seen, as a finding's message names it: its seq
 * in this session, or the HTTP exchange (whose number is the same live and offline) when it came
 * from another exchange of the recording. */
export function seenAt(at: { seq: number; session: string; exchange?: number }, state: SessionState): string {
  return at.session === state.session.id || at.exchange === undefined ? `message #${at.seq}` : `the answer of HTTP exchange ${at.exchange}`;
}

let slotCount = 0;

/**
 * A slot of rule-private memory in every session: the returned function gives this session's
 * value, made by `init` on first use. (A WeakMap keyed by the session did the same, but cost a
 * hash lookup on every use and an ephemeron for the garbage collector per session.)
 */
export function sessionSlot<T>(init: () => T): (state: SessionState) => T {
  const i = slotCount++;
  return (state) => {
    let v = state.slots[i] as T | undefined;
    if (v === undefined) state.slots[i] = v = init();
    return v;
  };
}

let exchangeSlotCount = 0;

/** Rule-private memory keyed by HTTP exchange, like sessionSlot, but an exchange's entry is let go
 * once the exchange is over and judged (SessionState.forgetExchange). */
export function exchangeSlot<V>(): (state: SessionState) => Map<number, V> {
  const i = exchangeSlotCount++;
  return (state) => (state.exchangeSlots[i] ??= new Map()) as Map<number, V>;
}
