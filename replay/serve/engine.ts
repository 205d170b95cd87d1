/**
 * The transport-neutral heart of `mcp-cassette serve`: answers live client messages from a
 * cassette. The stdio and HTTP front ends hand it parsed messages and an outlet to write server
 * frames to; it chooses the recorded interaction, plays its frames (progress, logs, server→client
 * requests, the answer) with the caller's id and progress token, checks what the client answers
 * to server→client requests, and keeps the tally that decides the exit status.
 */
import type { Cassette } from '../../lib/cassette/cassette.js';
import type { Logger } from '../../lib/log.js';
import { deepEqual, diffJson, isObject } from '../diff.js';
import { normalise, pointer, type IgnorePattern } from '../normalise.js';
import { interactionsOf, progressTokenOf, type Interaction, type Json, type ServerFrame } from './interactions.js';
import {
  closest, describe, explainDifferences, HANDSHAKE, identityKey, isModern, nameOf, PROTOCOL_META,
  type Difference, type MatchMode,
} from './matcher.js';

/** JSON-RPC error code of a request the cassette cannot answer (implementation-defined range). */
export const NO_MATCH_CODE = -32099;

/** `fast`: no delays. `recorded`: the recorded gaps between frames. `{ factor }`: the recorded
 * gaps divided by `factor` (`x2` plays twice as fast, `x0.5` half as fast). */
export type Timing = 'fast' | 'recorded' | { factor: number };

export function parseTiming(text: string): Timing | undefined {
  if (text === 'fast' || text === 'recorded') return text;
  const m = /^x(\d+(?:\.\d+)?)$/.exec(text);
  if (m && Number(m[1]) > 0) return { factor: Number(m[1]) };
  return undefined;
}

/** Where the engine writes server frames for one request (a stdio pipe, an SSE stream, a JSON body). */
export interface Outlet {
  send(frame: Json): void;
  /** True once the client went away (HTTP connection closed). */
  closed?(): boolean;
  /** HTTP: the headers of the client's request this outlet answers (lower-case names), which a
   * real Streamable HTTP server may need too (`Authorization`, `Mcp-Method`, `Mcp-Param-*`). */
  requestHeaders?: Record<string, string>;
}

/** Answers what the cassette does not hold by asking the real server (record mode
 * `new_episodes`; with an empty cassette, every request: recording and passthrough bridges). */
export interface Fallback {
  forward(request: Json, live: LiveSession, outlet: Outlet): Promise<void>;
  /** A client notification, for the real server when this client already talks to it. */
  notify?(message: Json, live: LiveSession): Promise<void>;
  /** A client→server response that may belong to a request the real server sent. */
  deliver(message: Json, live: LiveSession): boolean;
  /** The client ended its session (HTTP DELETE): end the real server's side of it. */
  release?(live: LiveSession): Promise<void>;
  close(): Promise<void>;
}

export interface ServeOptions {
  match?: MatchMode;
  timing?: Timing;
  ignore?: readonly IgnorePattern[];
  /** How long to wait for the client's answer to a server→client request (ms). */
  answerTimeoutMs?: number;
  logger?: Logger;
  fallback?: Fallback;
}

/** One live client connection (a stdio process, an HTTP session or the stateless HTTP side). */
export class LiveSession {
  revision?: string;
  /** The live `initialize` request, which a fallback server needs for its own handshake. */
  initialize?: Json;
  /** Where frames that belong to no request go (stdout; HTTP: the session's GET stream). */
  outlet?: Outlet;
  /** Waiters for the client's answers to server→client requests; `undefined` means the client
   * went away first. */
  readonly pending = new Map<string, (answer: Json | undefined) => void>();
  readonly cancelled = new Set<string>();
  constructor(readonly id: string) {}
}

export interface UnmatchedReport {
  method: string;
  name?: string;
  message: string;
  closest?: { session: number; seq: number; method: string; name?: string; differences: Difference[] };
}

