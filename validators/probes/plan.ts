/**
 * What the probes can work with, derived from a cassette's recorded traffic: the client requests
 * of each era with the answers they drew, the tools the server listed (for input schemas and
 * `readOnlyHint`), the recorded `initialize` to repeat on 2025-era connections, and the MRTR
 * round trips. Nothing here talks to a server.
 */
import type { Cassette, RecordedSession } from '../../lib/cassette/cassette.js';
import { isObject } from '../rule.js';
import type { TransportKind } from '../../lib/cassette/cassette.js';

export type Json = Record<string, unknown>;

export interface RecordedCall {
  request: Json;
  response?: Json;
  /** HTTP: the recorded request headers of the exchange. */
  headers?: Record<string, string>;
  era: 'modern' | 'legacy';
}

export interface MrtrRound {
  /** The first call, which drew `input_required`. */
  first: RecordedCall;
  /** The client's retry with `inputResponses` (and `requestState`), when it was recorded. */
  retry?: RecordedCall;
}

export interface Plan {
  transport: TransportKind;
  modern: RecordedCall[];
  legacy: RecordedCall[];
  /** The params of the recorded 2025 `initialize`, to open 2025-era connections with. */
  initialize?: Json;
  /** Recorded `server/discover` answer (supported versions), when there was one. */
  supportedVersions?: string[];
  tools: Map<string, Json>;
  mrtr: MrtrRound[];
  /** Requests carried an Authorization header, or the server answered 401. */
  usesAuth: boolean;
}

export const META = 'io.modelcontextprotocol/';
export const PV = `${META}protocolVersion`;
export const CAPS = `${META}clientCapabilities`;
export const INFO = `${META}clientInfo`;

/** Methods that only read: re-sending them cannot act twice. */
const READ_METHODS = new Set([
  'server/discover',
  'tools/list',
  'prompts/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/get',
  'completion/complete',
  'ping',
]);

export function metaOf(request: Json): Json | undefined {
  const params = request.params;
  return isObject(params) && isObject(params._meta) ? params._meta : undefined;
}

function isModernRequest(request: Json): boolean {
  return typeof metaOf(request)?.[PV] === 'string';
}

function flat(h: Record<string, string | string[]> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h ?? {})) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The first revision without the 2025 handshake (revisions are dates: they sort by age). */
const MODERN = '2026-07-28';

function sessionCalls(session: RecordedSession, byRevision: boolean): RecordedCall[] {
  const calls: RecordedCall[] = [];
  const pending = new Map<string, RecordedCall>();
  const revision = session.protocol.revision;
  let legacy =
    session.protocol.era === 'legacy' || (byRevision && session.protocol.era === undefined && revision !== undefined && revision < MODERN);
  for (const m of session.messages) {
    if (!isObject(m.json)) continue;
    const json = m.json;
    if (m.direction === 'client-to-server' && m.kind === 'request' && typeof json.method === 'string') {
      if (json.method === 'initialize') legacy = true;
      const exchange = m.http ? session.exchanges?.find((e) => e.id === m.http!.exchange) : undefined;
      const call: RecordedCall = {
        request: json,
        era: isModernRequest(json) ? 'modern' : legacy ? 'legacy' : 'modern',
        ...(exchange ? { headers: flat(exchange.requestHeaders) } : {}),
      };
      calls.push(call);
      // Responses are matched per HTTP exchange (ids repeat across stateless exchanges).
      pending.set(`${m.http?.exchange ?? ''}|${JSON.stringify(json.id)}`, call);
    } else if (m.direction === 'server-to-client' && (m.kind === 'response' || m.kind === 'error')) {
      const key = `${m.http?.exchange ?? ''}|${JSON.stringify(json.id)}`;
      const call = pending.get(key);
      if (call && !call.response) {
        call.response = json;
        pending.delete(key);
      }
    }
  }
  return calls;
}

/**
 * `byRevision`: a session that knows only its revision (each 2025 exchange after the handshake of
 * a stateless Streamable HTTP recording is a session of its own, without `era`) counts by that
 * revision, so its requests are re-sent on a 2025 connection, handshake first (the fuzzer). The
 * probes leave it off: they re-send such requests as they were recorded, with no handshake.
 */
export function derivePlan(cassette: Cassette, byRevision = false): Plan {
  const plan: Plan = {
    transport: cassette.sessions[0]?.transport ?? 'stdio',
    modern: [],
    legacy: [],
    tools: new Map(),
    mrtr: [],
    usesAuth: false,
  };
  for (const session of cassette.sessions) {
    for (const e of session.exchanges ?? []) {
      const h = flat(e.requestHeaders);
      if (h.authorization !== undefined || e.status === 401) plan.usesAuth = true;
    }
    for (const call of sessionCalls(session, byRevision)) {
      const method = call.request.method as string;
      if (method === 'initialize') {
        if (isObject(call.request.params) && !plan.initialize) plan.initialize = call.request.params;
        continue;
      }
      (call.era === 'modern' ? plan.modern : plan.legacy).push(call);
      const result = call.response?.result;
      if (!isObject(result)) continue;
      if (method === 'tools/list' && Array.isArray(result.tools)) {
        for (const t of result.tools) if (isObject(t) && typeof t.name === 'string' && !plan.tools.has(t.name)) plan.tools.set(t.name, t);
      }
      if (method === 'server/discover' && Array.isArray(result.supportedVersions))
        plan.supportedVersions = result.supportedVersions.map(String);
    }
  }
  // MRTR rounds: a modern call that drew input_required, and the later retry of the same method
  // and name that carries inputResponses.
  plan.modern.forEach((call, i) => {
    const r = call.response?.result;
    if (!isObject(r) || r.resultType !== 'input_required') return;
    const name = paramsOf(call.request).name;
    const retry = plan.modern
      .slice(i + 1)
      .find(
        (c) => c.request.method === call.request.method && paramsOf(c.request).name === name && 'inputResponses' in paramsOf(c.request),
      );
    plan.mrtr.push({ first: call, ...(retry ? { retry } : {}) });
  });
  return plan;
}

export function paramsOf(request: Json): Json {
  return isObject(request.params) ? request.params : {};
}

/** Whether re-sending this recorded request cannot act twice: a read-only method, or a tool the
 * server annotated `readOnlyHint: true`. */
export function isSafe(plan: Plan, request: Json): boolean {
  const method = String(request.method);
  if (READ_METHODS.has(method)) return true;
  if (method !== 'tools/call') return false;
  const tool = plan.tools.get(String(paramsOf(request).name));
  return isObject(tool?.annotations) && tool.annotations.readOnlyHint === true;
}

export function unsafeReason(plan: Plan, request: Json): string {
  const name = String(paramsOf(request).name);
  const known = plan.tools.has(name);
  return `re-sending the recorded ${String(request.method)}${request.method === 'tools/call' ? ` of \`${name}\`` : ''} could act twice: ${known ? 'the tool is not annotated readOnlyHint: true' : 'the tool is not in a recorded tools/list, so nothing says it is read-only'} (pass --allow-side-effects to send it)`;
}

/** The era a probe should use: 2026-07-28 when the cassette has modern traffic. */
export function primaryEra(plan: Plan): 'modern' | 'legacy' | undefined {
  return plan.modern.length ? 'modern' : plan.legacy.length || plan.initialize ? 'legacy' : undefined;
}

export function callsOf(plan: Plan, era: 'modern' | 'legacy'): RecordedCall[] {
  return era === 'modern' ? plan.modern : plan.legacy;
}
