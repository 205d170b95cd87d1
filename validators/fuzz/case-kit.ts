/**
 * What the three generators (mutate-arguments.ts, mutate-protocol.ts, mutate-sequence.ts) share:
 * a case made on demand (a systematic pass lists hundreds, and only the ones a run reaches are
 * built), copies of recorded requests that never touch the plan's own objects, which recorded
 * request a case may start from, and the request that shows a connection still answers.
 */
import { isObject } from '../../lib/plain-object.js';
import { callsOf, isSafe, paramsOf, type Plan, type RecordedCall } from '../probes/plan.js';
import { recordedMeta, safeRequest } from '../probes/support.js';
import { plainValueOf } from './raw-json.js';
import { judge } from './schema-values.js';
import type { FuzzCase, Json } from './types.js';

export type Era = FuzzCase['era'];

/** A case built when the stream reaches it. */
export type CaseFactory = () => FuzzCase;

export interface GenerateOptions {
  allowSideEffects: boolean;
  hugeStringBytes?: number;
  maxDepth?: number;
}

/** Whether a case may send this recorded request: `--allow-side-effects`, or re-sending it cannot
 * act twice (plan.ts `isSafe`: a read-only method, or a tool annotated `readOnlyHint: true`). */
export function sendable(plan: Plan, request: Json, options: GenerateOptions): boolean {
  return options.allowSideEffects || isSafe(plan, request);
}

/** A copy of a recorded request with another id and params edited on a copy (shallow: the
 * recorded params, arguments and `_meta` objects are copied one level, never changed). */
export function resend(request: Json, id: unknown, edit?: (params: Json) => void): Json {
  const params: Json = { ...paramsOf(request) };
  if (isObject(params.arguments)) params.arguments = { ...params.arguments };
  if (isObject(params._meta)) params._meta = { ...params._meta };
  edit?.(params);
  return { ...request, id, params };
}

/** An MRTR retry (it carries the answers to an earlier round): not a call to start from. */
export function isRetry(request: Json): boolean {
  const p = paramsOf(request);
  return 'inputResponses' in p || 'requestState' in p;
}

/** The first recorded request of each method (and tool or prompt name) in an era: the calls a
 * systematic pass mutates once each. */
export function firstOfEach(plan: Plan, era: Era, accept: (c: RecordedCall) => boolean): RecordedCall[] {
  const seen = new Set<string>();
  const out: RecordedCall[] = [];
  for (const c of callsOf(plan, era)) {
    if (!accept(c)) continue;
    const p = paramsOf(c.request);
    const key = `${String(c.request.method)}|${typeof p.name === 'string' ? p.name : ''}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(c);
  }
  return out;
}

/** The eras the plan has traffic of, modern first. */
export function erasOf(plan: Plan): Era[] {
  const eras: Era[] = [];
  if (plan.modern.length) eras.push('modern');
  if (plan.legacy.length || plan.initialize) eras.push('legacy');
  return eras;
}

/** A request that shows the connection still answers after a mutation: `ping` on a 2025
 * connection; on 2026-07-28, which has no ping, a recorded request that is safe to re-send. */
export function liveness(plan: Plan, era: Era, id: number): Json | undefined {
  if (era === 'legacy') return { jsonrpc: '2.0', id, method: 'ping' };
  const base = safeRequest(plan, 'modern');
  return base ? resend(base, id) : undefined;
}

/** The `_meta` a crafted 2026-07-28 request carries: the recorded envelope. */
export function envelope(plan: Plan, era: Era): Json | undefined {
  return era === 'modern' ? recordedMeta(plan) : undefined;
}

/** ajv's verdict on the arguments a tools/call sends: true when they break the tool's recorded
 * inputSchema, undefined when there is no schema ajv can use. `arguments` left out is judged as
 * `{}` (servers read it so). */
export function argumentsBreak(inputSchema: unknown, params: Json): boolean | undefined {
  if (!isObject(inputSchema)) return undefined;
  const sent = 'arguments' in params ? params.arguments : {};
  let data: unknown = sent;
  if (isObject(sent)) {
    const plain: Json = {};
    for (const [k, v] of Object.entries(sent)) plain[k] = plainValueOf(v);
    data = plain;
  }
  const valid = judge(inputSchema, data);
  return valid === undefined ? undefined : !valid;
}

/** `tool` and `invalidArguments` of a case that sends this message, when it is a tools/call. */
export function toolFacts(plan: Plan, message: Json): Pick<FuzzCase, 'tool' | 'invalidArguments'> {
  if (message.method !== 'tools/call' || !isObject(message.params)) return {};
  const tool = String(message.params.name);
  const broken = argumentsBreak(plan.tools.get(tool)?.inputSchema, message.params);
  return broken === undefined ? { tool } : { tool, invalidArguments: broken };
}
