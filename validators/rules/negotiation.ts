import { isObject, since, type Observed, type Interest, type Rule } from '../rule.js';
import type { Direction } from '../../lib/message.js';
import { idKey, mrtrKey, revisionOf, sessionSlot, type SessionState } from '../session-state.js';

export type Json = Record<string, unknown>;
export const TASKS = 'io.modelcontextprotocol/tasks';
export const TASK_METHODS = new Set(['tasks/get', 'tasks/update', 'tasks/cancel']);
const MRTR_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);
const LIST_FLAG: Record<string, string> = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' };
/** Server methods and the server capability that gates them (`a.b`: a sub-flag that must be true). */
const SERVER_GATE: Record<string, string> = {
  'tools/list': 'tools', 'tools/call': 'tools', 'prompts/list': 'prompts', 'prompts/get': 'prompts',
  'resources/list': 'resources', 'resources/read': 'resources', 'resources/templates/list': 'resources',
  'resources/subscribe': 'resources.subscribe', 'resources/unsubscribe': 'resources.subscribe',
  'completion/complete': 'completions', 'logging/setLevel': 'logging',
};
/** 2025-era server→client requests and the client capability that gates them. */
const CLIENT_GATE: Record<string, string> = { 'sampling/createMessage': 'sampling', 'elicitation/create': 'elicitation', 'roots/list': 'roots' };

/** A JSON-RPC error response whose id is null or absent. */
const idlessError = (o: Observed): boolean => !!o.json && isObject(o.json.error) && typeof o.json.method !== 'string' && (o.json.id === null || !('id' in o.json));
export const obj = (v: unknown): Json | undefined => (isObject(v) ? v : undefined);
export const params = (json?: Json): Json => obj(json?.params) ?? {};
export const result = (o: Observed): Json | undefined => (o.msg.direction === 'server-to-client' ? obj(o.json?.result) : undefined);
export const clientRequest = (o: Observed): Json | undefined =>
  o.msg.direction === 'client-to-server' && o.json && typeof o.json.method === 'string' && 'id' in o.json ? o.json : undefined;