export interface AnswerMismatch {
  interaction: string;
  method: string;
  message: string;
  differences: Difference[];
}

export interface ServeSummary {
  served: number;
  repeated: number;
  synthesised: number;
  forwarded: number;
  unmatched: UnmatchedReport[];
  answerMismatches: AnswerMismatch[];
  unused: Array<{ session: number; seq: number; method: string; name?: string }>;
  /** The client only probed the protocol revision (`server/discover`) and went away, as the v2
   * SDK's `auto` negotiation does in a process of its own: nothing counts as unused then. */
  probe: boolean;
  /** Unmatched requests or wrong client answers were seen. */
  failed: boolean;
}

export type Plan =
  | { kind: 'matched'; interaction: Interaction; repeated: boolean; revision?: string }
  | { kind: 'synthesised'; response: Json }
  | { kind: 'unmatched'; response: Json; report: UnmatchedReport }
  | { kind: 'forward' };

const idKey = (v: unknown): string => JSON.stringify(v ?? null);

function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Recorded interactions in recorded order, and how many of them are known to be used. Used ones
 * are never unused again, so finding the first unused one costs nothing per request on average
 * (a search from the start each time made serving a cassette quadratic in its size). */
class Cursor {
  #at = 0;
  constructor(readonly list: readonly Interaction[]) {}

