/**
 * The transport-neutral heart of `mcp-cassette serve`: answers live client messages from a
 * cassette. The stdio and HTTP front ends hand it parsed messages and an outlet to write server
 * frames to; it chooses the recorded interaction (plan: which recorded requests may answer is
 * request-choice.ts's), plays its frames (progress, logs, server→client requests, the answer)
 * with the caller's id and progress token at the --timing pace (timing.ts), checks what the client
 * answers to server→client requests, and keeps the tally that decides the exit status
 * (serve-summary.ts).
 */
import { progressTokenOf } from '../../lib/progress-token.js';
import type { Cassette } from '../../lib/cassette/cassette.js';
import type { Logger } from '../../lib/log.js';
import { deepEqual, diffJson, isObject } from '../diff.js';
import { normalise, pointer, type IgnorePattern } from '../normalise.js';
import { idKey, interactionsOf, type Interaction, type Json, type ServerFrame } from './interactions.js';
import type { Fallback, LiveSession, Outlet } from './live-session.js';
import {
  closest,
  describe,
  explainDifferences,
  HANDSHAKE,
  identityKey,
  isModern,
  nameOf,
  PROTOCOL_META,
  type Difference,
  type MatchMode,
} from './matcher.js';
import { Cursor, pushTo, RecordedRequests, unmatchedPlan, type Plan } from './request-choice.js';
import { emptyServeSummary, type ServeSummary } from './serve-summary.js';
import { delay, type Timing } from './timing.js';

export interface ServeOptions {
  match?: MatchMode;
  timing?: Timing;
  ignore?: readonly IgnorePattern[];
  /** How long to wait for the client's answer to a server→client request (ms). */
  answerTimeoutMs?: number;
  logger?: Logger;
  fallback?: Fallback;
}

export class ServeEngine {
  readonly interactions: Interaction[];
  readonly match: MatchMode;
  readonly timing: Timing;
  readonly ignore: readonly IgnorePattern[];
  readonly answerTimeoutMs: number;
  readonly logger?: Logger;
  readonly fallback?: Fallback;
  readonly #used = new Set<number>();
  /** Recorded requests that have an answer, indexed by method and key. */
  readonly #requests: RecordedRequests;
  /** Client notifications with trailing frames, by identity key. */
  readonly #notifications = new Map<string, Cursor>();
  readonly #revisionsSeen = new Set<string>();
  readonly #hasLegacy: boolean;
  /** Requests seen, other than `server/discover`. */
  #asked = 0;
  #discovered = false;
  /** The tally so far (`unused`, `probe` and `failed` are decided at the end). */
  #summary: ServeSummary = emptyServeSummary();

  constructor(cassette: Cassette, options: ServeOptions = {}) {
    this.interactions = interactionsOf(cassette);
    this.match = options.match ?? 'params';
    this.timing = options.timing ?? 'fast';
    this.ignore = options.ignore ?? [];
    this.answerTimeoutMs = options.answerTimeoutMs ?? 30_000;
    if (options.logger) this.logger = options.logger;
    if (options.fallback) this.fallback = options.fallback;
    this.#requests = new RecordedRequests(this.interactions, this.match, this.ignore, this.fallback !== undefined);
    const notifications = new Map<string, Interaction[]>();
    for (const it of this.interactions) if (it.notification && it.after.length > 0) pushTo(notifications, this.#requests.key(it), it);
    for (const [k, list] of notifications) this.#notifications.set(k, new Cursor(list));
    this.#hasLegacy = cassette.sessions.some(
      (s) => s.protocol.era === 'legacy' || (s.protocol.revision !== undefined && !isModern(s.protocol.revision)),
    );
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
      const recorded = this.#requests.byMethod(method);
      const wanted = method === 'initialize' ? (typeof params.protocolVersion === 'string' ? params.protocolVersion : undefined) : revision;
      const fits = (it: Interaction) => {
        const result = it.response?.json.result;
        if (!isObject(result)) return false;
        if (method === 'initialize') return result.protocolVersion === wanted;
        return Array.isArray(result.supportedVersions) && result.supportedVersions.includes(wanted);
      };
      // With a real server behind us (new_episodes), a revision the cassette lacks is its to answer.
      const chosen =
        recorded.find(fits) ?? (this.fallback ? undefined : (recorded.find((it) => it.response?.kind === 'response') ?? recorded[0]));
      if (method === 'initialize') live.initialize = request;
      if (chosen) {
        const result = chosen.response?.json.result;
        if (method === 'initialize' && isObject(result) && typeof result.protocolVersion === 'string')
          live.revision = result.protocolVersion;
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

    const key = this.#requests.keyOf(method, request);
    const hits = this.#requests.candidatesFor(method, key, revision);
    let found = hits.next(this.#used);
    let repeated = false;
    if (!found && this.match !== 'strict' && hits.list.length > 0) {
      found = hits.list[hits.list.length - 1];
      repeated = true;
    }
    if (found && this.match === 'order' && !repeated) {
      const expected = this.#requests.expected(revision).next(this.#used);
      if (expected && expected.index !== found.index && this.#requests.key(expected) !== key) {
        const near = { interaction: expected, differences: this.#differences(expected, request) };
        return unmatchedPlan(request, `out of order: the next recorded request is ${describe(expected)}`, near);
      }
    }
    if (found) return { kind: 'matched', interaction: found, repeated, ...(revision ? { revision } : {}) };
    if (method === 'ping') return { kind: 'synthesised', response: { jsonrpc: '2.0', id: request.id, result: {} } };
    if (this.fallback) return { kind: 'forward' };
    const pool = this.#requests.pools(this.#requests.list, revision).flat();
    const near = closest(request, pool, this.match, this.ignore);
    const exhausted = near && near.differences.length === 0;
    return unmatchedPlan(
      request,
      exhausted
        ? `every recorded answer to it was already used (--match strict)`
        : near
          ? 'no recorded request matches'
          : 'the cassette holds no requests',
      near,
    );
  }

  #differences(it: Interaction, request: Json): Difference[] {
    return closest(request, [it], this.match, this.ignore)?.differences ?? [];
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
      await delay(this.timing, at, frame.t);
      at = frame.t;
      if (gone()) return;
      await this.#emit(frame, request, it, live, outlet);
    }
    if (it.response) {
      await delay(this.timing, at, it.response.t);
      at = it.response.t;
      if (gone()) return;
      outlet.send({ ...it.response.json, id: request.id });
    }
    await this.#playAfter(it, at, request, live, outlet);
  }

  async #playAfter(it: Interaction, at: number, request: Json | undefined, live: LiveSession, outlet: Outlet): Promise<void> {
    for (const frame of it.after) {
      await delay(this.timing, at, frame.t);
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
    this.#mismatch(
      where,
      method,
      `the client answered ${method} differently from the recording (${explainDifferences(differences)})`,
      differences,
    );
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
    const unused = probe
      ? []
      : this.interactions
          .filter((it) => !it.notification && it.response && !this.#used.has(it.index) && !HANDSHAKE.has(it.method))
          .filter((it) => revisions.size === 0 || (it.revision !== undefined && revisions.has(it.revision)))
          .map((it) => ({
            session: it.session,
            seq: it.seq,
            method: it.method,
            ...(nameOf(it.request) !== undefined ? { name: nameOf(it.request)! } : {}),
          }));
    const s = this.#summary;
    return {
      ...s,
      unmatched: [...s.unmatched],
      answerMismatches: [...s.answerMismatches],
      unused,
      probe,
      failed: s.unmatched.length > 0 || s.answerMismatches.length > 0,
    };
  }
}
