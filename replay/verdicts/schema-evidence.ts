/**
 * Schema evidence: a narrowed input schema weighed against the calls the session replayed. A
 * `tools/list` difference that says a tool's input now refuses something is a claim about callers
 * in general; the session's own `tools/call`s of that tool are evidence about this client. Once a
 * session's interactions are judged (play-outcome.ts), each breaking input narrowing is checked
 * against them, with the recorded arguments validated (ajv) by the recorded and by the live
 * `inputSchema`:
 * - a call the old schema accepts and the new one refuses, that now fails: the narrowing broke it
 *   (it stays breaking, and says which call);
 * - such a call that still succeeds (or answers as recorded): the schema narrowed, the server did
 *   not (a warning that names the call);
 * - no replayed call sends anything the new schema refuses: a warning that says so.
 * A tool the session never called is the last case too (nothing replayed contradicts the schema).
 * A schema ajv cannot compile, and the contract kinds (a new required argument, a removed tool, an
 * input schema no longer an object, every output kind) keep their verdicts.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { pointerKeys } from '../../lib/json-pointer.js';
import { isObject } from '../diff.js';
import { VERDICT_RANK, type Difference, type InteractionResult, type Verdict } from '../types.js';
import { jsonSnippet } from '../../lib/json-snippet.js';

/** The input narrowings replayed calls can disprove (when breaking). */
const WEIGHED = new Set([
  'input-type-narrowed',
  'input-enum-shrunk',
  'input-constraint-tightened',
  'input-additional-properties-closed',
  'input-const-changed',
  'input-items-changed',
  'input-property-removed',
  'input-schema-changed',
]);

/** A `tools/call` of the session, with the arguments the recording (and so the replay) sent. */
export interface ReplayedCall {
  seq: number;
  tool: string;
  arguments: unknown;
  /** Whether the recorded call failed (a JSON-RPC error or `isError: true`). */
  failedWhenRecorded: boolean;
}

/** What a session offers as evidence: its calls and each tool's input schema on both sides. */
export interface SchemaEvidence {
  calls: readonly ReplayedCall[];
  /** Tool name → `inputSchema`, as the recording listed it. */
  recorded: ReadonlyMap<string, unknown>;
  /** Tool name → `inputSchema`, as the live server listed it. */
  live: ReadonlyMap<string, unknown>;
}

/** Kinds that say a call failed where the recorded one did not. */
const NOW_FAILS = new Set(['tool-call-is-error', 'success-became-error']);

/** A validator for `schema` in the dialect its `$schema` names (draft-07 unless 2019-09/2020-12),
 * or `undefined` when ajv cannot compile it (another dialect, an invalid schema). Formats are not
 * asserted (they are annotations). */
function validator(schema: unknown): ValidateFunction | undefined {
  if (!isObject(schema) && typeof schema !== 'boolean') return undefined;
  const { $schema, ...rest } = isObject(schema) ? schema : {};
  const dialect = typeof $schema === 'string' ? $schema : '';
  if (dialect && !/draft-0[67]|2019-09|2020-12/.test(dialect)) return undefined;
  const options = { strict: false, allErrors: true, validateFormats: false, logger: false } as const;
  try {
    return (/2019-09|2020-12/.test(dialect) ? new Ajv2020(options) : new Ajv(options)).compile(isObject(schema) ? rest : schema);
  } catch {
    return undefined;
  }
}

/** The tool a `tools/list` difference is about, and its path inside the tool's `inputSchema`. */
function inputTarget(d: Difference): { tool: string; at: string[] } | undefined {
  const keys = pointerKeys(d.path);
  if (keys[0] !== 'result' || keys[1] !== 'tools' || keys[3] !== 'inputSchema' || keys[2] === undefined) return undefined;
  return { tool: keys[2], at: keys.slice(4) };
}

/** Whether one path lies on the other (an error there is about that part of the schema). */
const related = (a: readonly string[], b: readonly string[]) =>
  a.slice(0, b.length).every((k, i) => k === b[i]) || b.slice(0, a.length).every((k, i) => k === a[i]);

const worstOf = (diffs: readonly Difference[]): Verdict | undefined =>
  diffs.reduce<Verdict | undefined>((w, d) => (!w || VERDICT_RANK[d.verdict] > VERDICT_RANK[w] ? d.verdict : w), undefined);

