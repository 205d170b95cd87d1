/**
 * Sequence mutations: recorded requests sent in an order the recording never had. A request
 * before the 2025 handshake, a call cancelled while it runs, an MRTR retry sent twice (the same
 * `inputResponses` and `requestState`), a request sent again with the same id while the first is
 * in flight, and several requests in flight at once. Each ends with a request that must be
 * answered, so a server that a bad order wedged is seen as hung rather than as quiet.
 */
import { paramsOf, type Plan } from '../probes/plan.js';
import { initializeFor } from '../probes/support.js';
import { type CaseFactory, type Era, type GenerateOptions, liveness, resend, sendable, toolFacts } from './case-kit.js';
import { type ProtocolBase, protocolBases } from './mutate-protocol.js';
import type { Random } from './random.js';
import { toStep } from './raw-json.js';
import type { FuzzCase, FuzzStep, Json } from './types.js';

/** At most this many requests in flight at once (the `pipelined` case). */
const PIPELINE = 8;

function named(request: Json): string {
  const p = paramsOf(request);
  return `${String(request.method)}${typeof p.name === 'string' ? `:${p.name}` : ''}`;
}

function sequenceCase(
  mutation: string,
  subject: string,
  era: Era,
  change: string,
  steps: FuzzStep[],
  extra: Partial<FuzzCase> = {},
): FuzzCase {
  return { id: `sequence/${mutation}/${subject}@${era}`, family: 'sequence', mutation, change, era, steps, ...extra };
}

/** The steps, then the request that must be answered (numbered after them). */
function thenLive(plan: Plan, era: Era, steps: FuzzStep[], id: number): FuzzStep[] {
  const live = liveness(plan, era, id);
  return live ? [...steps, toStep(live)] : steps;
}

/** 2025: the request on a connection with no handshake, then the handshake and the request again. */
function beforeHandshake(plan: Plan, base: ProtocolBase): FuzzCase {
  return sequenceCase(
    'before-handshake',
    named(base.request),
    'legacy',
    `the recorded ${named(base.request)} sent before initialize, then the handshake and the request again`,
    [
      toStep(resend(base.request, 1), 'none'),
      toStep(initializeFor({ plan }, 2)),
      toStep({ jsonrpc: '2.0', method: 'notifications/initialized' }, 'none'),
      toStep(resend(base.request, 3)),
    ],
    { beforeHandshake: true, ...toolFacts(plan, base.request) },
  );
}

function cancelled(requestId: unknown): Json {
  return { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'mcp-cassette fuzz' } };
}

/** The call, its cancellation before the answer is awaited, then a request that must be answered. */
function cancelMidCall(plan: Plan, base: ProtocolBase): FuzzCase {
  return sequenceCase(
    'cancel-mid-call',
    named(base.request),
    base.era,
    `the recorded ${named(base.request)} cancelled (notifications/cancelled) without waiting for its answer`,
    thenLive(plan, base.era, [toStep(resend(base.request, 1), 'none'), toStep(cancelled(1), 'none')], 2),
    toolFacts(plan, base.request),
  );
}

/** A cancellation naming a request that was never sent. */
function cancelUnknown(plan: Plan, era: Era): FuzzCase {
  return sequenceCase(
    'cancel-unknown-id',
    'notifications/cancelled',
    era,
    'notifications/cancelled for a request id never sent',
    thenLive(plan, era, [toStep(cancelled('mcp-cassette-fuzz-never-sent'), 'none')], 1),
  );
}

/** The same request twice with one id, the second sent while the first is in flight. */
function duplicateId(plan: Plan, base: ProtocolBase): FuzzCase {
  const message = resend(base.request, 1);
  return sequenceCase(
    'duplicate-id',
    named(base.request),
    base.era,
    `the recorded ${named(base.request)} sent twice with the same id, the second before the first was answered`,
    thenLive(plan, base.era, [toStep(message, 'none'), toStep(message)], 2),
    { fixedIds: true, ...toolFacts(plan, base.request) },
  );
}

/** Several recorded requests in flight at once, then one that must be answered. */
function pipelined(plan: Plan, era: Era, bases: ProtocolBase[], subject: string): FuzzCase {
  const steps = bases.map((b, i) => toStep(resend(b.request, i + 1), 'none'));
  return sequenceCase(
    'pipelined',
    subject,
    era,
    `${bases.map((b) => named(b.request)).join(', ')} sent without waiting for any answer`,
    thenLive(plan, era, steps, bases.length + 1),
  );
}

/** The systematic pass: each sequence once per recorded request it applies to. */
export function sequenceCases(plan: Plan, options: GenerateOptions): CaseFactory[] {
  const out: CaseFactory[] = [];
  const bases = protocolBases(plan, options);
  for (const base of bases) {
    if (base.era === 'legacy') out.push(() => beforeHandshake(plan, base));
    out.push(
      () => cancelMidCall(plan, base),
      () => duplicateId(plan, base),
    );
  }
  for (const era of new Set(bases.map((b) => b.era))) {
    out.push(() => cancelUnknown(plan, era));
    const mine = bases.filter((b) => b.era === era).slice(0, PIPELINE);
    if (mine.length > 1) out.push(() => pipelined(plan, era, mine, 'recorded'));
  }
  for (const round of plan.mrtr) {
    const retry = round.retry?.request;
    if (!retry || !sendable(plan, retry, options)) continue;
    out.push(() =>
      sequenceCase(
        'mrtr-repeat',
        named(retry),
        'modern',
        `the recorded MRTR retry of ${named(retry)} (inputResponses${'requestState' in paramsOf(retry) ? ', requestState' : ''}) sent twice`,
        [toStep(resend(retry, 1)), toStep(resend(retry, 2))],
        toolFacts(plan, retry),
      ),
    );
  }
  return out;
}

/** A random sequence for the endless stream: a random burst of recorded requests in flight at
 * once (some repeated), or a random cancellation or duplicate id. Undefined when nothing may be
 * sent. */
export function randomSequenceCase(plan: Plan, random: Random, options: GenerateOptions, n: number): FuzzCase | undefined {
  const bases = protocolBases(plan, options);
  if (!bases.length) return undefined;
  const base = random.pick(bases);
  const kind = random.int(3);
  const c =
    kind === 0
      ? cancelMidCall(plan, base)
      : kind === 1
        ? duplicateId(plan, base)
        : pipelined(
            plan,
            base.era,
            Array.from({ length: 2 + random.int(PIPELINE - 1) }, () => random.pick(bases.filter((b) => b.era === base.era))),
            'random',
          );
  return { ...c, id: `${c.id}#${n}` };
}
