/** RULES.md §4: capabilities, declared vs answered (CAP). */
import { type BareExchangeRule, type ExchangeRule, type Interest, isObject, type Rule, type SessionEndRule, since } from '../rule.js';
import { idKey, MODERN_REVISION } from '../session-state.js';
import { exchangeOf, fromServer, perSession, PRE_DISPATCH_CODES, PRE_DISPATCH_STATUS } from './support/http.js';
import { type Json, missingEnvelope, obj, refusable, result, turnedAwayAnswer } from './support/messages.js';
import { ACKNOWLEDGED, acknowledgment, LIST_FLAG, listChangedRefused, memoryOf } from './support/negotiated.js';

const CAPABILITY_OF_LIST: Record<string, string> = { 'tools/list': 'tools', 'resources/list': 'resources', 'prompts/list': 'prompts' };

/** A server feature seen in use although the capabilities it declared (in this session) lack it. */
function declares(
  id: string,
  capability: string,
  what: string,
  used: (o: Parameters<Rule['check']>[0]) => boolean,
  on: Interest[],
  source: string,
  revisions?: Rule['revisions'],
): Rule {
  return {
    id,
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source,
    ...(revisions ? { revisions } : {}),
    title: `A server that ${what} declares the ${capability} capability`,
    on,
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !state.serverCapabilities || capability in state.serverCapabilities || !used(o)) return;
      report(
        '',
        `the server ${what}, but its declared capabilities (${Object.keys(state.serverCapabilities).join(', ') || 'none'}) lack ${capability}`,
      );
    },
  };
}

const answered = (method: string) => (o: Parameters<Rule['check']>[0]) =>
  o.request?.method === method && o.json !== undefined && isObject(o.json.result);

/** Server methods and the server capability that gates them (`a.b`: a sub-flag that must be true). */
const SERVER_GATE: Record<string, string> = {
  'tools/list': 'tools',
  'tools/call': 'tools',
  'prompts/list': 'prompts',
  'prompts/get': 'prompts',
  'resources/list': 'resources',
  'resources/read': 'resources',
  'resources/templates/list': 'resources',
  'resources/subscribe': 'resources.subscribe',
  'resources/unsubscribe': 'resources.subscribe',
  'completion/complete': 'completions',
  'logging/setLevel': 'logging',
};

/** 2025-era server→client requests and the client capability that gates them. */
const CLIENT_GATE: Record<string, string> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

const has = (caps: Json, gate: string): boolean => {
  const [cap, flag] = gate.split('.') as [string, string?];
  return cap in caps && (!flag || obj(caps[cap])?.[flag] === true);
};

const listed = (caps: Json): string => Object.keys(caps).join(', ') || 'none';

// --- CAP-UNDECLARED-32601 -------------------------------------------------------------------------

/** The client→server request methods of each revision whose schema is known (the official schemas). */
const LEGACY_METHODS = [
  'initialize',
  'ping',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'resources/subscribe',
  'resources/unsubscribe',
  'prompts/list',
  'prompts/get',
  'tools/list',
  'tools/call',
  'logging/setLevel',
  'completion/complete',
];

const CLIENT_METHODS: Record<string, ReadonlySet<string>> = {
  '2025-06-18': new Set(LEGACY_METHODS),
  '2025-11-25': new Set([...LEGACY_METHODS, 'tasks/get', 'tasks/result', 'tasks/cancel', 'tasks/list']),
  [MODERN_REVISION]: new Set([
    'server/discover',
    'resources/list',
    'resources/templates/list',
    'resources/read',
    'subscriptions/listen',
    'prompts/list',
    'prompts/get',
    'tools/list',
    'tools/call',
    'completion/complete',
  ]),
};

const EVERY_CORE_METHOD = new Set(Object.values(CLIENT_METHODS).flatMap((s) => [...s]));

/** Why a core method is no method of this revision (a removed or later one), whatever the capabilities. */
function notAMethod(method: string, revision: string | undefined): string | undefined {
  // C7: what a 2026-07-28 server answers to initialize is implementation-defined; tasks/* are
  // reserved for the tasks extension (its own rules).
  if (method === 'initialize' || revision === undefined) return undefined;
  const known = CLIENT_METHODS[revision];
  if (known && EVERY_CORE_METHOD.has(method) && !known.has(method) && !(revision >= MODERN_REVISION && method.startsWith('tasks/')))
    return `${method} is not a ${revision} method`;
  return undefined;
}

