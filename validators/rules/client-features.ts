import { isObject, since, type Interest, type Rule } from '../rule.js';
import { clientCapabilities } from './envelope.js';

type O = Parameters<Rule['check']>[0];
const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);
const SECRET_FIELD = /(passw(or)?d|api[-_ ]?key|secret|token|credit[-_ ]?card|card[-_ ]?number|cvv|cvc|\bpin\b|ssn)/i;

/** Server asks for client features: modern inputRequests, and 2025 server→client requests. */
function asks(o: O, method: string): [Record<string, unknown>, string][] {
  if (o.msg.direction !== 'server-to-client' || !o.json) return [];
  if (o.json.method === method && isObject(o.json.params)) return [[o.json.params, '/params']];
  const r = isObject(o.json.result) ? o.json.result : undefined;
  if (!r || r.resultType !== 'input_required' || !isObject(r.inputRequests)) return [];
  return Object.entries(r.inputRequests).filter(([, v]) => isObject(v) && v.method === method && isObject(v.params))
    .map(([k, v]) => [(v as Record<string, unknown>).params as Record<string, unknown>, `/result/inputRequests/${k}/params`]);
}

/** What `asks` reads: a 2025 server→client message with the method, or an input_required result. */
const asking = (method: string): Interest[] => [`server-request ${method}`, `server-notification ${method}`, 'server-input_required'];

function isUrlMode(p: Record<string, unknown>): boolean {
  return p.mode === 'url';
}