/** A call the narrowing touches: the old schema accepted its arguments, the new one refuses them,
 * for the reasons at these schema paths. */
interface Refusal {
  call: ReplayedCall;
  result: InteractionResult;
  at: string[][];
}

/** A tool's replayed calls checked against its old and new input schemas. */
interface Weighed {
  /** Calls the new schema refuses and the old one accepted. */
  refused: Refusal[];
}

/**
 * Re-judges the breaking input narrowings of every `tools/list` answer in `interactions` (one
 * session's, judged) against the session's replayed calls, and recomputes the outcome of each
 * interaction it changed. Mutates `interactions`.
 */
export function weighSchemaEvidence(interactions: InteractionResult[], evidence: SchemaEvidence): void {
  const replayed = new Map<number, InteractionResult>();
  for (const i of interactions)
    if (i.method === 'tools/call' && i.seq > 0 && i.outcome !== 'skipped' && i.outcome !== 'unanswered') replayed.set(i.seq, i);
  const weighedTools = new Map<string, Weighed | undefined>();
  /** The tool's replayed calls against both schemas; `undefined` when nothing can be said (a new
   * schema ajv cannot compile). */
  const weigh = (tool: string): Weighed | undefined => {
    if (weighedTools.has(tool)) return weighedTools.get(tool);
    const calls = evidence.calls.filter((c) => c.tool === tool && replayed.has(c.seq));
    const now = validator(evidence.live.get(tool));
    let out: Weighed | undefined;
    if (now) {
      const before = validator(evidence.recorded.get(tool));
      out = { refused: [] };
      for (const call of calls) {
        const args = call.arguments ?? {};
        if (now(args)) continue;
        const at = (now.errors ?? []).map((e) => pointerKeys(e.schemaPath.replace(/^#/, '')));
        // Refused before too: not the narrowing's doing.
        if (!before || before(args)) out.refused.push({ call, result: replayed.get(call.seq)!, at });
      }
    }
    weighedTools.set(tool, out);
    return out;
  };
  for (const list of interactions) {
    if (list.method !== 'tools/list' || !list.differences.some((d) => d.verdict === 'breaking' && WEIGHED.has(d.kind))) continue;
    const weighed = list.differences.filter((d) => d.verdict === 'breaking' && WEIGHED.has(d.kind));
    list.differences = list.differences.map((d) => {
      if (!weighed.includes(d)) return d;
      const target = inputTarget(d);
      const found = target && weigh(target.tool);
      if (!target || !found) return d;
      // A refusal belongs to this difference when one of its reasons lies on its path, or when
      // none of them lies on any weighed difference of the tool (a removed property refused as
      // an unknown one, say).
      const siblings = weighed.map(inputTarget).filter((x) => x?.tool === target.tool);
      const mine = found.refused.filter(
        (r) => r.at.some((at) => related(at, target.at)) || !r.at.some((at) => siblings.some((s) => s && related(at, s.at))),
      );
      const failing = mine.find((r) => r.result.differences.some((x) => NOW_FAILS.has(x.kind)));
      if (failing)
        return {
          ...d,
          message: `${d.message}: #${failing.call.seq} sent ${jsonSnippet(failing.call.arguments ?? {}, 80)}, which the new schema refuses, and it now fails`,
        };
      const r = mine[0];
      if (r) {
        const how = r.call.failedWhenRecorded ? 'it answers as recorded' : 'it still succeeded';
        return {
          ...d,
          verdict: 'warning' as const,
          message: `${d.message} (schema narrowed, calls unaffected: #${r.call.seq} sent ${jsonSnippet(r.call.arguments ?? {}, 80)}, which the new schema refuses, and ${how})`,
        };
      }
      const checked = evidence.calls.filter((c) => c.tool === target.tool && replayed.has(c.seq)).map((c) => `#${c.seq}`);
      return {
        ...d,
        verdict: 'warning' as const,
        message: checked.length
          ? `${d.message} (schema narrowed, and no replayed call sends anything it now refuses: ${checked.join(', ')} checked against the old and the new schema)`
          : `${d.message} (schema narrowed; this session never calls "${target.tool}", so no replayed call sends anything it now refuses)`,
      };
    });
    if (list.outcome !== 'skipped' && list.outcome !== 'unanswered') list.outcome = worstOf(list.differences) ?? 'same';
  }
}