  /** The first interaction not in `used`. */
  next(used: ReadonlySet<number>): Interaction | undefined {
    while (this.#at < this.list.length && used.has(this.list[this.#at]!.index)) this.#at += 1;
    return this.list[this.#at];
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class ServeEngine {
  readonly interactions: Interaction[];
  readonly match: MatchMode;
  readonly timing: Timing;
  readonly ignore: readonly IgnorePattern[];
  readonly answerTimeoutMs: number;
  readonly logger?: Logger;
  readonly fallback?: Fallback;
  readonly #used = new Set<number>();
  readonly #keys = new Map<number, string>();
  /** Recorded requests that have an answer, in recorded order, and the same by method. */
  readonly #requests: Interaction[];
  readonly #byMethod = new Map<string, Interaction[]>();
  /** Per method (filled on its first request): its recorded requests by identity key. */
  readonly #byKey = new Map<string, Map<string, Interaction[]>>();
  /** Client notifications with trailing frames, by identity key. */
  readonly #notifications = new Map<string, Cursor>();
  /** What a request may be answered with, by revision, method and key (see #candidatesFor). */
  readonly #candidates = new Map<string, Cursor>();
  /** `--match order`: per revision, the pool the next expected request comes from. */
  readonly #expected = new Map<string | undefined, Cursor>();
  readonly #revisionsSeen = new Set<string>();
  readonly #hasLegacy: boolean;
  /** Requests seen, other than `server/discover`. */
  #asked = 0;
  #discovered = false;
  #summary: Omit<ServeSummary, 'unused' | 'failed' | 'probe'> = { served: 0, repeated: 0, synthesised: 0, forwarded: 0, unmatched: [], answerMismatches: [] };

  constructor(cassette: Cassette, options: ServeOptions = {}) {
    this.interactions = interactionsOf(cassette);
    this.match = options.match ?? 'params';
    this.timing = options.timing ?? 'fast';
    this.ignore = options.ignore ?? [];
    this.answerTimeoutMs = options.answerTimeoutMs ?? 30_000;
    if (options.logger) this.logger = options.logger;
    if (options.fallback) this.fallback = options.fallback;
    this.#requests = this.interactions.filter((it) => !it.notification && it.response);
    for (const it of this.#requests) pushTo(this.#byMethod, it.method, it);
    const notifications = new Map<string, Interaction[]>();
    for (const it of this.interactions) if (it.notification && it.after.length > 0) pushTo(notifications, this.#key(it), it);
    for (const [k, list] of notifications) this.#notifications.set(k, new Cursor(list));
    this.#hasLegacy = cassette.sessions.some((s) => s.protocol.era === 'legacy' || (s.protocol.revision !== undefined && !isModern(s.protocol.revision)));
  }

  #key(it: Interaction): string {
    let k = this.#keys.get(it.index);
    if (k === undefined) {
      k = identityKey(it.request, this.match, this.ignore);
      this.#keys.set(it.index, k);
    }
    return k;
  }

  /** Pools to search, best first: the live revision's sessions (0), the same era's (1), then the
   * other era's (2); undefined when `it` is in none. The other era is left out when a real server
   * can answer in the client's own era (`new_episodes`), and a 2026-07-28 `input_required` result
   * is never served to a 2025-era client, which could not retry it. */
  #poolOf(it: Interaction, revision: string | undefined): number | undefined {
    if (revision === undefined || it.revision === revision) return 0;
    if (isModern(it.revision) === isModern(revision)) return 1;
    if (this.fallback) return undefined;
    const result = it.response?.json.result;
    return isModern(revision) || !isObject(result) || result.resultType !== 'input_required' ? 2 : undefined;
  }

  /** The non-empty pools of `candidates`, best first, each in recorded order. */
  #pools(candidates: readonly Interaction[], revision: string | undefined): Interaction[][] {
    const pools: Interaction[][] = [[], [], []];
    for (const it of candidates) {
      const p = this.#poolOf(it, revision);
      if (p !== undefined) pools[p]!.push(it);
    }
    return pools.filter((p) => p.length > 0);
  }

  /** The recorded requests a request with this method and key may be answered with: those in the
   * best pool that has any, with a cursor to the first unused one. Built once per revision,
   * method and key, so a request costs the same however big the cassette is. */
  #candidatesFor(method: string, key: string, revision: string | undefined): Cursor {
    let keys = this.#byKey.get(method);
    if (!keys) {
      keys = new Map();
      for (const it of this.#byMethod.get(method) ?? []) pushTo(keys, this.#key(it), it);
      this.#byKey.set(method, keys);
    }
    const id = JSON.stringify([revision ?? null, method, key]);
    let c = this.#candidates.get(id);
    if (!c) this.#candidates.set(id, (c = new Cursor(this.#pools(keys.get(key) ?? [], revision)[0] ?? [])));
    return c;
  }

  /** Chooses how to answer one client request. */
  plan(request: Json, live: LiveSession, hints: { revision?: string } = {}): Plan {
    const method = String(request.method);
    const params = isObject(request.params) ? request.params : {};
    const meta = isObject(params._meta) ? params._meta : {};
    const revision = (typeof meta[PROTOCOL_META] === 'string' ? meta[PROTOCOL_META] : undefined) ?? hints.revision ?? live.revision;
    if (method === 'server/discover') this.#discovered = true;
    else this.#asked += 1;

    if (HANDSHAKE.has(method)) {
      const recorded = this.#byMethod.get(method) ?? [];
      const wanted = method === 'initialize' ? (typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined) : revision;
      const fits = (it: Interaction) => {
        const result = it.response?.json.result;
        if (!isObject(result)) return false;
        if (method === 'initialize') return result.protocolVersion === wanted;
        return Array.isArray(result.supportedVersions) && result.supportedVersions.includes(wanted);
      };
      // With a real server behind us (new_episodes), a revision the cassette lacks is its to answer.
      const chosen = recorded.find(fits) ?? (this.fallback ? undefined : recorded.find((it) => it.response?.kind === 'response') ?? recorded[0]);
      if (method === 'initialize') live.initialize = request;
      if (chosen) {
        const result = chosen.response?.json.result;
        if (method === 'initialize' && isObject(result) && typeof result.protocolVersion === 'string') live.revision = result.protocolVersion;
        if (method === 'server/discover' && fits(chosen) && wanted) live.revision = wanted;
        const repeated = this.#used.has(chosen.index);
        return { kind: 'matched', interaction: chosen, repeated, ...(live.revision ? { revision: live.revision } : {}) };
      }
      if (this.fallback) return { kind: 'forward' };
      if (method === 'server/discover' && this.#hasLegacy) {
        // What a 2025-only server answers: the client falls back to `initialize`, which we have.
        return { kind: 'synthesised', response: { jsonrpc: '2.0', id: request.id, error: { code: -32601, message: 'Method not found' } } };
      }
    }
    if (revision) live.revision ??= revision;
    // The revision the client speaks decides which recorded requests count as unused.
    if (revision) this.#revisionsSeen.add(revision);

    const key = identityKey(request, this.match, this.ignore);
    const hits = this.#candidatesFor(method, key, revision);
    let found = hits.next(this.#used);
    let repeated = false;
    if (!found && this.match !== 'strict' && hits.list.length > 0) {
      found = hits.list[hits.list.length - 1];
      repeated = true;
    }
    if (found && this.match === 'order' && !repeated) {
      let pool = this.#expected.get(revision);
      if (!pool) this.#expected.set(revision, (pool = new Cursor((this.#pools(this.#requests, revision)[0] ?? []).filter((it) => !HANDSHAKE.has(it.method)))));
      const expected = pool.next(this.#used);
      if (expected && expected.index !== found.index && this.#key(expected) !== key) {
        return this.#unmatched(request, `out of order: the next recorded request is ${describe(expected)}`, { interaction: expected, differences: this.#differences(expected, request) });
      }
    }
    if (found) return { kind: 'matched', interaction: found, repeated, ...(revision ? { revision } : {}) };
    if (method === 'ping') return { kind: 'synthesised', response: { jsonrpc: '2.0', id: request.id, result: {} } };
    if (this.fallback) return { kind: 'forward' };
    const pool = this.#pools(this.#requests, revision).flat();
    const near = closest(request, pool, this.match, this.ignore);
    const exhausted = near && near.differences.length === 0;
    return this.#unmatched(
      request,
      exhausted ? `every recorded answer to it was already used (--match strict)` : near ? 'no recorded request matches' : 'the cassette holds no requests',
      near,
    );
  }

  #differences(it: Interaction, request: Json): Difference[] {
    return closest(request, [it], this.match, this.ignore)?.differences ?? [];
  }

  #unmatched(request: Json, why: string, near: { interaction: Interaction; differences: Difference[] } | undefined): Plan {
    const name = nameOf(request);
    const what = `${String(request.method)}${name !== undefined ? ` ${JSON.stringify(name)}` : ''}`;
    let message = `mcp-cassette: ${what}: ${why}`;
    if (near) message += `; closest recorded request: ${describe(near.interaction)}; ${explainDifferences(near.differences)}`;
    const report: UnmatchedReport = {
      method: String(request.method),
      ...(name !== undefined ? { name } : {}),
      message,
      ...(near ? {
        closest: {
          session: near.interaction.session,
          seq: near.interaction.seq,
          method: near.interaction.method,
          ...(nameOf(near.interaction.request) !== undefined ? { name: nameOf(near.interaction.request)! } : {}),
          differences: near.differences,
        },
      } : {}),
    };
    const response = {
      jsonrpc: '2.0',
      id: request.id,
      error: { code: NO_MATCH_CODE, message, data: { code: 'MCPC_SERVE_NO_MATCH', ...(report.closest ? { closest: report.closest } : {}) } },
    };
    return { kind: 'unmatched', response, report };
  }

  /** Whether playing the plan sends anything before the answer (HTTP then answers with SSE). */
  streams(plan: Plan, request: Json): boolean {
    if (plan.kind === 'forward') return true;
    if (plan.kind !== 'matched') return false;
    return plan.interaction.during.some((f) => this.#outgoing(f, request) !== undefined);
  }

  /** The frame as the live client must see it, or undefined when it must not be sent. */
  #outgoing(frame: ServerFrame, request: Json | undefined): Json | undefined {
    if (frame.json.method === 'notifications/progress' && request) {
      const token = progressTokenOf(request);
      if (token === undefined) return undefined;
      return { ...frame.json, params: { ...(frame.json.params as Json), progressToken: token } };
    }
    return frame.json;
  }

  #delay(from: number, to: number): Promise<void> | undefined {
    if (this.timing === 'fast') return undefined;
    const gap = (to - from) / (this.timing === 'recorded' ? 1 : this.timing.factor);
    return gap >= 1 ? sleep(gap) : undefined;
  }

  /** Plays a plan: frames while open, the answer with the caller's id, then trailing frames. */
  async play(plan: Plan, request: Json, live: LiveSession, outlet: Outlet): Promise<void> {
    if (plan.kind === 'unmatched') {
      this.#summary.unmatched.push(plan.report);
      this.logger?.warn({ method: request.method }, plan.report.message);
      outlet.send(plan.response);
      return;
    }
    if (plan.kind === 'synthesised') {
      this.#summary.synthesised += 1;
      outlet.send(plan.response);
      return;
    }
    if (plan.kind === 'forward') {
      this.#summary.forwarded += 1;
      await this.fallback!.forward(request, live, outlet);
      return;
    }
    const it = plan.interaction;
    this.#used.add(it.index);
    if (plan.revision) this.#revisionsSeen.add(plan.revision);
    else if (it.revision) this.#revisionsSeen.add(it.revision);
    if (plan.repeated) this.#summary.repeated += 1;
    else this.#summary.served += 1;
    const gone = () => live.cancelled.has(idKey(request.id)) || (outlet.closed?.() ?? false);
    let at = it.t;
    for (const frame of it.during) {
      await this.#delay(at, frame.t);
      at = frame.t;
      if (gone()) return;
      await this.#emit(frame, request, it, live, outlet);
    }
    if (it.response) {
      await this.#delay(at, it.response.t);
      at = it.response.t;
      if (gone()) return;
      outlet.send({ ...it.response.json, id: request.id });
    }
    await this.#playAfter(it, at, request, live, outlet);
  }

  async #playAfter(it: Interaction, at: number, request: Json | undefined, live: LiveSession, outlet: Outlet): Promise<void> {
    for (const frame of it.after) {
      await this.#delay(at, frame.t);
      at = frame.t;
      if (outlet.closed?.()) return;
      await this.#emit(frame, request, it, live, outlet);
    }
  }

