/**
 * MCP-aware verdicts: turns the structural difference between a recorded and a live answer into
 * differences that say what changed for a client and how much it matters (breaking, warning,
 * compatible). Both answers are already normalised (see normalise.ts).
 */
import { DEEP_TEXT, MAX_JSON_DEPTH } from '../../lib/json-depth.js';
import { deepEqual, isObject } from '../diff.js';
import { toolSurface } from '../tool-surface.js';
import type { Difference } from '../types.js';
import { toolCallFailure, omit } from './tool-calls.js';
import { genericResult } from './results.js';
import { handshake } from './handshake.js';
import { listSurface } from './lists.js';

export type Json = Record<string, unknown>;

/** JSON-RPC error of 2026-07-28 for a protocol revision the server does not support. */
const UNSUPPORTED_PROTOCOL_VERSION = -32022;

export interface JudgeContext {
  /** The protocol revision the recorded session ran on. */
  revision?: string;
  /** For `initialize`: the revision the replayed client asked for (its recorded request's
   * `protocolVersion`, which replay sends again unchanged). */
  requested?: string;
}

/**
 * Whether a live answer says the server no longer speaks the recorded session's revision: the
 * handshake that succeeded (`initialize`, `server/discover`) now fails, or any request that
 * succeeded is now refused with -32022. Replay stops the session there: every later request
 * would fail for the same reason.
 */
export function isRevisionRefused(method: string, recorded: unknown, live: unknown): boolean {
  const r = isObject(recorded) ? recorded : {};
  const l = isObject(live) ? live : {};
  if (isObject(r.error)) return false;
  if (isObject(l.error)) return method === 'initialize' || method === 'server/discover' || l.error.code === UNSUPPORTED_PROTOCOL_VERSION;
  return answeredAsLegacy(r, l);
}

/** Every 2026-07-28 result carries `resultType`; a server that answers a recorded 2026-07-28
 * request without it took the request for 2025-era traffic. */
function answeredAsLegacy(r: Json, l: Json): boolean {
  return isObject(r.result) && typeof r.result.resultType === 'string' && isObject(l.result) && l.result.resultType === undefined;
}

/** An answer nested deeper than MAX_JSON_DEPTH is compared as its text (lib/json-depth.ts
 * DEEP_TEXT), never walked: any change of that text is a change we cannot describe further. */
function tooDeepChange(r: Record<string, unknown>, l: Record<string, unknown>): Difference[] | undefined {
  const rt = r[DEEP_TEXT];
  const lt = l[DEEP_TEXT];
  if (rt === undefined && lt === undefined) return undefined;
  if (rt === lt) return [];
  // The texts around where they first differ (the whole texts may be megabytes).
  const a = typeof rt === 'string' ? rt : '';
  const b = typeof lt === 'string' ? lt : '';
  let at = 0;
  while (at < a.length && at < b.length && a.charCodeAt(at) === b.charCodeAt(at)) at++;
  const near = (t: unknown) =>
    typeof t !== 'string'
      ? '(not too deep)'
      : `${at > 40 ? '…' : ''}${t.slice(Math.max(0, at - 40), at + 80)}${t.length > at + 80 ? '…' : ''}`;
  return [
    {
      verdict: 'breaking',
      kind: 'too-deep-changed',
      path: '',
      message: `the answer nests deeper than ${MAX_JSON_DEPTH} levels, so it is compared as text, and its text changed at character ${at}`,
      recorded: near(rt),
      live: near(lt),
    },
  ];
}

export function judgeResponse(method: string, recorded: unknown, live: unknown, context: JudgeContext = {}): Difference[] {
  const r = isObject(recorded) ? recorded : {};
  const l = isObject(live) ? live : {};
  const deep = tooDeepChange(r, l);
  if (deep) return deep;
  const rErr = isObject(r.error) ? r.error : undefined;
  const lErr = isObject(l.error) ? l.error : undefined;
  if (isRevisionRefused(method, recorded, live)) return revisionDropped(method, r, l, lErr, context);
  if (method === 'server/discover' && rErr && !lErr) {
    // A 2025-only server that now also speaks 2026-07-28: the recorded client still runs its
    // recorded era (replay plays the recorded `initialize` next), so nothing breaks.
    const versions =
      isObject(l.result) && Array.isArray(l.result.supportedVersions) ? l.result.supportedVersions.join(', ') : 'a newer revision';
    return [
      {
        verdict: 'compatible',
        kind: 'protocol-version-added',
        path: '/result',
        message: `server/discover used to fail (${String(rErr.code)} ${String(rErr.message)}): the server now also speaks ${versions}; recorded 2025-era traffic keeps its era`,
        recorded: rErr,
        live: l.result,
      },
    ];
  }
  if (method === 'tools/call') {
    const failure = toolCallFailure(r, l);
    if (failure) return failure;
  }
  if (rErr || lErr) return errorChanges(r, l, rErr, lErr);
  return resultChanges(method, r, l, context);
}

