/**
 * How the serve engine (engine.ts) finds the recorded answers a live request may get: the
 * recorded requests indexed by method and identity key, pooled by protocol revision (the live
 * revision's sessions first, then the same era's, then the other era's), with a cursor to the
 * first unused one; and the answer to a request the cassette cannot answer.
 */
import { isObject } from '../diff.js';
import type { IgnorePattern } from '../normalise.js';
import { carryRedactions, hasRedactions } from '../../lib/masked-values.js';
import type { Interaction, Json } from './interactions.js';
import { describe, explainDifferences, HANDSHAKE, identityKey, isModern, nameOf, type Difference, type MatchMode } from './matcher.js';
import type { UnmatchedReport } from './serve-summary.js';

/** JSON-RPC error code of a request the cassette cannot answer (implementation-defined range). */
export const NO_MATCH_CODE = -32099;

export type Plan =
  | { kind: 'matched'; interaction: Interaction; repeated: boolean; revision?: string }
  | { kind: 'synthesised'; response: Json }
  | { kind: 'unmatched'; response: Json; report: UnmatchedReport }
  | { kind: 'forward' };

export function pushTo<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Recorded interactions in recorded order, and how many of them are known to be used. Used ones
 * are never unused again, so finding the first unused one costs nothing per request on average
 * (a search from the start each time made serving a cassette quadratic in its size). */
export class Cursor {
  #at = 0;
  constructor(readonly list: readonly Interaction[]) {}

  /** The first interaction not in `used`. */
  next(used: ReadonlySet<number>): Interaction | undefined {
    while (this.#at < this.list.length && used.has(this.list[this.#at]!.index)) this.#at += 1;
    return this.list[this.#at];
  }
}

/** The recorded requests that have an answer, indexed for choosing one per live request. */
export class RecordedRequests {
  /** In recorded order. */
  readonly list: Interaction[];
  readonly #keys = new Map<number, string>();
  readonly #byMethod = new Map<string, Interaction[]>();
  /** Per method (filled on its first request): its recorded requests by identity key. */
  readonly #byKey = new Map<string, Map<string, Interaction[]>>();
  /** What a request may be answered with, by revision, method and key (see candidatesFor). */
  readonly #candidates = new Map<string, Cursor>();
  /** `--match order`: per revision, the pool the next expected request comes from. */
  readonly #expected = new Map<string | undefined, Cursor>();

  /** `hasFallback`: a real server is behind the cassette (see #poolOf). */
  constructor(
    interactions: readonly Interaction[],
    readonly match: MatchMode,
    readonly ignore: readonly IgnorePattern[],
    readonly hasFallback: boolean,
  ) {
    this.list = interactions.filter((it) => !it.notification && it.response);
    for (const it of this.list) pushTo(this.#byMethod, it.method, it);
  }

  /** The identity key of a recorded message (matcher.ts), computed once. */
  key(it: Interaction): string {
    let k = this.#keys.get(it.index);
    if (k === undefined) {
      k = identityKey(it.request, this.match, this.ignore);
      this.#keys.set(it.index, k);
    }
    return k;
  }

  /**
   * The key a live request is matched by. A recorded request that holds masked values
   * (`[REDACTED]`: the recorder's payload redaction, or a hand edit) matches whatever the live
   * request has there: when no recorded request has the live key, the live params masked the
   * way each such recorded request is masked are tried against it.
   */
  keyOf(method: string, request: Json): string {
    const key = identityKey(request, this.match, this.ignore);
    const masked = this.#masked.get(method) ?? this.#maskedOf(method);
    if (masked.length === 0 || this.#keysOf(method).has(key)) return key;
    for (const it of masked) {
      const k = identityKey({ ...request, params: carryRedactions(it.request.params, request.params) as Json }, this.match, this.ignore);
      if (k === this.key(it)) return k;
    }
    return key;
  }

  /** Per method: its recorded requests that hold masked values. */
  readonly #masked = new Map<string, Interaction[]>();

  #maskedOf(method: string): Interaction[] {
    const list = (this.#byMethod.get(method) ?? []).filter((it) => hasRedactions(it.request.params));
    this.#masked.set(method, list);
    return list;
  }

  #keysOf(method: string): Map<string, Interaction[]> {
    let keys = this.#byKey.get(method);
    if (!keys) {
      keys = new Map();
      for (const it of this.#byMethod.get(method) ?? []) pushTo(keys, this.key(it), it);
      this.#byKey.set(method, keys);
    }
    return keys;
  }

  byMethod(method: string): readonly Interaction[] {
    return this.#byMethod.get(method) ?? [];
  }

  /** Pools to search, best first: the live revision's sessions (0), the same era's (1), then the
   * other era's (2); undefined when `it` is in none. The other era is left out when a real server
   * can answer in the client's own era (`new_episodes`), and a 2026-07-28 `input_required` result
   * is never served to a 2025-era client, which could not retry it. */
  #poolOf(it: Interaction, revision: string | undefined): number | undefined {
    if (revision === undefined || it.revision === revision) return 0;
    if (isModern(it.revision) === isModern(revision)) return 1;
    if (this.hasFallback) return undefined;
    const result = it.response?.json.result;
    return isModern(revision) || !isObject(result) || result.resultType !== 'input_required' ? 2 : undefined;
  }

  /** The non-empty pools of `candidates`, best first, each in recorded order. */
  pools(candidates: readonly Interaction[], revision: string | undefined): Interaction[][] {
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
  candidatesFor(method: string, key: string, revision: string | undefined): Cursor {
    const keys = this.#keysOf(method);
    const id = JSON.stringify([revision ?? null, method, key]);
    let c = this.#candidates.get(id);
    if (!c) this.#candidates.set(id, (c = new Cursor(this.pools(keys.get(key) ?? [], revision)[0] ?? [])));
    return c;
  }

  /** `--match order`: the recorded requests of the revision's best pool, handshakes aside. */
  expected(revision: string | undefined): Cursor {
    let pool = this.#expected.get(revision);
    if (!pool) {
      const requests = (this.pools(this.list, revision)[0] ?? []).filter((it) => !HANDSHAKE.has(it.method));
      this.#expected.set(revision, (pool = new Cursor(requests)));
    }
    return pool;
  }
}

/** The error answer to a request the cassette cannot answer, and its report. */
export function unmatchedPlan(request: Json, why: string, near: { interaction: Interaction; differences: Difference[] } | undefined): Plan {
  const name = nameOf(request);
  const what = `${String(request.method)}${name !== undefined ? ` ${JSON.stringify(name)}` : ''}`;
  let message = `mcp-cassette: ${what}: ${why}`;
  if (near) message += `; closest recorded request: ${describe(near.interaction)}; ${explainDifferences(near.differences)}`;
  const report: UnmatchedReport = {
    method: String(request.method),
    ...(name !== undefined ? { name } : {}),
    message,
    ...(near
      ? {
          closest: {
            session: near.interaction.session,
            seq: near.interaction.seq,
            method: near.interaction.method,
            ...(nameOf(near.interaction.request) !== undefined ? { name: nameOf(near.interaction.request)! } : {}),
            differences: near.differences,
          },
        }
      : {}),
  };
  const response = {
    jsonrpc: '2.0',
    id: request.id,
    error: { code: NO_MATCH_CODE, message, data: { code: 'MCPC_SERVE_NO_MATCH', ...(report.closest ? { closest: report.closest } : {}) } },
  };
  return { kind: 'unmatched', response, report };
}