const isReadableId = (id: unknown): boolean => typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id));
export const extensionsOf = (caps?: Json): Json => obj(caps?.extensions) ?? {};
const has = (caps: Json, gate: string): boolean => {
  const [cap, flag] = gate.split('.') as [string, string?];
  return cap in caps && (!flag || obj(caps[cap])?.[flag] === true);
};
const listed = (caps: Json): string => Object.keys(caps).join(', ') || 'none';
export const canonical = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(canonical).join(',')}]` : isObject(v) ? `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(',')}}` : JSON.stringify(v);

/**
 * What these rules remember of a session beyond the shared SessionState. It follows the engine's
 * rule: a message is folded in only when the next message is checked, so every rule sees the
 * state before the message it judges.
 */
interface Memory {
  last?: Observed;
  /** Client frames whose id could not be read and that no id-less error answered yet (stdio). */
  unreadable: number;
  /** The kind of each side's last frame, and its last notification. */
  lastKind: Partial<Record<Direction, string>>;
  lastNotification: Partial<Record<Direction, { method: string; seq: number }>>;
  /** MRTR-eligible requests (by mrtrKey) whose latest answer had no resultType: read it through
   * `untypedOf`, which first folds in `untypedLater`. */
  untyped: Set<string>;
  /** Answers not folded into `untyped` yet. A request's key (its arguments as JSON) is made only
   * when a retry asks, or when many answers wait: keying every answered call cost more than
   * anything else this memory does, and retries are rare. */
  untypedLater: { request: Json; typed: boolean }[];
  /** The last -32022: what the server said it supports, and the version it refused. */
  refused?: { supported?: string[]; requested?: string; seq: number };
  /** Server capabilities from server/discover, and the seq at which the server's capabilities became known. */
  discovered?: Json;
  capsSeq?: number;
  /** The client's capabilities from a 2025-era initialize. */
  initCaps?: Json;
  /** Whether the last tools/list traversal reached its last page. */
  toolsComplete: boolean;
  /** tools/call request ids answered with a CreateTaskResult (idKey → taskId), and every taskId seen. */
  taskRequests: Map<string, string>;
  taskIds: Set<string>;
  /** inputRequests seen per task: key → what identifies the request (inputIdentity). */
  taskKeys: Map<string, Map<string, string>>;
}

const memories = sessionSlot<Memory>(() => ({ unreadable: 0, lastKind: {}, lastNotification: {}, untyped: new Set(), untypedLater: [], toolsComplete: false, taskRequests: new Map(), taskIds: new Set(), taskKeys: new Map() }));

export function memory(o: Observed, state: SessionState): Memory {
  const m = memories(state);
  if (m.last?.msg !== o.msg) {
    if (m.last) remember(m, m.last);
    m.last = o;
  }
  return m;
}

/** Inputs requested of a task, from a tasks/get result or a task status notification. */
export function taskInputs(o: Observed): { taskId: string; inputRequests: Json; at: string } | undefined {
  const r = result(o);
  if (r && o.request?.method === 'tasks/get' && isObject(r.inputRequests)) {
    const taskId = r.taskId ?? params(o.request.json).taskId;
    return typeof taskId === 'string' ? { taskId, inputRequests: r.inputRequests, at: '/result/inputRequests' } : undefined;
  }
  if (o.msg.direction !== 'server-to-client' || typeof o.json?.method !== 'string' || !o.json.method.startsWith('notifications/tasks')) return undefined;
  const p = params(o.json);
  return typeof p.taskId === 'string' && isObject(p.inputRequests) ? { taskId: p.taskId, inputRequests: p.inputRequests, at: '/params/inputRequests' } : undefined;
}

function untypedOf(m: Memory): Set<string> {
  for (const { request, typed } of m.untypedLater) {
    if (typed) m.untyped.delete(mrtrKey(request));
    else m.untyped.add(mrtrKey(request));
  }
  m.untypedLater.length = 0;
  return m.untyped;
}

function remember(m: Memory, o: Observed): void {
  const json = o.json;
  if (o.msg.channel !== 'stderr') m.lastKind[o.msg.direction] = o.msg.kind;
  if (o.msg.kind === 'notification') m.lastNotification[o.msg.direction] = { method: String(json?.method), seq: o.msg.seq };
  if (o.msg.direction === 'client-to-server') {
    const unreadable = o.msg.kind === 'text' || o.msg.kind === 'non-jsonrpc' || o.msg.kind === 'batch' || (o.msg.kind === 'request' && !isReadableId(json?.id));
    if (unreadable && o.msg.raw?.trim() !== '') m.unreadable++;
    if (json?.method === 'initialize' && isObject(params(json).capabilities)) m.initCaps = params(json).capabilities as Json;
    return;
  }
  const error = obj(json?.error);
  if (idlessError(o) && m.unreadable > 0) m.unreadable--; // it answered an unreadable frame
  if (error?.code === -32022) {
    const data = obj(error.data) ?? {};
    m.refused = {
      ...(Array.isArray(data.supported) ? { supported: data.supported.filter((v): v is string => typeof v === 'string') } : {}),
      ...(typeof data.requested === 'string' ? { requested: data.requested } : {}),
      seq: o.msg.seq,
    };
  }
  const inputs = taskInputs(o);
  if (inputs) {
    const keys = m.taskKeys.get(inputs.taskId) ?? new Map<string, string>();
    for (const [k, v] of Object.entries(inputs.inputRequests)) if (!keys.has(k)) keys.set(k, inputIdentity(v));
    m.taskKeys.set(inputs.taskId, keys);
  }
  const r = result(o);
  if (!r || !o.request) return;
  const method = o.request.method;
  if ((method === 'initialize' || method === 'server/discover') && isObject(r.capabilities)) m.capsSeq = o.msg.seq;
  if (method === 'server/discover' && isObject(r.capabilities)) m.discovered = r.capabilities;
  if (MRTR_METHODS.has(method)) {
    // (a typed answer only removes, which an empty set needs not)
    if (r.resultType === undefined || m.untyped.size > 0 || m.untypedLater.length > 0) {
      m.untypedLater.push({ request: o.request.json, typed: r.resultType !== undefined });
      if (m.untypedLater.length >= 64) untypedOf(m);
    }
  }
  // A page without nextCursor ends the traversal; SessionState.tools then holds every tool.
  if (method === 'tools/list' && Array.isArray(r.tools)) m.toolsComplete = typeof r.nextCursor !== 'string';
  if (r.resultType === 'task' && typeof r.taskId === 'string') {
    m.taskIds.add(r.taskId);
    if (method === 'tools/call') m.taskRequests.set(idKey(o.request.json.id), r.taskId);
  }
}

// Raw JSON: JSON.parse keeps only the last of duplicate keys, so duplicates are found in the text.
/** The keys of the object at `path` in raw JSON text, duplicates kept (undefined if there is none). */
export function rawKeysAt(text: string, path: readonly string[]): string[] | undefined {
  let i = 0;
  const ws = (): void => {
    while (i < text.length && ' \t\r\n'.includes(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    return JSON.parse(text.slice(start, ++i)) as string;
  };
  const value = (depth: number, onPath: boolean): string[] | undefined => {
    ws();
    const c = text[i];
    if (c === '"') return void str();
    if (c !== '{' && c !== '[') {
      while (i < text.length && !',}] \t\r\n'.includes(text[i]!)) i++;
      return undefined;
    }
    i++;
    ws();
    const keys: string[] = [];
    let found: string[] | undefined;
    if (text[i] === (c === '{' ? '}' : ']')) i++;
    else {
      for (;;) {
        let key: string | undefined;
        if (c === '{') {
          ws();
          keys.push((key = str()));
          ws();
          i++; // ':'
        }
        found = value(depth + 1, onPath && depth < path.length && key === path[depth]) ?? found;
        ws();
        if (text[i++] !== ',') break;
      }
    }
    return onPath && depth === path.length && c === '{' ? keys : found;
  };
  try {
    return value(0, true);
  } catch {
    return undefined;
  }
}

/** What `acknowledgment` reads. */
const ACKNOWLEDGED: Interest[] = ['server-request notifications/subscriptions/acknowledged', 'server-notification notifications/subscriptions/acknowledged'];

/** A subscriptions/acknowledged notification: what it grants, and the listen request it answers (when in view). */
function acknowledgment(o: Observed, state: SessionState): { granted: Json; asked?: Json } | undefined {
  if (o.msg.direction !== 'server-to-client' || o.json?.method !== 'notifications/subscriptions/acknowledged') return undefined;
  const p = params(o.json);
  const sub = obj(p._meta)?.['io.modelcontextprotocol/subscriptionId'];
  const listen = sub !== undefined ? state.pending['client-to-server'].get(idKey(sub)) : o.msg.http ? state.exchangeRequest(o.msg.http.exchange) : undefined;
  const asked = listen?.method === 'subscriptions/listen' ? obj(params(listen.json).notifications) : undefined;
  return { granted: obj(p.notifications) ?? {}, ...(asked ? { asked } : {}) };
}

/** List kinds the listen request asked for and the server declared listChanged for, yet the acknowledgment leaves out. */
function listChangedRefused(o: Observed, state: SessionState, kinds: string[]): string[] {
  const ack = acknowledgment(o, state);
  const caps = state.serverCapabilities;
  if (!ack?.asked || !caps) return [];
  return kinds.filter((k) => ack.asked![LIST_FLAG[k]!] === true && obj(caps[k])?.listChanged === true && ack.granted[LIST_FLAG[k]!] !== true);
}

/** What identifies an input request across polls: not its wording, its metadata or a fresh URL. */
export function inputIdentity(request: unknown): string {
  const r = obj(request) ?? {};
  const { _meta: _m, message: _t, url: _u, ...rest } = obj(r.params) ?? {};
  return canonical({ method: r.method, params: rest });
}

/**
 * Envelope, negotiation, capability, tool-name and MRTR rules added after the first catalogue pass
 * (see the rule catalogue (RULES.md)); x-mcp-header and the tasks extension are in extensions.ts.
 */
export const negotiationRules: Rule[] = [
  {
    // No `on`: this rule runs on every message (era all, any transport), and so `memory` sees
    // every message, which it must (it counts each side's frames); the other rules of this file
    // and extensions.ts run only on what they judge.
    id: 'ENV-RESULTTYPE-LEGACY', level: 'MUST', obs: 'N', era: 'all', source: 'basic/index.mdx §ResultType',
    title: 'A result without resultType is complete: the client does not retry it as input_required',
    check(o, report, state) {
      const m = memory(o, state);
      const req = clientRequest(o);
      const p = params(req);
      if (!req || !MRTR_METHODS.has(String(req.method)) || !('inputResponses' in p || 'requestState' in p) || !untypedOf(m).has(mrtrKey(req))) return;
      report('/params', `${String(req.method)} is retried with ${'inputResponses' in p ? 'inputResponses' : 'requestState'} after an answer without resultType; an absent resultType means "complete", so there is nothing to retry`);
    },
  },
  {
    id: 'ENV-ERR-ID', level: 'MUST', obs: 'N', era: 'all', source: 'basic/index.mdx §Error Responses',
    title: 'An error response carries the request\'s id unless the request was unreadable',
    on: ['server-error'],
    check(o, report, state) {
      const m = memory(o, state);
      if (o.msg.direction !== 'server-to-client' || !idlessError(o)) return;
      const code = (o.json!.error as Json).code;
      if (o.msg.http) {
        // Transport-level refusals (a bad Origin, an unknown session) may come without an id; judge
        // only errors produced after the body was read: a 2xx answer, or a body-level code.
        const x = state.exchanges.get(o.msg.http.exchange);
        const req = state.exchangeRequest(o.msg.http.exchange);
        const bodyLevel = (x?.status !== undefined && x.status >= 200 && x.status < 300) || [-32020, -32021, -32022, -32602].includes(code as number);
        if (req && bodyLevel && x?.outcome !== 'refused') report('/id', `the error has no id, but it answers ${req.method} with id ${JSON.stringify(req.json.id)}, which was readable`);
        return;
      }
      // stdio: excused by an unreadable client frame; after a notification it may answer that
      // instead (ENV-NOTIF-NO-REPLY), so only judge when the client's last frame was a request.
      const waiting = [...state.pending['client-to-server'].values()];
      if (m.unreadable > 0 || m.lastKind['client-to-server'] !== 'request' || waiting.length === 0) return;
      report('/id', `the error has no id, yet every client frame had a readable id (awaiting: ${waiting.map((r) => `${r.method} ${JSON.stringify(r.json.id)}`).join(', ')})`);
    },
  },
  {
    // stdio: an id-less error right after a notification, with nothing else awaiting an answer.
    // On HTTP, HTTP-NOTIF-202 judges what a notification POST gets back, and a result (which
    // carries an id) that answers nothing is ENV-RES-ID-MATCH.
    id: 'ENV-NOTIF-NO-REPLY', level: 'MUST NOT', obs: 'N', era: 'all', transport: 'stdio', source: 'basic/index.mdx §Notifications',
    title: 'Nobody answers a notification',
    on: ['error'],
    check(o, report, state) {
      const m = memory(o, state);
      if (!idlessError(o)) return;
      const other: Direction = o.msg.direction === 'client-to-server' ? 'server-to-client' : 'client-to-server';
      const last = m.lastNotification[other];
      if (m.lastKind[other] !== 'notification' || !last || state.pending[other].size > 0 || (other === 'client-to-server' && m.unreadable > 0)) return;
      report('/error', `an error answering the ${last.method} notification (message #${last.seq}); notifications get no response`);
    },
  },
  {
    id: 'VER-CLIENT-RETRY', level: 'SHOULD', obs: 'N', era: 'all', source: 'basic/versioning.mdx §Protocol Version Negotiation',
    revisions: since('2026-07-28'),
    title: 'After -32022 the client uses a version from data.supported',
    on: ['client-request'],
    check(o, report, state) {
      const m = memory(o, state);
      const req = clientRequest(o);
      if (!req || !m.refused) return;
      const version = revisionOf(req) ?? (req.method === 'initialize' ? params(req).protocolVersion : undefined);
      const { supported, requested, seq } = m.refused;
      if (typeof version !== 'string' || (supported ? supported.includes(version) : version !== requested) || !state.once(`VER-CLIENT-RETRY:${version}`)) return;
      report(revisionOf(req) ? '/params/_meta/io.modelcontextprotocol~1protocolVersion' : '/params/protocolVersion',
        `${String(req.method)} asks for ${version} after the server refused it (-32022 in message #${seq}${supported ? `, supported: ${supported.join(', ')}` : ''}); retry with a supported version or surface the error`);
    },
  },
  {
    id: 'VER-EXT-FALLBACK', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/versioning.mdx §Extension Negotiation',
    title: 'No extension methods to a server that did not declare the extension',
    on: [...TASK_METHODS].map((m): Interest => `client-request ${m}`),
    check(o, report, state) {
      const m = memory(o, state);
      const req = clientRequest(o);
      if (!req || !TASK_METHODS.has(String(req.method)) || !m.discovered || TASKS in extensionsOf(m.discovered)) return;
      const taskId = params(req).taskId;
      if (typeof taskId === 'string' && m.taskIds.has(taskId)) return; // the server handed this task out itself
      report('/method', `${String(req.method)} belongs to the ${TASKS} extension, which the server's server/discover capabilities do not declare; revert to core behaviour`);
    },
  },
  {
    id: 'VER-DUAL-ERA', level: 'desc', obs: 'N', era: 'legacy', source: 'basic/versioning.mdx §Compatibility Matrix',
    title: 'A session opened with initialize gets legacy answers, never input_required',
    on: ['server-input_required'],
    check(o, report, state) {
      memory(o, state);
      if (result(o)?.resultType === 'input_required' && o.request?.era === 'legacy') {
        report('/result/resultType', `input_required answers ${o.request.method} in a session that initialize set to ${o.revision ?? 'a 2025 revision'}; legacy semantics ask through server requests (elicitation/create, sampling/createMessage, roots/list)`);
      }
    },
  },
  {
    id: 'CAP-LISTCHANGED', level: 'SHOULD', obs: 'N', era: 'all', source: 'server/prompts.mdx §List Changed Notification',
    title: 'list_changed comes only from servers that declared listChanged, and reaches listen streams that asked',
    // `server-other`: String() of a method that is no string (an array) can still match.
    on: [...Object.keys(LIST_FLAG).map((k): Interest => `server-notification notifications/${k}/list_changed`), 'server-other', ...ACKNOWLEDGED],
    check(o, report, state) {
      memory(o, state);
      const method = o.msg.direction === 'server-to-client' && o.json && !('id' in o.json) ? String(o.json.method) : '';
      const kind = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method)?.[1];
      const caps = state.serverCapabilities;
      if (kind && caps && obj(caps[kind])?.listChanged !== true) report('/method', `${method} from a server whose declared ${kind} capability has no listChanged: true`);
      // Tools have their own rule (TOOLS-LISTCHANGED).
      for (const k of listChangedRefused(o, state, ['prompts', 'resources'])) {
        report('/params/notifications', `the subscription asked for ${LIST_FLAG[k]!} and the server declared ${k}.listChanged, but the acknowledgment leaves it out`);
      }
    },
  },
  {
    id: 'TOOLS-LISTCHANGED', level: 'SHOULD', obs: 'N', era: 'modern', source: 'server/tools.mdx §List Changed Notification',
    title: 'A server that declared tools.listChanged honours toolsListChanged on listen streams',
    on: ACKNOWLEDGED,
    check(o, report, state) {
      memory(o, state);
      // A changed list without the notification is TOOLS-LIST-INVARIANT; this is the refusal up front.
      if (listChangedRefused(o, state, ['tools']).length) report('/params/notifications', 'the subscription asked for toolsListChanged and the server declared tools.listChanged, but the acknowledgment leaves it out');
    },
  },
  {
    id: 'CAP-SUBSCRIBE', level: 'derived', obs: 'N', era: 'modern', source: 'basic/patterns/subscriptions.mdx §Acknowledgment',
    title: 'Only a server that declared resources.subscribe acknowledges resourceSubscriptions',
    on: ACKNOWLEDGED,
    check(o, report, state) {
      memory(o, state);
      const uris = acknowledgment(o, state)?.granted.resourceSubscriptions;
      const caps = state.serverCapabilities;
      if (caps && Array.isArray(uris) && uris.length > 0 && obj(caps.resources)?.subscribe !== true) {
        report('/params/notifications/resourceSubscriptions', 'the acknowledgment grants resource subscriptions, but the server did not declare resources.subscribe: true; omit the field');
      }
    },
  },
  {
    id: 'CAP-EMBEDDED-RES', level: 'SHOULD', obs: 'N', era: 'all', source: 'server/tools.mdx §Embedded Resources',
    revisions: since('2025-06-18'),
    title: 'A server whose tools return embedded resources declares the resources capability',
    on: ['server-result tools/call'],
    check(o, report, state) {
      memory(o, state);
      const r = result(o);
      const caps = state.serverCapabilities;
      if (o.request?.method !== 'tools/call' || !r || !caps || 'resources' in caps || !Array.isArray(r.content)) return;
      const i = r.content.findIndex((c) => isObject(c) && c.type === 'resource');
      if (i >= 0) report(`/result/content/${i}`, `an embedded resource, but the server's capabilities (${listed(caps)}) lack resources`);
    },
  },
  {
    id: 'CAP-RESPECT', level: 'desc', obs: 'N', era: 'all', source: 'architecture/index.mdx §Capability Negotiation',
    title: 'Neither side uses a feature the other did not declare',
    on: [...Object.keys(CLIENT_GATE).map((m): Interest => `server-request ${m}`), ...Object.keys(SERVER_GATE).map((m): Interest => `client-request ${m}`)],
    check(o, report, state) {
      const m = memory(o, state);
      const json = o.json;
      if (!json || typeof json.method !== 'string' || !('id' in json)) return;
      if (o.msg.direction === 'server-to-client') {
        // A 2025-era server asking the client for a feature its initialize did not declare.
        const wanted = Object.hasOwn(CLIENT_GATE, json.method) ? CLIENT_GATE[json.method] : undefined;
        if (wanted && m.initCaps && !(wanted in m.initCaps)) report('/method', `${json.method}, but the client's initialize declared no ${wanted} capability (declared: ${listed(m.initCaps)})`);
        return;
      }
      // A client calling a server feature the server's capabilities, known by then, lack. It is
      // reported on the request whatever the answer: when the server serves it anyway, CAP-DECL-*
      // judges the server as well.
      const gate = Object.hasOwn(SERVER_GATE, json.method) ? SERVER_GATE[json.method] : undefined;
      const caps = state.serverCapabilities;
      if (gate && caps && m.capsSeq !== undefined && !has(caps, gate)) {
        report('/method', `the client calls ${json.method} although the server's declared capabilities (${listed(caps)}) lack ${gate}`);
      }
    },
  },
  {
    id: 'TOOLS-NAME-CASE', level: 'SHOULD', obs: 'N', era: 'all', source: 'server/tools.mdx §Tool Names',
    title: 'tools/call uses a tool name in the exact case tools/list gave',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const m = memory(o, state);
      const req = clientRequest(o);
      const name = req?.method === 'tools/call' ? params(req).name : undefined;
      // The tool-name guidance arrived in 2025-11-25; a partly fetched list proves nothing.
      if (typeof name !== 'string' || !m.toolsComplete || state.tools.has(name) || !(o.era === 'modern' || (o.revision ?? '') >= '2025-11-25')) return;
      const listedAs = [...state.tools.keys()].find((t) => t.toLowerCase() === name.toLowerCase());
      if (listedAs !== undefined) report('/params/name', `tools/call names ${JSON.stringify(name)}, but the tool is listed as ${JSON.stringify(listedAs)}; tool names are case-sensitive`);
    },
  },
  {
    id: 'MRTR-KEYS-UNIQUE', level: 'MUST', obs: '1', era: 'modern', source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'inputRequests has no duplicate keys in the raw JSON text',
    on: ['server-result'],
    check(o, report, state) {
      memory(o, state);
      const r = result(o);
      // Without `raw` the frame was exactly JSON.stringify(json), which cannot repeat a key.
      if (!r || !isObject(r.inputRequests) || o.msg.raw === undefined) return;
      const keys = rawKeysAt(o.msg.raw, ['result', 'inputRequests']) ?? [];
      const repeated = [...new Set(keys.filter((k, i) => keys.indexOf(k) !== i))];
      if (repeated.length) report('/result/inputRequests', `inputRequests repeats ${repeated.map((k) => JSON.stringify(k)).join(', ')}; a JSON parser keeps only the last, so the other input request is lost`);
    },
  },
  {
    id: 'MRTR-SAME-REQUEST', level: 'desc', obs: 'N', era: 'modern', source: 'basic/patterns/mrtr.mdx §Multi Round-Trip Requests',
    title: 'A retry repeats the original method, name or uri, and arguments',
    on: ['client-request'],
    check(o, report, state) {
      memory(o, state);
      const req = clientRequest(o);
      const p = params(req);
      if (!req || typeof p.requestState !== 'string' || p.requestState === '') return;
      const owners = [...state.issuedState.entries()].filter(([, v]) => v.state === p.requestState).map(([k]) => k);
      if (owners.length === 0 || owners.includes(mrtrKey(req))) return;
      const [method, name, args] = JSON.parse(owners[0]!) as [string, unknown, unknown];
      const changed = [
        method !== req.method ? 'method' : '',
        canonical(name) !== canonical(p.name ?? p.uri ?? null) ? (p.uri !== undefined ? 'uri' : 'name') : '',
        canonical(args) !== canonical(p.arguments ?? null) ? 'arguments' : '',
      ].filter(Boolean);
      if (changed.length) report('/params', `this request carries the requestState given to ${method} ${JSON.stringify(name)} but changes its ${changed.join(' and ')}; a retry repeats the original request and only adds inputResponses and requestState`);
    },
  },
];