/** The server no longer speaks the recorded session's revision (isRevisionRefused). */
function revisionDropped(method: string, r: Json, l: Json, lErr: Json | undefined, context: JudgeContext): Difference[] {
  const rev =
    (isObject(r.result) && typeof r.result.protocolVersion === 'string' ? r.result.protocolVersion : undefined) ?? context.revision;
  if (!lErr) {
    return [
      {
        verdict: 'breaking',
        kind: 'protocol-version-dropped',
        path: '/result/resultType',
        message: `the server no longer supports the recorded protocol revision${rev ? ` ${rev}` : ''}: ${method} was answered without resultType, the way a 2025-era server answers`,
        recorded: r.result,
        live: l.result,
      },
    ];
  }
  return [
    {
      verdict: 'breaking',
      kind: 'protocol-version-dropped',
      path: '/error',
      message: `the server no longer supports the recorded protocol revision${rev ? ` ${rev}` : ''}: ${method} now fails with ${String(lErr!.code)} ${String(lErr!.message)}`,
      recorded: r.result,
      live: lErr,
    },
  ];
}

/** Either answer is an error: what changed in it, or that one side now fails or succeeds. */
function errorChanges(r: Json, l: Json, rErr: Json | undefined, lErr: Json | undefined): Difference[] {
  if (rErr && lErr) {
    const out: Difference[] = [];
    if (rErr.code !== lErr.code)
      out.push({
        verdict: 'breaking',
        kind: 'error-code-changed',
        path: '/error/code',
        message: `error code ${String(rErr.code)} became ${String(lErr.code)}`,
        recorded: rErr.code,
        live: lErr.code,
      });
    if (!deepEqual(rErr.message, lErr.message))
      out.push({
        verdict: 'compatible',
        kind: 'error-message-changed',
        path: '/error/message',
        message: 'error message text changed',
        recorded: rErr.message,
        live: lErr.message,
      });
    if (!deepEqual(rErr.data, lErr.data))
      out.push({
        verdict: 'warning',
        kind: 'error-data-changed',
        path: '/error/data',
        message: 'error data changed',
        recorded: rErr.data,
        live: lErr.data,
      });
    return out;
  }
  if (!rErr && lErr) {
    return [
      {
        verdict: 'breaking',
        kind: 'success-became-error',
        path: '/error',
        message: `the request now fails: ${String(lErr.code)} ${String(lErr.message)}`,
        recorded: r.result,
        live: lErr,
      },
    ];
  }
  if (rErr && !lErr) {
    return [
      {
        verdict: 'warning',
        kind: 'error-became-success',
        path: '/result',
        message: `the request used to fail (${String(rErr.code)} ${String(rErr.message)}) and now succeeds`,
        recorded: rErr,
        live: l.result,
      },
    ];
  }
  return [];
}

/** Both answers are results: compared by what the method's result means to a client. */
function resultChanges(method: string, r: Json, l: Json, context: JudgeContext): Difference[] {
  const rRes = isObject(r.result) ? r.result : {};
  const lRes = isObject(l.result) ? l.result : {};
  switch (method) {
    case 'tools/list':
      return [...toolSurface(rRes.tools, lRes.tools), ...genericResult(omit(rRes, 'tools'), omit(lRes, 'tools'))];
    case 'prompts/list':
      return [
        ...listSurface('prompt', 'prompts', 'name', rRes.prompts, lRes.prompts),
        ...genericResult(omit(rRes, 'prompts'), omit(lRes, 'prompts')),
      ];
    case 'resources/list':
      return [
        ...listSurface('resource', 'resources', 'uri', rRes.resources, lRes.resources),
        ...genericResult(omit(rRes, 'resources'), omit(lRes, 'resources')),
      ];
    case 'resources/templates/list':
      return [
        ...listSurface('resource template', 'resourceTemplates', 'uriTemplate', rRes.resourceTemplates, lRes.resourceTemplates),
        ...genericResult(omit(rRes, 'resourceTemplates'), omit(lRes, 'resourceTemplates')),
      ];
    case 'tools/call':
      // Both succeeded (toolCallFailure took every other case).
      return genericResult(omit(rRes, 'isError'), omit(lRes, 'isError'));
    case 'initialize':
    case 'server/discover':
      return handshake(rRes, lRes, context);
    default:
      return genericResult(rRes, lRes);
  }
}
