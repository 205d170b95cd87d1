/**
 * MCP-aware verdicts: turns the structural difference between a recorded and a live answer into
 * differences that say what changed for a client and how much it matters (breaking, warning,
 * compatible). Both answers are already normalised (see normalise.ts).
 */
import { DEEP_TEXT, MAX_JSON_DEPTH } from '../lib/json-depth.js';
import { deepEqual, diffJson, isObject, type RawChange } from './diff.js';
import { pointer } from './normalise.js';
import { byKey, toolSurface } from './tool-surface.js';
import type { Difference, Verdict } from './types.js';

type Json = Record<string, unknown>;

/** JSON-RPC error of 2026-07-28 for a protocol revision the server does not support. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

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
  if (isRevisionRefused(method, recorded, live)) {
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
    if (rErr.message !== lErr.message)
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

const isToolError = (result: unknown) => isObject(result) && result.isError === true;

/**
 * A `tools/call` where either side failed. A tool can fail two ways: with a JSON-RPC error (what
 * the v2 SDK answers for an unknown tool) or with a result whose `isError` is true (what the v1 SDK
 * and tmcp answer for the same). Both tell the caller and the model that the call failed, so
 * moving between them is a warning; failing where the recording succeeded breaks; succeeding
 * where it failed is a fix (a warning, so the cassette gets updated), never a content change.
 * `undefined` when both succeeded.
 */
function toolCallFailure(r: Json, l: Json): Difference[] | undefined {
  const rErr = isObject(r.error) ? r.error : undefined;
  const lErr = isObject(l.error) ? l.error : undefined;
  const rTool = !rErr && isToolError(r.result);
  const lTool = !lErr && isToolError(l.result);
  const rFailed = Boolean(rErr) || rTool;
  const lFailed = Boolean(lErr) || lTool;
  if (!rFailed && !lFailed) return undefined;
  if (rErr && lErr) return undefined; // two JSON-RPC errors: judged as every other method's
  const described = (err: Json | undefined, result: unknown) =>
    err
      ? `a JSON-RPC error (${String(err.code)} ${String(err.message)})`
      : `an isError result${toolErrorText(result) ? ` ("${toolErrorText(result)}")` : ''}`;
  if (rFailed && lFailed) {
    if (rTool && lTool) {
      const rText = normalisedContent(r.result);
      const lText = normalisedContent(l.result);
      return deepEqual(rText, lText)
        ? []
        : [
            {
              verdict: 'warning',
              kind: 'tool-error-message-changed',
              path: '/result/content',
              message: 'the tool call still fails (isError), with another message',
              recorded: rText,
              live: lText,
            },
          ];
    }
    return [
      {
        verdict: 'warning',
        kind: 'tool-error-form-changed',
        path: lErr ? '/error' : '/result/isError',
        message: `the tool call still fails, now with ${described(lErr, l.result)} instead of ${described(rErr, r.result)} (clients and models see a failure either way)`,
        recorded: rErr ?? r.result,
        live: lErr ?? l.result,
      },
    ];
  }
  if (rFailed) {
    return [
      rErr
        ? {
            verdict: 'warning',
            kind: 'error-became-success',
            path: '/result',
            message: `the tool call used to fail (${String(rErr.code)} ${String(rErr.message)}) and now succeeds`,
            recorded: rErr,
            live: l.result,
          }
        : {
            verdict: 'warning',
            kind: 'tool-call-error-fixed',
            path: '/result/isError',
            message: `the tool call used to fail (isError${toolErrorText(r.result) ? `: "${toolErrorText(r.result)}"` : ''}) and now succeeds`,
            recorded: r.result,
            live: l.result,
          },
    ];
  }
  return [
    lErr
      ? {
          verdict: 'breaking',
          kind: 'success-became-error',
          path: '/error',
          message: `the tool call now fails: ${String(lErr.code)} ${String(lErr.message)}`,
          recorded: r.result,
          live: lErr,
        }
      : {
          verdict: 'breaking',
          kind: 'tool-call-is-error',
          path: '/result/isError',
          message: `the tool call now fails with isError: true${toolErrorText(l.result) ? ` ("${toolErrorText(l.result)}")` : ''}`,
          recorded: r.result,
          live: l.result,
        },
  ];
}

