/**
 * Protocol mutations: the JSON-RPC and MCP envelope of a recorded request that is safe to re-send
 * changed one thing at a time. Ids a server may mishandle (0, negative, fractional, past 2^53,
 * huge, Unicode, null), the 2026-07-28 `_meta` the probes check (version-probes.ts: a version no
 * server supports, protocolVersion and clientCapabilities missing) and worse (wrong types,
 * `_meta` not an object), a 2025 `initialize` naming an unknown or empty version, `jsonrpc` not
 * "2.0", an unknown method, and a duplicate key only raw text can say. Where the answer cannot be
 * matched to the request (no usable id, an envelope JSON-RPC refuses), the case goes on at once
 * and ends with a request that must be answered, so a server that went quiet is seen.
 */
import { isObject } from '../../lib/plain-object.js';
import { PV, CAPS, INFO, type Plan } from '../probes/plan.js';
import { initializeFor, safeRequest } from '../probes/support.js';
import { UNKNOWN_METHOD } from '../probes/transport-probes.js';
import { UNSUPPORTED_VERSION } from '../probes/version-probes.js';
import {
  type CaseFactory,
  type Era,
  type GenerateOptions,
  erasOf,
  firstOfEach,
  isRetry,
  liveness,
  resend,
  sendable,
  toolFacts,
} from './case-kit.js';
import type { Random } from './random.js';
import { RawValue, rawText, toStep } from './raw-json.js';
import { PAST_2_53 } from './schema-values.js';
import type { FuzzCase, FuzzStep, Json } from './types.js';

interface ProtocolMutation {
  name: string;
  /** Mutations of one group are not combined (two ids, two `_meta`s). */
  group: 'id' | 'meta' | 'envelope';
  /** Only requests of this era carry what it changes (`_meta` is 2026-07-28's). */
  era?: Era;
  /** Changes the copy (its params and `_meta` are copies already). */
  edit(message: Json): void;
  /** The answer may not name the request's id: go on at once, then check the server answers. */
  unmatched?: boolean;
  /** The id is the mutation: the engine must send it as it is. */
  fixesId?: boolean;
}

/** The copy's `_meta` (made an object when the recorded request had none). */
function meta(message: Json): Json {
  const params = message.params as Json;
  if (!isObject(params._meta)) params._meta = {};
  return params._meta as Json;
}

function id(name: string, value: unknown, unmatched = false): ProtocolMutation {
  return { name, group: 'id', edit: (m) => (m.id = value), fixesId: true, ...(unmatched ? { unmatched } : {}) };
}

function metaField(name: string, key: string, value: unknown): ProtocolMutation {
  return {
    name,
    group: 'meta',
    era: 'modern',
    edit(m) {
      if (value === undefined) delete meta(m)[key];
      else meta(m)[key] = value;
    },
  };
}

export const PROTOCOL_MUTATIONS: readonly ProtocolMutation[] = [
  id('id-string', 'mcp-cassette-fuzz-id'),
  id('id-zero', 0),
  id('id-negative', -1),
  id('id-fraction', 1.5),
  id('id-past-2^53', new RawValue(Number(PAST_2_53), PAST_2_53)),
  id('id-long-string', 'i'.repeat(64 * 1024)),
  id('id-unicode', '\u202Eid\u0000\u{1F600}\u0301'),
  id('id-null', null, true),
  metaField('meta-version-missing', PV, undefined),
  metaField('meta-version-unknown', PV, UNSUPPORTED_VERSION),
  metaField('meta-version-empty', PV, ''),
  metaField('meta-version-wrong-type', PV, 20260728),
  metaField('meta-version-legacy', PV, '2025-11-25'),
  metaField('meta-capabilities-missing', CAPS, undefined),
  metaField('meta-capabilities-wrong-type', CAPS, 'all'),
  metaField('meta-client-info-wrong-type', INFO, 42),
  { name: 'meta-not-object', group: 'meta', era: 'modern', edit: (m) => ((m.params as Json)._meta = 'mcp-cassette-fuzz') },
  { name: 'meta-null', group: 'meta', era: 'modern', edit: (m) => ((m.params as Json)._meta = null) },
  { name: 'jsonrpc-wrong', group: 'envelope', edit: (m) => (m.jsonrpc = '1.0'), unmatched: true },
  { name: 'jsonrpc-number', group: 'envelope', edit: (m) => (m.jsonrpc = 2), unmatched: true },
  {
    name: 'jsonrpc-missing',
    group: 'envelope',
    edit: (m) => {
      delete m.jsonrpc;
    },
    unmatched: true,
  },
  { name: 'unknown-method', group: 'envelope', edit: (m) => (m.method = UNKNOWN_METHOD) },
  { name: 'params-not-object', group: 'envelope', edit: (m) => (m.params = ['mcp-cassette-fuzz']) },
];

/** A recorded request that a protocol case starts from. */
export interface ProtocolBase {
  era: Era;
  request: Json;
}

/** Per plan, with and without side effects: the random stream asks for every case. */
const basesOf = new WeakMap<Plan, Map<boolean, ProtocolBase[]>>();

/** The first recorded request of each method (and tool or prompt) per era that may be re-sent. */
export function protocolBases(plan: Plan, options: GenerateOptions): ProtocolBase[] {
  let byFlag = basesOf.get(plan);
  if (!byFlag) basesOf.set(plan, (byFlag = new Map()));
  let bases = byFlag.get(options.allowSideEffects);
  if (!bases)
    byFlag.set(
      options.allowSideEffects,
      (bases = erasOf(plan).flatMap((era) =>
        firstOfEach(plan, era, (c) => sendable(plan, c.request, options) && !isRetry(c.request)).map((c) => ({ era, request: c.request })),
      )),
    );
  return bases;
}