/** §15-16 of RULES.md: elicitation, sampling, roots, deprecations. */
export const clientFeatureRules: Rule[] = [
  {
    id: 'ELICIT-MODE', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'client/elicitation.mdx §Capabilities',
    title: 'Elicitation uses only a mode the client declared (`elicitation: {}` means form only)',
    // Only an answer (`o.request`) is judged, so only an input_required one can ask.
    on: ['server-input_required'],
    check(o, report) {
      const caps = o.request ? clientCapabilities(o.request.json) : undefined;
      const e = caps && isObject(caps.elicitation) ? caps.elicitation : undefined;
      if (!e) return; // no elicitation at all is MRTR-DECLARED-ONLY's business
      for (const [p, at] of asks(o, 'elicitation/create')) {
        const declared = Object.keys(e).length === 0 ? ['form'] : Object.keys(e);
        const mode = isUrlMode(p) ? 'url' : 'form';
        if (!declared.includes(mode)) report(`${at}/mode`, `${mode} mode, but the request declared elicitation modes: ${declared.join(', ')}`);
      }
    },
  },
  {
    id: 'ELICIT-MESSAGE', level: 'MUST', obs: '1', era: 'all', source: 'client/elicitation.mdx §Elicitation Requests',
    revisions: since('2025-06-18'),
    title: 'Every elicitation has a message',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create')) if (typeof p.message !== 'string') report(`${at}/message`, 'an elicitation without a message');
    },
  },
  {
    id: 'ELICIT-FORM-SHAPE', level: 'MUST', obs: '1', era: 'all', source: 'client/elicitation.mdx §Requested Schema',
    revisions: since('2025-06-18'),
    title: 'A form\'s requestedSchema is a flat object of primitive fields',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create')) {
        if (isUrlMode(p)) continue;
        const s = p.requestedSchema;
        if (!isObject(s) || s.type !== 'object' || !isObject(s.properties)) {
          report(`${at}/requestedSchema`, 'requestedSchema is not {"type":"object","properties":{…}}');
          continue;
        }
        for (const [name, field] of Object.entries(s.properties)) {
          const f = isObject(field) ? field : {};
          const multiSelect = f.type === 'array' && isObject(f.items) && (Array.isArray(f.items.enum) || Array.isArray(f.items.anyOf));
          if (!(PRIMITIVE.has(String(f.type)) || multiSelect)) report(`${at}/requestedSchema/properties/${name}`, `field ${name} is ${JSON.stringify(f.type)}; form fields are strings, numbers, booleans or enums, never nested`);
        }
      }
    },
  },
  {
    id: 'ELICIT-URL-SHAPE', level: 'MUST', obs: '1', era: 'modern', source: 'client/elicitation.mdx §URL Mode Elicitation Requests',
    title: 'URL mode has a message and a valid url, and no elicitationId (removed in 2026-07-28)',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create')) {
        if (!isUrlMode(p)) continue;
        let ok = typeof p.url === 'string';
        try {
          if (ok) new URL(p.url as string);
        } catch {
          ok = false;
        }
        if (!ok) report(`${at}/url`, 'URL-mode elicitation without a valid url');
        if ('elicitationId' in p) report(`${at}/elicitationId`, 'elicitationId was removed in 2026-07-28');
      }
    },
  },
  {
    id: 'ELICIT-URL-HTTPS', level: 'SHOULD', obs: '1', era: 'all', source: 'client/elicitation.mdx §Safe URL Handling',
    revisions: since('2025-11-25'),
    title: 'Elicitation URLs use https outside development',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create')) {
        if (!isUrlMode(p) || typeof p.url !== 'string') continue;
        try {
          const u = new URL(p.url);
          if (u.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(u.hostname)) report(`${at}/url`, `${u.protocol} URL for the user to open; use https`);
        } catch {
          // ELICIT-URL-SHAPE reports it
        }
      }
    },
  },
  {
    id: 'ELICIT-NO-SECRETS-FORM', level: 'MUST NOT', obs: 'H', era: 'all', source: 'client/elicitation.mdx §Form Mode Security',
    revisions: since('2025-06-18'),
    title: 'Form mode never asks for passwords, API keys, tokens or payment data',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create')) {
        if (isUrlMode(p) || !isObject(p.requestedSchema) || !isObject(p.requestedSchema.properties)) continue;
        for (const [name, field] of Object.entries(p.requestedSchema.properties)) {
          const title = isObject(field) ? `${String(field.title ?? '')} ${String(field.description ?? '')}` : '';
          if (SECRET_FIELD.test(name) || SECRET_FIELD.test(title)) report(`${at}/requestedSchema/properties/${name}`, `form field ${name} looks like a secret; ask for secrets through URL mode`);
        }
      }
    },
  },
  {
    id: 'ELICIT-REMOVED', level: 'MUST NOT', obs: '1', era: 'modern', source: 'changelog.mdx',
    title: 'No notifications/elicitation/complete in 2026-07-28',
    on: ['request notifications/elicitation/complete', 'notification notifications/elicitation/complete'],
    check(o, report) {
      if (o.json?.method === 'notifications/elicitation/complete') report('/method', 'notifications/elicitation/complete was removed in 2026-07-28');
    },
  },
  {
    id: 'SAMP-TOOLRESULT-PURE', level: 'MUST', obs: '1', era: 'all', source: 'client/sampling.mdx §Tool Result Messages',
    revisions: since('2025-11-25'),
    title: 'A user message with tool_result holds only tool_result blocks',
    on: asking('sampling/createMessage'),
    check(o, report) {
      for (const [p, at] of asks(o, 'sampling/createMessage')) {
        (Array.isArray(p.messages) ? p.messages : []).forEach((m, i) => {
          const blocks = isObject(m) ? (Array.isArray(m.content) ? m.content : [m.content]).filter(isObject) : [];
          const results = blocks.filter((b) => b.type === 'tool_result').length;
          if (isObject(m) && m.role === 'user' && results > 0 && results < blocks.length) report(`${at}/messages/${i}/content`, 'a user message mixes tool_result with other content');
        });
      }
    },
  },
  {
    id: 'SAMP-TOOLUSE-BALANCE', level: 'MUST', obs: '1', era: 'all', source: 'client/sampling.mdx §Tool Use and Result Balance',
    revisions: since('2025-11-25'),
    title: 'Every tool_use is answered by tool_result in the next message',
    on: asking('sampling/createMessage'),
    check(o, report) {
      for (const [p, at] of asks(o, 'sampling/createMessage')) {
        const msgs = (Array.isArray(p.messages) ? p.messages : []).filter(isObject);
        msgs.forEach((m, i) => {
          const blocks = (Array.isArray(m.content) ? m.content : [m.content]).filter(isObject);
          const uses = blocks.filter((b) => b.type === 'tool_use').map((b) => String(b.id));
          if (m.role !== 'assistant' || uses.length === 0) return;
          const next = msgs[i + 1];
          const answered = next && next.role === 'user' ? (Array.isArray(next.content) ? next.content : [next.content]).filter(isObject).filter((b) => b.type === 'tool_result').map((b) => String(b.toolUseId)) : [];
          const missing = uses.filter((u) => !answered.includes(u));
          if (missing.length && i + 1 < msgs.length) report(`${at}/messages/${i + 1}`, `tool_use ${missing.join(', ')} not answered by the next message`);
        });
      }
    },
  },
  {
    id: 'ROOTS-FILE-URI', level: 'MUST', obs: '1', era: 'all', source: 'client/roots.mdx §Root',
    title: 'Root URIs are file:// URIs',
    on: ['client-json'],
    check(o, report) {
      if (o.msg.direction !== 'client-to-server' || !o.json) return;
      const roots: [unknown, string][] = [];
      if (o.request?.method === 'roots/list' && isObject(o.json.result) && Array.isArray(o.json.result.roots)) roots.push(...o.json.result.roots.map((r, i) => [r, `/result/roots/${i}`] as [unknown, string]));
      const responses = isObject(o.json.params) && isObject(o.json.params.inputResponses) ? o.json.params.inputResponses : {};
      for (const [k, v] of Object.entries(responses)) if (isObject(v) && Array.isArray(v.roots)) roots.push(...v.roots.map((r, i) => [r, `/params/inputResponses/${k}/roots/${i}`] as [unknown, string]));
      for (const [r, at] of roots) if (isObject(r) && typeof r.uri === 'string' && !r.uri.startsWith('file://')) report(`${at}/uri`, `root ${JSON.stringify(r.uri)} is not a file:// URI`);
    },
  },
  {
    id: 'DEPRECATED-USE', level: 'SHOULD NOT', obs: '1', era: 'modern', source: 'deprecated.mdx', severity: 'info',
    title: 'Roots, Sampling and includeContext thisServer/allServers are deprecated',
    on: [...asking('sampling/createMessage'), ...asking('roots/list')],
    check(o, report) {
      for (const method of ['sampling/createMessage', 'roots/list']) {
        for (const [p, at] of asks(o, method)) {
          report(at, `${method} is deprecated in 2026-07-28`);
          if (p.includeContext === 'thisServer' || p.includeContext === 'allServers') report(`${at}/includeContext`, `includeContext ${String(p.includeContext)} is deprecated`);
        }
      }
    },
  },
  {
    id: 'LOG-DEPRECATED', level: 'SHOULD NOT', obs: '1', era: 'modern', source: 'server/utilities/logging.mdx', severity: 'info',
    title: 'The Logging feature is deprecated in 2026-07-28',
    on: ['server-request notifications/message', 'server-notification notifications/message'],
    check(o, report) {
      if (o.msg.direction === 'server-to-client' && o.json?.method === 'notifications/message') report('/method', 'notifications/message (Logging) is deprecated in 2026-07-28; log to stderr or your own channel');
    },
  },
];
