/**
 * A cassette's plan and a seed in, a deterministic stream of fuzz cases out. First a systematic
 * pass (every argument, protocol and sequence mutation once per tool, property and recorded
 * request it applies to, in an order the seed shuffles), then random combinations without end,
 * so a long `--seconds` run keeps sending new inputs. The same seed gives the same cases in the
 * same order, byte for byte, every time the stream is iterated. Safety: a tools/call of a tool
 * not annotated `readOnlyHint: true` is only produced with `allowSideEffects`; without it each
 * such tool is listed once in `skipped`.
 */
import { callsOf, paramsOf, type Plan, unsafeReason } from '../probes/plan.js';
import { type CaseFactory, type GenerateOptions, erasOf, sendable } from './case-kit.js';
import { argumentCases, argumentSubjects, randomArgumentCase } from './mutate-arguments.js';
import { protocolBases, protocolCases, randomProtocolCase } from './mutate-protocol.js';
import { randomSequenceCase, sequenceCases } from './mutate-sequence.js';
import { createRandom, type Random } from './random.js';
import type { FuzzCase, Json } from './types.js';

export type { GenerateOptions };

export interface SkippedTool {
  tool: string;
  reason: string;
}

export interface GeneratedCases {
  /** Endless unless the plan has nothing that may be sent; each iteration starts over from the
   * seed and gives the same cases. */
  cases: Iterable<FuzzCase>;
  skipped: SkippedTool[];
}

/** Every tool the plan knows (listed, or only called), once each, in the order first seen. */
function toolNames(plan: Plan): string[] {
  const names = new Set(plan.tools.keys());
  for (const era of erasOf(plan))
    for (const c of callsOf(plan, era)) if (c.request.method === 'tools/call') names.add(String(paramsOf(c.request).name));
  return [...names];
}

function skippedTools(plan: Plan, options: GenerateOptions): SkippedTool[] {
  return toolNames(plan)
    .map((tool): Json => ({ jsonrpc: '2.0', id: 0, method: 'tools/call', params: { name: tool } }))
    .filter((request) => !sendable(plan, request, options))
    .map((request) => ({ tool: String(paramsOf(request).name), reason: unsafeReason(plan, request) }));
}

/** The systematic pass, before shuffling. */
function systematic(plan: Plan, options: GenerateOptions): CaseFactory[] {
  const subjects = argumentSubjects(plan).filter((s) => sendable(plan, s.request, options));
  return [...subjects.flatMap((s) => argumentCases(s, options)), ...protocolCases(plan, options), ...sequenceCases(plan, options)];
}

/** One random case of the stream; undefined when the plan gives that family nothing to send. */
type RandomFamily = (random: Random, n: number) => FuzzCase | undefined;

function randomFamilies(plan: Plan, options: GenerateOptions): RandomFamily[] {
  const subjects = argumentSubjects(plan).filter((s) => sendable(plan, s.request, options));
  const families: RandomFamily[] = [];
  if (subjects.length) {
    const args: RandomFamily = (random, n) => randomArgumentCase(random.pick(subjects), random, options, n);
    // Arguments are where most server bugs are: they get half the random cases.
    families.push(args, args);
  }
  if (protocolBases(plan, options).length)
    families.push(
      (random, n) => randomProtocolCase(plan, random, options, n),
      (random, n) => randomSequenceCase(plan, random, options, n),
    );
  return families;
}

function* stream(plan: Plan, seed: number, options: GenerateOptions): Generator<FuzzCase> {
  const random = createRandom(seed);
  const seen = new Set<string>();
  for (const make of random.shuffle(systematic(plan, options))) {
    const c = make();
    // Two recorded rounds of one tool give one id: number the later ones.
    let id = c.id;
    for (let k = 2; seen.has(id); k++) id = `${c.id}~${k}`;
    seen.add(id);
    yield id === c.id ? c : { ...c, id };
  }
  const families = randomFamilies(plan, options);
  // Nothing may be sent: the systematic pass was empty too, and the stream ends.
  if (!families.length) return;
  for (let n = 1; ; n++) {
    const c = random.pick(families)(random, n);
    if (c) yield c;
  }
}

/** The cases for a plan (validators/probes/plan.ts `derivePlan`) and a seed in [0, 2^32). */
export function generateCases(plan: Plan, seed: number, options: GenerateOptions): GeneratedCases {
  return { cases: { [Symbol.iterator]: () => stream(plan, seed, options) }, skipped: skippedTools(plan, options) };
}