  async #emit(frame: ServerFrame, request: Json | undefined, it: Interaction, live: LiveSession, outlet: Outlet): Promise<void> {
    const out = this.#outgoing(frame, request);
    if (!out) return;
    if (frame.kind !== 'request') {
      outlet.send(out);
      return;
    }
    const answer = await new Promise<Json | 'timeout' | undefined>((resolve) => {
      const timer = setTimeout(() => {
        live.pending.delete(idKey(out.id));
        resolve('timeout');
      }, this.answerTimeoutMs);
      live.pending.set(idKey(out.id), (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      outlet.send(out);
    });
    this.#checkAnswer(String(out.method), frame, answer, it);
  }

  #checkAnswer(method: string, frame: ServerFrame, answer: Json | 'timeout' | undefined, it: Interaction): void {
    const where = describe(it);
    if (answer === 'timeout') {
      this.#mismatch(where, method, `the client did not answer ${method} within ${this.answerTimeoutMs} ms (--answer-timeout)`, []);
      return;
    }
    if (!answer) {
      this.#mismatch(where, method, `the client went away without answering ${method}`, []);
      return;
    }
    if (!frame.clientAnswer) return; // nothing recorded to compare with (a cut session)
    const recorded = normalise(frame.clientAnswer, this.ignore);
    const got = normalise(answer, this.ignore);
    if (deepEqual(recorded, got)) return;
    const differences = diffJson(recorded, got).map((c) => ({
      path: pointer(c.path),
      ...(c.recorded !== undefined ? { recorded: c.recorded } : {}),
      ...(c.live !== undefined ? { got: c.live } : {}),
    }));
    this.#mismatch(where, method, `the client answered ${method} differently from the recording (${explainDifferences(differences)})`, differences);
  }