/** The text of a failed call's first text content item, shortened, for messages. */
function toolErrorText(result: unknown): string | undefined {
  const content = isObject(result) && Array.isArray(result.content) ? result.content : [];
  const text = content.find((c): c is Json => isObject(c) && typeof c.text === 'string')?.text as string | undefined;
  if (text === undefined) return undefined;
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

function normalisedContent(result: unknown): unknown {
  return isObject(result) ? result.content : undefined;
}

function omit(o: Json, key: string): Json {
  const { [key]: _drop, ...rest } = o;
  return rest;
}

/** Any other result: additions are compatible, removals and changes break clients that read them;
 * `_meta` changes are warnings. */
function genericResult(recorded: Json, live: Json): Difference[] {
  return diffJson(recorded, live, ['result']).map((c) => fromRaw(c));
}

function fromRaw(c: RawChange): Difference {
  const path = pointer(c.path);
  const inMeta = c.path.includes('_meta');
  if (c.path[1] === 'resultType') {
    return {
      verdict: 'breaking',
      kind: 'result-type-changed',
      path,
      message: `resultType ${JSON.stringify(c.recorded)} became ${JSON.stringify(c.live)}`,
      recorded: c.recorded,
      live: c.live,
    };
  }
  if (c.type === 'added') return { verdict: 'compatible', kind: 'result-field-added', path, message: `${path} was added`, live: c.live };
  const verdict: Verdict = inMeta ? 'warning' : 'breaking';
  const kind = inMeta ? 'result-meta-changed' : c.type === 'removed' ? 'result-field-removed' : 'result-content-changed';
  return {
    verdict,
    kind,
    path,
    message: `${path} ${c.type === 'removed' ? 'was removed' : 'changed'}`,
    recorded: c.recorded,
    live: c.live,
  };
}

/**
 * The negotiated revision, judged by what the replayed client asked for and what the spec allows
 * (2025-11-25, basic/lifecycle, Version Negotiation: "If the server supports the requested protocol
 * version, it MUST respond with the same version. Otherwise, the server MUST respond with another
 * protocol version it supports"). Granting exactly what the client asked for is always fine, even
 * where the recorded server counter-offered an older revision; a counter-offer that differs from
 * the recorded answer may be one the client does not speak (it then disconnects), so it breaks.
 */
function negotiation(r: Json, l: Json, requested: string | undefined): Difference[] {
  if (!('protocolVersion' in r) || r.protocolVersion === l.protocolVersion) return [];
  const base = { path: '/result/protocolVersion', recorded: r.protocolVersion, live: l.protocolVersion };
  if (requested !== undefined && l.protocolVersion === requested) {
    return [
      {
        ...base,
        verdict: 'compatible',
        kind: 'protocol-version-negotiated',
        message: `the server now grants the revision the client asked for, ${requested} (the recorded server counter-offered ${String(r.protocolVersion)})`,
      },
    ];
  }
  const asked = requested !== undefined ? `the client asked for ${requested}; ` : '';
  return [
    {
      ...base,
      verdict: 'breaking',
      kind: 'protocol-version-changed',
      message: `the server no longer negotiates ${String(r.protocolVersion)}: ${asked}it answered ${String(l.protocolVersion)}, which a client that does not speak it refuses`,
    },
  ];
}

/** Capability flags whose loss makes requests fail: a client that subscribed now gets an error. */
const REQUEST_FLAGS = new Set(['subscribe']);

/**
 * One capability difference. A whole capability gone breaks (clients stop using the feature or
 * get errors); one added is compatible. A flag inside one (`listChanged`, `subscribe`) turned off
 * is the same change whether it became `false` or was dropped: losing `subscribe` breaks
 * (resources/subscribe now fails), losing a notification flag is a warning (no more
 * `list_changed`, the lists still answer); a flag turned on is compatible.
 */
function capabilityChange(c: RawChange): Difference[] {
  const path = pointer(c.path);
  const name = c.path.slice(2).join('.');
  const flag = c.path.length > 3 ? c.path.at(-1)! : undefined;
  const on = (v: unknown) => v === true;
  if (
    flag !== undefined &&
    (typeof c.recorded === 'boolean' || typeof c.live === 'boolean' || c.recorded === undefined || c.live === undefined)
  ) {
    if (!on(c.recorded) && on(c.live))
      return [
        {
          verdict: 'compatible',
          kind: 'capability-added',
          path,
          message: `capability ${name} was turned on`,
          recorded: c.recorded,
          live: c.live,
        },
      ];
    if (on(c.recorded) && !on(c.live)) {
      return [
        REQUEST_FLAGS.has(flag)
          ? {
              verdict: 'breaking',
              kind: 'capability-removed',
              path,
              message: `capability ${name} was turned off (clients that use it now get errors)`,
              recorded: c.recorded,
              live: c.live,
            }
          : {
              verdict: 'warning',
              kind: 'capability-changed',
              path,
              message: `capability ${name} was turned off (clients no longer hear of changes)`,
              recorded: c.recorded,
              live: c.live,
            },
      ];
    }
    if (!on(c.recorded) && !on(c.live) && (c.recorded === undefined || c.recorded === false) && (c.live === undefined || c.live === false))
      return []; // off either way
  }
  if (c.type === 'added')
    return [{ verdict: 'compatible', kind: 'capability-added', path, message: `capability ${name} was added`, live: c.live }];
  if (c.type === 'removed')
    return [{ verdict: 'breaking', kind: 'capability-removed', path, message: `capability ${name} was removed`, recorded: c.recorded }];
  return [
    { verdict: 'warning', kind: 'capability-changed', path, message: `capability ${name} changed`, recorded: c.recorded, live: c.live },
  ];
}

function handshake(r: Json, l: Json, context: JudgeContext): Difference[] {
  const out: Difference[] = [...negotiation(r, l, context.requested)];
  if (Array.isArray(r.supportedVersions)) {
    const live = Array.isArray(l.supportedVersions) ? l.supportedVersions : [];
    const lost = r.supportedVersions.filter((v) => !live.includes(v));
    if (lost.length)
      out.push({
        verdict: 'breaking',
        kind: 'protocol-version-dropped',
        path: '/result/supportedVersions',
        message: `the server no longer supports ${lost.join(', ')}`,
        recorded: r.supportedVersions,
        live: l.supportedVersions,
      });
    const gained = live.filter((v) => !(r.supportedVersions as unknown[]).includes(v));
    if (gained.length)
      out.push({
        verdict: 'compatible',
        kind: 'protocol-version-added',
        path: '/result/supportedVersions',
        message: `the server now also supports ${gained.join(', ')}`,
        recorded: r.supportedVersions,
        live: l.supportedVersions,
      });
  }
  for (const c of diffJson(r.capabilities ?? {}, l.capabilities ?? {}, ['result', 'capabilities'])) out.push(...capabilityChange(c));
  const rest = (o: Json) => omit(omit(omit(o, 'protocolVersion'), 'supportedVersions'), 'capabilities');
  for (const c of diffJson(rest(r), rest(l), ['result'])) {
    const path = pointer(c.path);
    // instructions and serverInfo (name, title, icons) are read by hosts and models, not parsed.
    const soft = c.path[1] === 'instructions' || c.path[1] === 'serverInfo' || c.path.includes('_meta');
    if (c.type === 'added')
      out.push({ verdict: 'compatible', kind: 'handshake-field-added', path, message: `${path} was added`, live: c.live });
    else
      out.push({
        verdict: soft ? 'warning' : 'breaking',
        kind: soft ? 'server-info-changed' : 'handshake-changed',
        path,
        message: `${path} ${c.type === 'removed' ? 'was removed' : 'changed'}`,
        recorded: c.recorded,
        live: c.live,
      });
  }
  return out;
}

/** Prompts, resources and resource templates: removal breaks, addition is compatible, other
 * changes (descriptions, titles, mime types) are warnings, a newly required prompt argument breaks. */
function listSurface(noun: string, field: string, key: string, recorded: unknown, live: unknown): Difference[] {
  const out: Difference[] = [];
  const r = byKey(recorded, key);
  const l = byKey(live, key);
  for (const [id, item] of r) {
    const p = `/result/${field}/${id}`;
    const li = l.get(id);
    if (!li) {
      out.push({
        verdict: 'breaking',
        kind: `${noun.replace(' ', '-')}-removed`,
        path: p,
        message: `${noun} "${id}" was removed`,
        recorded: item,
      });
      continue;
    }
    if (noun === 'prompt') {
      const ra = byKey(item.arguments, 'name');
      const la = byKey(li.arguments, 'name');
      for (const [arg, def] of la) {
        if (def.required === true && ra.get(arg)?.required !== true)
          out.push({
            verdict: 'breaking',
            kind: 'prompt-argument-required',
            path: `${p}/arguments/${arg}`,
            message: `prompt "${id}": argument "${arg}" is now required`,
            recorded: ra.get(arg),
            live: def,
          });
        else if (!ra.has(arg))
          out.push({
            verdict: 'compatible',
            kind: 'prompt-argument-added',
            path: `${p}/arguments/${arg}`,
            message: `prompt "${id}": optional argument "${arg}" was added`,
            live: def,
          });
      }
      for (const [arg, def] of ra) {
        if (!la.has(arg))
          out.push({
            verdict: 'breaking',
            kind: 'prompt-argument-removed',
            path: `${p}/arguments/${arg}`,
            message: `prompt "${id}": argument "${arg}" was removed`,
            recorded: def,
          });
      }
    }
    for (const k of new Set([...Object.keys(item), ...Object.keys(li)])) {
      if (k === 'arguments' && noun === 'prompt') continue;
      if (deepEqual(item[k], li[k])) continue;
      out.push({
        verdict: k in item ? 'warning' : 'compatible',
        kind: `${noun.replace(' ', '-')}-changed`,
        path: `${p}/${k}`,
        message: `${noun} "${id}": ${k} ${k in item ? 'changed' : 'was added'}`,
        recorded: item[k],
        live: li[k],
      });
    }
  }
  for (const [id, item] of l) {
    if (!r.has(id))
      out.push({
        verdict: 'compatible',
        kind: `${noun.replace(' ', '-')}-added`,
        path: `/result/${field}/${id}`,
        message: `${noun} "${id}" was added`,
        live: item,
      });
  }
  return out;
}

/**
 * The status of a replayed GET (the client's listen stream) or DELETE (the client ending its
 * 2025 session). Spec 2025-11-25, basic/transports, Streamable HTTP: "The server MUST either
 * return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405
 * Method Not Allowed, indicating that the server does not offer an SSE stream at this endpoint",
 * and for DELETE "The server MAY respond to this request with HTTP 405 Method Not Allowed,
 * indicating that the server does not allow clients to terminate sessions". A 405 is therefore
 * an answer every conforming client must already handle: a server that now gives it where it
 * used to accept the request is a warning (the client loses the stream, or can no longer end the
 * session early; what the stream carried is judged on its own), not a breaking change. Any other
 * 4xx/5xx where the request used to succeed is breaking: 404 says the session is gone, 400 that
 * the request is refused. Two 2xx statuses are the same answer; a 405 that became a 2xx is
 * compatible (the server now offers what it refused).
 */
export function judgeExchangeStatus(method: 'GET' | 'DELETE', recorded: number, live: number): Difference[] {
  if (recorded === live) return [];
  const ok = (s: number) => s >= 200 && s < 300;
  const what = method === 'GET' ? 'the GET that opens the listen stream' : 'the DELETE that ends the session';
  const base = { path: '', recorded, live };
  if (ok(recorded) && ok(live)) return [];
  if (ok(recorded) && live === 405) {
    return [
      method === 'GET'
        ? {
            ...base,
            verdict: 'warning',
            kind: 'listen-stream-refused',
            message: `${what} is now answered 405: the server no longer offers a listen stream (allowed by the spec; whatever it carried now comes elsewhere or not at all)`,
          }
        : {
            ...base,
            verdict: 'warning',
            kind: 'session-termination-refused',
            message: `${what} is now answered 405: the server no longer lets clients end their session (allowed by the spec; the session lives until the server ends it)`,
          },
    ];
  }
  if (recorded === 405 && ok(live)) {
    return [
      {
        ...base,
        verdict: 'compatible',
        kind: method === 'GET' ? 'listen-stream-offered' : 'session-termination-offered',
        message: `${what} used to be answered 405 and now succeeds (${live})`,
      },
    ];
  }
  return [
    {
      ...base,
      verdict: recorded < 400 && live >= 400 ? 'breaking' : 'warning',
      kind: 'http-status-changed',
      message: `HTTP status ${recorded} became ${live} for ${what}`,
    },
  ];
}