/** Why the server does not serve `method` in this session, if it does not. */
function notServed(method: string, revision: string | undefined, caps: Json): string | undefined {
  if (method === 'initialize' || revision === undefined) return undefined;
  const removed = notAMethod(method, revision);
  if (removed) return removed;
  const gate = SERVER_GATE[method];
  if (gate && revision >= '2025-03-26' && !has(caps, gate)) return `the server's declared capabilities (${listed(caps)}) lack ${gate}`;
  return undefined;
}

/** The message at which the server's capabilities became known, and from which handshake. */
const capsOf = perSession(() => ({}) as { at?: number; from?: string });

export const capabilityRules: (Rule | ExchangeRule | BareExchangeRule | SessionEndRule)[] = [
  declares(
    'CAP-DECL-TOOLS',
    'tools',
    'answers tools/list',
    answered('tools/list'),
    ['server-result tools/list'],
    'server/tools.mdx §Capabilities',
  ),
  declares(
    'CAP-DECL-RESOURCES',
    'resources',
    'answers resources/list',
    answered('resources/list'),
    ['server-result resources/list'],
    'server/resources.mdx §Capabilities',
  ),
  declares(
    'CAP-DECL-PROMPTS',
    'prompts',
    'answers prompts/list',
    answered('prompts/list'),
    ['server-result prompts/list'],
    'server/prompts.mdx §Capabilities',
  ),
  declares(
    'CAP-DECL-COMPLETIONS',
    'completions',
    'answers completion/complete',
    answered('completion/complete'),
    ['server-result completion/complete'],
    'server/utilities/completion.mdx §Capabilities',
    since('2025-03-26'),
  ),
  declares(
    'CAP-DECL-LOGGING',
    'logging',
    'sends notifications/message',
    (o) => o.json?.method === 'notifications/message',
    ['server-request notifications/message', 'server-notification notifications/message'],
    'server/utilities/logging.mdx §Capabilities',
  ),
  {
    id: 'CAP-DECLARED-ANSWERS',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Capabilities',
    title: 'A declared tools/resources/prompts capability answers its */list with a result, never an error',
    on: ['error tools/list', 'error resources/list', 'error prompts/list'],
    check(o, report, state) {
      const method = o.request?.method;
      const cap = method ? CAPABILITY_OF_LIST[method] : undefined;
      if (!cap || !o.json || !isObject(o.json.error) || !state.serverCapabilities || !(cap in state.serverCapabilities)) return;
      // A refused invalid request, or a 2026-07-28 attempt a 2025-era server turned away, says
      // nothing of the capability.
      if (refusable(o.request!, state) || turnedAwayAnswer(o)) return;
      report('/error', `the server declared the ${cap} capability but answered ${method} with error ${String(o.json.error.code)}`);
    },
  },
  {
    id: 'CAP-LISTCHANGED',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/prompts.mdx §List Changed Notification',
    title: 'list_changed comes only from servers that declared listChanged, and reaches listen streams that asked',
    // `server-other`: String() of a method that is no string (an array) can still match.
    on: [
      ...Object.keys(LIST_FLAG).map((k): Interest => `server-notification notifications/${k}/list_changed`),
      'server-other',
      ...ACKNOWLEDGED,
    ],
    check(o, report, state) {
      memoryOf(o, state);
      const method = o.msg.direction === 'server-to-client' && o.json && !('id' in o.json) ? String(o.json.method) : '';
      const kind = /^notifications\/(tools|prompts|resources)\/list_changed$/.exec(method)?.[1];
      const caps = state.serverCapabilities;
      if (kind && caps && obj(caps[kind])?.listChanged !== true)
        report('/method', `${method} from a server whose declared ${kind} capability has no listChanged: true`);
      // Tools have their own rule (TOOLS-LISTCHANGED).
      for (const k of listChangedRefused(o, state, ['prompts', 'resources'])) {
        report(
          '/params/notifications',
          `the subscription asked for ${LIST_FLAG[k]!} and the server declared ${k}.listChanged, but the acknowledgment leaves it out`,
        );
      }
    },
  },
  {
    id: 'CAP-SUBSCRIBE',
    level: 'derived',
    obs: 'N',
    era: 'modern',
    source: 'basic/patterns/subscriptions.mdx §Acknowledgment',
    title: 'Only a server that declared resources.subscribe acknowledges resourceSubscriptions',
    on: ACKNOWLEDGED,
    check(o, report, state) {
      memoryOf(o, state);
      const uris = acknowledgment(o, state)?.granted.resourceSubscriptions;
      const caps = state.serverCapabilities;
      if (caps && Array.isArray(uris) && uris.length > 0 && obj(caps.resources)?.subscribe !== true) {
        report(
          '/params/notifications/resourceSubscriptions',
          'the acknowledgment grants resource subscriptions, but the server did not declare resources.subscribe: true; omit the field',
        );
      }
    },
  },
  {
    id: 'CAP-EMBEDDED-RES',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Embedded Resources',
    revisions: since('2025-06-18'),
    title: 'A server whose tools return embedded resources declares the resources capability',
    on: ['server-result tools/call'],
    check(o, report, state) {
      memoryOf(o, state);
      const r = result(o);
      const caps = state.serverCapabilities;
      if (o.request?.method !== 'tools/call' || !r || !caps || 'resources' in caps || !Array.isArray(r.content)) return;
      const i = r.content.findIndex((c) => isObject(c) && c.type === 'resource');
      if (i >= 0) report(`/result/content/${i}`, `an embedded resource, but the server's capabilities (${listed(caps)}) lack resources`);
    },
  },
  {
    id: 'CAP-RESPECT',
    level: 'desc',
    obs: 'N',
    era: 'all',
    source: 'architecture/index.mdx §Capability Negotiation',
    title: 'Neither side uses a feature the other did not declare',
    on: [
      ...Object.keys(CLIENT_GATE).map((m): Interest => `server-request ${m}`),
      ...Object.keys(SERVER_GATE).map((m): Interest => `client-request ${m}`),
    ],
    check(o, report, state) {
      const m = memoryOf(o, state);
      const json = o.json;
      if (!json || typeof json.method !== 'string' || !('id' in json)) return;
      if (o.msg.direction === 'server-to-client') {
        // A 2025-era server asking the client for a feature its initialize did not declare.
        const wanted = Object.hasOwn(CLIENT_GATE, json.method) ? CLIENT_GATE[json.method] : undefined;
        if (wanted && m.initCaps && !(wanted in m.initCaps))
          report(
            '/method',
            `${json.method}, but the client's initialize declared no ${wanted} capability (declared: ${listed(m.initCaps)})`,
          );
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
    // The N part: the session's own server/discover or initialize told what the server serves.
    // A successful answer despite that is CAP-DECL-*'s; the client's side of it is CAP-RESPECT's.
    id: 'CAP-UNDECLARED-32601',
    level: 'desc',
    obs: 'N',
    era: 'all',
    source: 'basic/transports/streamable-http.mdx §Protocol Version Header',
    title: 'An unknown method, or one gated behind an undeclared capability, gets -32601 (on 2026-07-28 HTTP with 404)',
    on: ['server-response'],
    check(o, report, state) {
      const caps = capsOf(state);
      const req = o.request;
      if (o.msg.direction !== 'server-to-client' || !o.json || !req) return;
      const r = obj(o.json.result);
      if (r && isObject(r.capabilities) && (req.method === 'initialize' || req.method === 'server/discover')) {
        caps.at = o.msg.seq;
        caps.from = req.method;
        return;
      }
      const e = obj(o.json.error);
      const declared = state.serverCapabilities;
      // A method the revision does not have needs no capabilities to judge; the others only
      // requests sent once the capabilities were known, by the handshake of their own era.
      const removed = e ? notAMethod(req.method, o.revision) : undefined;
      if (
        !e ||
        (!removed &&
          (!declared ||
            caps.at === undefined ||
            req.msg.seq < caps.at ||
            caps.from !== (req.era === 'modern' ? 'server/discover' : 'initialize')))
      )
        return;
      if (state.cancelled.has(idKey(req.json.id))) return;
      const why = removed ?? notServed(req.method, o.revision, declared!);
      if (!why) return;
      const x = exchangeOf(o, state);
      if (x && (!fromServer(x) || PRE_DISPATCH_STATUS.has(x.status!))) return;
      const code = e.code;
      if (PRE_DISPATCH_CODES.has(code as number) || (code === -32602 && req.era === 'modern' && missingEnvelope(req.json).length > 0))
        return;
      const modernHttp = x !== undefined && req.era === 'modern';
      if (code !== -32601) {
        report(
          '/error/code',
          `${req.method} (message #${req.msg.seq}) is not served here: ${why}; the answer is -32601 (Method not found)${modernHttp ? ' with HTTP 404' : ''}, not ${JSON.stringify(code)}`,
        );
      } else if (modernHttp && x.status !== 404) {
        report(
          '/error/code',
          `-32601 for ${req.method} came with HTTP ${x.status}; on 2026-07-28 Streamable HTTP a method the server does not serve is answered 404 Not Found`,
        );
      }
    },
  },
];