  #mismatch(interaction: string, method: string, message: string, differences: Difference[]): void {
    const full = `mcp-cassette: during ${interaction}: ${message}`;
    this.logger?.warn({ method }, full);
    this.#summary.answerMismatches.push({ interaction, method, message: full, differences });
  }

  /** A client notification: cancellations stop a request; recorded ones release their trailing frames. */
  async notify(message: Json, live: LiveSession, outlet: Outlet): Promise<void> {
    await this.fallback?.notify?.(message, live);
    if (message.method === 'notifications/cancelled' && isObject(message.params)) {
      live.cancelled.add(idKey(message.params.requestId));
      return;
    }
    const recorded = this.#notifications.get(identityKey(message, 'params', this.ignore));
    const it = recorded?.next(this.#used) ?? recorded?.list.find((i) => live.revision === undefined || i.revision === live.revision);
    if (!it) return;
    this.#used.add(it.index);
    await this.#playAfter(it, it.t, undefined, live, outlet);
  }

  /** The client ended its session (HTTP DELETE). */
  async release(live: LiveSession): Promise<void> {
    for (const waiter of live.pending.values()) waiter(undefined);
    live.pending.clear();
    await this.fallback?.release?.(live);
  }

  /** A client→server response: the answer to a server→client request we are waiting on. */
  deliver(message: Json, live: LiveSession): boolean {
    const waiter = live.pending.get(idKey(message.id));
    if (waiter) {
      live.pending.delete(idKey(message.id));
      waiter(message);
      return true;
    }
    return this.fallback?.deliver(message, live) ?? false;
  }

  summary(): ServeSummary {
    const revisions = this.#revisionsSeen;
    const probe = this.#discovered && this.#asked === 0;
    const unused = probe ? [] : this.interactions
      .filter((it) => !it.notification && it.response && !this.#used.has(it.index) && !HANDSHAKE.has(it.method))
      .filter((it) => revisions.size === 0 || (it.revision !== undefined && revisions.has(it.revision)))
      .map((it) => ({ session: it.session, seq: it.seq, method: it.method, ...(nameOf(it.request) !== undefined ? { name: nameOf(it.request)! } : {}) }));
    const s = this.#summary;
    return { ...s, unmatched: [...s.unmatched], answerMismatches: [...s.answerMismatches], unused, probe, failed: s.unmatched.length > 0 || s.answerMismatches.length > 0 };
  }
}

/** The end-of-run summary printed on stderr. */
export function formatSummary(summary: ServeSummary): string {
  const lines = [
    `mcp-cassette serve: ${summary.failed ? 'FAILED' : 'ok'}: ${summary.served} answered from the cassette` +
      (summary.repeated ? `, ${summary.repeated} repeated` : '') +
      (summary.synthesised ? `, ${summary.synthesised} synthesised` : '') +
      (summary.forwarded ? `, ${summary.forwarded} forwarded to the real server` : '') +
      `, ${summary.unmatched.length} unmatched, ${summary.answerMismatches.length} client answer mismatches, ${summary.unused.length} unused`,
  ];
  for (const u of summary.unmatched) lines.push(`  unmatched: ${u.message.replace(/^mcp-cassette: /, '')}`);
  for (const m of summary.answerMismatches) lines.push(`  mismatch: ${m.message.replace(/^mcp-cassette: /, '')}`);
  for (const u of summary.unused.slice(0, 20)) lines.push(`  unused: ${u.method}${u.name !== undefined ? ` ${JSON.stringify(u.name)}` : ''} (session ${u.session}, seq ${u.seq})`);
  if (summary.unused.length > 20) lines.push(`  unused: and ${summary.unused.length - 20} more`);
  return lines.join('\n') + '\n';
}
