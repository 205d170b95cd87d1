import { isKnownRevision, isObject, KNOWN_REVISIONS, type KnownRevision } from '../rule.js';
import { gatesFor } from './gates.js';
import type { ValidateFunction } from 'ajv';
import { parserSchema, schemaOf } from './checks.js';
import { compileWithRefs, NOTIFICATION_TYPE, REQUEST_TYPE, schemaProblems, sdkSchema, type Parser } from './sdk.js';

/** One structural problem: a JSON Pointer relative to the checked value, and what is wrong. */
export interface Problem {
  path: string;
  message: string;
}

/** What one message is checked as: the spec type, the value, and where it sits in the message. */
export interface Target {
  type: string;
  value: unknown;
  /** Pointer prefix of `value` inside the message ('' for the whole message, '/result'). */
  at: string;
}

/** The revisions whose structure is checked, oldest first: every one the validator knows. */
export const REVISIONS = KNOWN_REVISIONS;
export type Revision = KnownRevision;
export const isRevision = isKnownRevision;

/**
 * The structure verdict for a value of one spec type under one revision: the SDK's Zod schema,
 * corrected by that revision's gates where the SDK (which models every revision at once) is
 * looser or stricter than the revision. Empty means valid. Unknown types are not judged.
 */
export function typeProblems(type: string, value: unknown, revision: Revision): Problem[] | undefined {
  if (type.endsWith('ResultResponse')) return resultResponseProblems(type.slice(0, -'Response'.length), value, revision);
  const gates = gatesFor(revision);
  const c = checksOf(type, revision);
  const { schema, extra } = c;
  if (!schema && !extra) return undefined;
  // One ajv pass over the SDK schema and the gate's checks together: a valid value ends here,
  // and only an invalid one is judged part by part, to say what is wrong.
  if (c.whole === undefined) c.whole = wholeCheck(c);
  if (c.whole !== null && c.whole(value) === true) return [];
  const out: Problem[] = [];
  if (schema) out.push(...schemaProblems(schema, value));
  if (extra) extra(value, out);
  return gates.untyped && out.length > 0 ? out.filter((p) => !gates.untyped!(type, p.path)) : out;
}

/** What a type is checked with under a revision (found once per type and revision). */
interface TypeChecks {
  schema: Parser | undefined;
  extra: ((value: unknown, out: Problem[]) => void) | undefined;
  /** Both as one JSON Schema, compiled on first use (null: a part has no JSON Schema). Never
   * more lenient than the two: a value it passes has no problems. */
  whole?: ValidateFunction | null;
}

function wholeCheck(c: TypeChecks): ValidateFunction | null {
  const parts = [c.schema && parserSchema(c.schema), c.extra && schemaOf(c.extra)];
  if ((c.schema && parts[0] === undefined) || (c.extra && parts[1] === undefined)) return null;
  return compileWithRefs({ allOf: parts.filter((p) => p !== undefined) });
}
const typeChecks = new Map<Revision, Map<string, TypeChecks>>();
function checksOf(type: string, revision: Revision): TypeChecks {
  let byType = typeChecks.get(revision);
  if (!byType) typeChecks.set(revision, (byType = new Map()));
  let c = byType.get(type);
  if (!c) {
    const gates = gatesFor(revision);
    const own = <T>(table: Record<string, T>): T | undefined => (Object.hasOwn(table, type) ? table[type] : undefined);
    byType.set(type, (c = { schema: own(gates.replace) ?? sdkSchema(type), extra: own(gates.extra) }));
  }
  return c;
}

/** 2026-07-28 types whole result responses: the envelope, and a result of the type or, for the
 * requests that allow it, an InputRequiredResult. */
function resultResponseProblems(resultType: string, value: unknown, revision: Revision): Problem[] | undefined {
  const gates = gatesFor(revision);
  const method = [...REQUEST_TYPE].find(([, t]) => `${t.slice(0, -'Request'.length)}Result` === resultType)?.[0];
  if (revision !== '2026-07-28' || !gates.knows(resultType)) return undefined;
  if (!isObject(value)) return [{ path: '', message: 'a result response is a JSON object' }];
  const out: Problem[] = [];
  if (value.jsonrpc !== '2.0') out.push({ path: '/jsonrpc', message: 'jsonrpc must be "2.0"' });
  if (!(typeof value.id === 'string' || Number.isInteger(value.id)))
    out.push({ path: '/id', message: 'id must be a string or an integer' });
  if (!('result' in value)) return [...out, { path: '/result', message: 'result is required' }];
  const asResult = typeProblems(resultType, value.result, revision) ?? [];
  const alternative =
    method && gates.inputRequiredFor.has(method) ? (typeProblems('InputRequiredResult', value.result, revision) ?? []) : undefined;
  if (asResult.length > 0 && !(alternative && alternative.length === 0))
    out.push(...asResult.map((p) => ({ ...p, path: `/result${p.path}` })));
  return out;
}

/** The result type a request method is answered with under this revision. */
export function resultTypeOf(method: string, revision: Revision): string | undefined {
  const request = REQUEST_TYPE.get(method);
  if (!request) return undefined;
  let byMethod = resultTypes.get(revision);
  if (!byMethod) resultTypes.set(revision, (byMethod = new Map()));
  let named = byMethod.get(method);
  if (named === undefined) {
    const gates = gatesFor(revision);
    named = `${request.slice(0, -'Request'.length)}Result`;
    if (!(sdkSchema(named) || gates.extra[named])) named = 'EmptyResult';
    byMethod.set(method, named);
  }
  return named;
}
const resultTypes = new Map<Revision, Map<string, string>>();

/** 2026-07-28 error responses whose code comes with a defined `data` shape. */
export const CODED_ERRORS: Record<string, string> = {
  '-32020': 'HeaderMismatchError',
  '-32021': 'MissingRequiredClientCapabilityError',
  '-32022': 'UnsupportedProtocolVersionError',
};

/**
 * What a message is checked as. Requests and notifications by their method (the whole message),
 * results by the method of the request they answer (the `result` member), errors as an error
 * response. A 2026-07-28 `input_required` result is an InputRequiredResult.
 */
export function targetOf(json: Record<string, unknown>, revision: Revision, answering?: string): Target | undefined {
  const gates = gatesFor(revision);
  if (typeof json.method === 'string') {
    const type = ('id' in json ? REQUEST_TYPE : NOTIFICATION_TYPE).get(json.method);
    if (!type || !gates.knows(type)) return undefined;
    return { type, value: json, at: '' };
  }
  if ('error' in json && !('result' in json)) {
    const code = isObject(json.error) ? json.error.code : undefined;
    const specific = revision === '2026-07-28' ? CODED_ERRORS[String(code)] : undefined;
    return { type: specific ?? gates.errorType, value: json, at: '' };
  }
  if (!('result' in json) || answering === undefined) return undefined;
  const resultType = isObject(json.result) ? json.result.resultType : undefined;
  if (revision === '2026-07-28' && resultType !== undefined && resultType !== 'complete') {
    // input_required where the method does not allow it is MRTR-METHODS' finding; other result
    // types (CreateTaskResult's "task") come from extensions and ENV-RESULTTYPE-KNOWN judges them.
    if (resultType !== 'input_required' || !gates.inputRequiredFor.has(answering)) return undefined;
    return { type: 'InputRequiredResult', value: json.result, at: '/result' };
  }
  const type = resultTypeOf(answering, revision);
  if (!type || !gates.knows(type)) return undefined;
  return { type, value: json.result, at: '/result' };
}