function baseName(base: ProtocolBase): string {
  const p = base.request.params as Json | undefined;
  const name = typeof p?.name === 'string' ? `:${p.name}` : '';
  return `${String(base.request.method)}${name}@${base.era}`;
}

function applicable(m: ProtocolMutation, era: Era): boolean {
  return m.era === undefined || m.era === era;
}

function mutatedCase(plan: Plan, base: ProtocolBase, mutations: ProtocolMutation[], caseId: string, mutation: string): FuzzCase {
  const message = resend(base.request, 1);
  for (const m of mutations) m.edit(message);
  const unmatched = mutations.some((m) => m.unmatched);
  const steps: FuzzStep[] = [toStep(message, unmatched ? 'none' : undefined)];
  const live = unmatched ? liveness(plan, base.era, 2) : undefined;
  if (live) steps.push(toStep(live));
  const c: FuzzCase = {
    id: caseId,
    family: 'protocol',
    mutation,
    change: `${mutations.map((m) => m.name).join(' + ')} on the recorded ${baseName(base)}`,
    era: base.era,
    steps,
  };
  if (mutations.some((m) => m.fixesId)) c.fixedIds = true;
  return { ...c, ...toolFacts(plan, message) };
}

/** The same request with its `id` member written twice (`"id":1,"id":2`): JSON leaves duplicate
 * names undefined, so parsers differ on which one counts. Only raw text can send it. */
function duplicateKey(plan: Plan, base: ProtocolBase): FuzzCase {
  const text = rawText(resend(base.request, 2)).replace(/^\{/, '{"id":1,');
  // The message is what JSON.parse makes of it: the last "id" wins, in the first one's place.
  const message = JSON.parse(text) as Json;
  const live = liveness(plan, base.era, 3);
  return {
    id: `protocol/duplicate-id-key/${baseName(base)}`,
    family: 'protocol',
    mutation: 'duplicate-id-key',
    change: `the member "id" written twice (1, then 2) in the recorded ${baseName(base)}`,
    era: base.era,
    steps: [{ message, raw: text, wait: 'none' }, ...(live ? [toStep(live)] : [])],
    fixedIds: true,
    ...toolFacts(plan, message),
  };
}

/** A 2025 handshake whose `initialize` names a version the server cannot know, or none: sent on a
 * connection with no handshake made, then `notifications/initialized` and a recorded request. */
const HANDSHAKE: readonly [string, (params: Json) => void][] = [
  ['initialize-version-unknown', (p) => (p.protocolVersion = UNSUPPORTED_VERSION)],
  ['initialize-version-empty', (p) => (p.protocolVersion = '')],
  ['initialize-version-wrong-type', (p) => (p.protocolVersion = 20251125)],
  [
    'initialize-version-missing',
    (p) => {
      delete p.protocolVersion;
    },
  ],
  ['initialize-version-modern', (p) => (p.protocolVersion = '2026-07-28')],
];

function handshakeCase(plan: Plan, name: string, edit: (params: Json) => void, after: Json): FuzzCase {
  const init = initializeFor({ plan }, 1);
  const params: Json = { ...(init.params as Json) };
  edit(params);
  return {
    id: `protocol/${name}/initialize@legacy`,
    family: 'protocol',
    mutation: name,
    change: `${name} in the recorded initialize, then notifications/initialized and the recorded ${String(after.method)}`,
    era: 'legacy',
    beforeHandshake: true,
    steps: [toStep({ ...init, params }), toStep({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'none'), toStep(resend(after, 2))],
  };
}

/** The systematic pass: every mutation once on every base it applies to, and the handshake
 * mutations once on a 2025 connection. */
export function protocolCases(plan: Plan, options: GenerateOptions): CaseFactory[] {
  const out: CaseFactory[] = [];
  for (const base of protocolBases(plan, options)) {
    for (const m of PROTOCOL_MUTATIONS)
      if (applicable(m, base.era)) out.push(() => mutatedCase(plan, base, [m], `protocol/${m.name}/${baseName(base)}`, m.name));
    out.push(() => duplicateKey(plan, base));
  }
  if (erasOf(plan).includes('legacy')) {
    // A recorded request shows what the handshake left; ping when none may be re-sent.
    const after = safeRequest(plan, 'legacy') ?? { jsonrpc: '2.0', id: 2, method: 'ping' };
    for (const [name, edit] of HANDSHAKE) out.push(() => handshakeCase(plan, name, edit, after));
  }
  return out;
}

/** A random combination for the endless stream: two or three mutations of different groups on a
 * random base. Undefined when the plan has no base. */
export function randomProtocolCase(plan: Plan, random: Random, options: GenerateOptions, n: number): FuzzCase | undefined {
  const bases = protocolBases(plan, options);
  if (!bases.length) return undefined;
  const base = random.pick(bases);
  const want = 2 + random.int(2);
  const chosen: ProtocolMutation[] = [];
  for (const m of random.shuffle(PROTOCOL_MUTATIONS.filter((x) => applicable(x, base.era))))
    if (chosen.length < want && !chosen.some((c) => c.group === m.group)) chosen.push(m);
  return mutatedCase(plan, base, chosen, `protocol/combination/${baseName(base)}#${n}`, 'combination');
}
