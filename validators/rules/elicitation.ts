/** RULES.md §15: elicitation (ELICIT). */
import { dataProblem } from '../json-schema.js';
import { isObject, type Rule, since } from '../rule.js';
import { mrtrKey } from '../session-state.js';
import { ASK_LEARNS, asked, asking, asks, recallAsks } from './support/memories.js';
import { at, clientCapabilities } from './support/messages.js';

const PRIMITIVE = new Set(['string', 'number', 'integer', 'boolean']);

const SECRET_FIELD = /(passw(or)?d|api[-_ ]?key|secret|token|credit[-_ ]?card|card[-_ ]?number|cvv|cvc|\bpin\b|ssn)/i;

function isUrlMode(p: Record<string, unknown>): boolean {
  return p.mode === 'url';
}

const CREDENTIAL_PARAM =
  /^(access_?token|id_?token|refresh_?token|auth_?token|token|api_?key|apikey|password|passwd|pwd|secret|client_secret|session_?id|sid|jwt|x-amz-signature|x-amz-credential|x-goog-signature|signature|sig)$/i;

const JWT = /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/;

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;

const LINK = /\bhttps?:\/\/[^\s"'<>]+|\bwww\.[a-z0-9-]+\.[a-z]{2,}[^\s"'<>]*/i;

/** The texts a form shows the user (values, defaults and schema URIs are not links to click). */
const SHOWN = new Set(['message', 'title', 'description']);

/** Why an elicitation URL is unsafe to hand over, if it is. */
function unsafeUrl(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return undefined; // ELICIT-URL-SHAPE's
  }
  if (u.username || u.password) return 'user credentials in its userinfo part';
  const params = [...u.searchParams, ...new URLSearchParams(u.hash.slice(1))];
  const credential = params.find(([k, v]) => CREDENTIAL_PARAM.test(k) && v !== '');
  if (credential) return `a ${credential[0]} parameter, which makes it a credential or a pre-authenticated link`;
  let text = url;
  try {
    text = decodeURIComponent(url);
  } catch {
    // keep the raw text
  }
  if (JWT.test(text)) return 'a JSON Web Token';
  if (EMAIL.test(text.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]*/i, ''))) return 'an email address (personal data)';
  return undefined;
}

/** Every text a form request shows the user (its message, titles and descriptions), with its path. */
function shownStrings(v: unknown, path: string, out: [string, string][] = []): [string, string][] {
  if (Array.isArray(v)) v.forEach((x, i) => shownStrings(x, `${path}/${i}`, out));
  else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (SHOWN.has(k) && typeof x === 'string') out.push([x, at(path, k)]);
      else if (k !== '_meta') shownStrings(x, at(path, k), out);
    }
  }
  return out;
}

export const elicitationRules: Rule[] = [
  {
    id: 'ELICIT-MODE',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'client/elicitation.mdx §Capabilities',
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
        if (!declared.includes(mode))
          report(`${at}/mode`, `${mode} mode, but the request declared elicitation modes: ${declared.join(', ')}`);
      }
    },
  },
  {
    id: 'ELICIT-MESSAGE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'client/elicitation.mdx §Elicitation Requests',
    revisions: since('2025-06-18'),
    title: 'Every elicitation has a message',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create'))
        if (typeof p.message !== 'string') report(`${at}/message`, 'an elicitation without a message');
    },
  },
  {
    id: 'ELICIT-FORM-SHAPE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'client/elicitation.mdx §Requested Schema',
    revisions: since('2025-06-18'),
    title: "A form's requestedSchema is a flat object of primitive fields",
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
          if (!(PRIMITIVE.has(String(f.type)) || multiSelect))
            report(
              `${at}/requestedSchema/properties/${name}`,
              `field ${name} is ${JSON.stringify(f.type)}; form fields are strings, numbers, booleans or enums, never nested`,
            );
        }
      }
    },
  },
  {
    id: 'ELICIT-URL-SHAPE',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'client/elicitation.mdx §URL Mode Elicitation Requests',
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
    id: 'ELICIT-URL-HTTPS',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'client/elicitation.mdx §Safe URL Handling',
    revisions: since('2025-11-25'),
    title: 'Elicitation URLs use https outside development',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create')) {
        if (!isUrlMode(p) || typeof p.url !== 'string') continue;
        try {
          const u = new URL(p.url);
          if (u.protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(u.hostname))
            report(`${at}/url`, `${u.protocol} URL for the user to open; use https`);
        } catch {
          // ELICIT-URL-SHAPE reports it
        }
      }
    },
  },
  {
    id: 'ELICIT-NO-SECRETS-FORM',
    level: 'MUST NOT',
    obs: 'H',
    era: 'all',
    source: 'client/elicitation.mdx §Form Mode Security',
    revisions: since('2025-06-18'),
    title: 'Form mode never asks for passwords, API keys, tokens or payment data',
    on: asking('elicitation/create'),
    check(o, report) {
      for (const [p, at] of asks(o, 'elicitation/create')) {
        if (isUrlMode(p) || !isObject(p.requestedSchema) || !isObject(p.requestedSchema.properties)) continue;
        for (const [name, field] of Object.entries(p.requestedSchema.properties)) {
          const title = isObject(field) ? `${String(field.title ?? '')} ${String(field.description ?? '')}` : '';
          if (SECRET_FIELD.test(name) || SECRET_FIELD.test(title))
            report(`${at}/requestedSchema/properties/${name}`, `form field ${name} looks like a secret; ask for secrets through URL mode`);
        }
      }
    },
  },
  {
    id: 'ELICIT-REMOVED',
    level: 'MUST NOT',
    obs: '1',
    era: 'modern',
    source: 'changelog.mdx',
    title: 'No notifications/elicitation/complete in 2026-07-28',
    on: ['request notifications/elicitation/complete', 'notification notifications/elicitation/complete'],
    check(o, report) {
      if (o.json?.method === 'notifications/elicitation/complete')
        report('/method', 'notifications/elicitation/complete was removed in 2026-07-28');
    },
  },
  {
    id: 'ELICIT-URL-SAFE',
    level: 'MUST NOT',
    obs: 'H',
    era: 'all',
    source: 'client/elicitation.mdx §Safe URL Handling',
    revisions: since('2025-11-25'),
    title: 'An elicitation URL carries no credentials or personal data and is not pre-authenticated',
    on: [...ASK_LEARNS, 'server-request elicitation/create', 'server-input_required'],
    check(o, report, state) {
      recallAsks(o, state);
      for (const [p, path] of asked(o, 'elicitation/create')) {
        const why = p.mode === 'url' && typeof p.url === 'string' ? unsafeUrl(p.url) : undefined;
        if (why) report(`${path}/url`, `the URL for the user carries ${why}; a malicious client could use it to impersonate the user`);
      }
    },
  },
  {
    id: 'ELICIT-FORM-NO-LINKS',
    level: 'SHOULD NOT',
    obs: 'H',
    era: 'all',
    source: 'client/elicitation.mdx §Safe URL Handling',
    revisions: since('2025-06-18'),
    title: 'Form elicitations contain no clickable URLs',
    on: [...ASK_LEARNS, 'server-request elicitation/create', 'server-input_required'],
    check(o, report, state) {
      recallAsks(o, state);
      for (const [p, path] of asked(o, 'elicitation/create')) {
        if (p.mode === 'url') continue;
        const found = shownStrings(p, path).find(([s]) => LINK.test(s));
        if (found)
          report(found[1], `a form elicitation shows the link ${LINK.exec(found[0])![0]}; send the user to a URL only with URL mode`);
      }
    },
  },
  {
    id: 'ELICIT-RESULT-VALID',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'client/elicitation.mdx §Form Mode Security',
    revisions: since('2025-06-18'),
    title: 'Accepted form content validates against the requestedSchema',
    on: [...ASK_LEARNS, 'client-json'],
    check(o, report, state) {
      const t = recallAsks(o, state);
      if (o.msg.direction !== 'client-to-server' || !o.json) return;
      const checks: [Record<string, unknown>, unknown, string][] = [];
      // 2025: the answer to a server's elicitation/create request.
      const asked2025 = o.request?.method === 'elicitation/create' && isObject(o.request.json.params) ? o.request.json.params : undefined;
      if (asked2025 && asked2025.mode !== 'url' && isObject(asked2025.requestedSchema) && isObject(o.json.result))
        checks.push([asked2025.requestedSchema, o.json.result, '/result']);
      // 2026-07-28: inputResponses on the retry of a request answered input_required.
      const responses = isObject(o.json.params) && isObject(o.json.params.inputResponses) ? o.json.params.inputResponses : undefined;
      const forms = responses && 'id' in o.json ? t.forms.get(mrtrKey(o.json)) : undefined;
      for (const [key, schema] of forms ?? []) checks.push([schema, responses![key], at('/params/inputResponses', key)]);
      for (const [schema, answer, path] of checks) {
        if (!isObject(answer) || answer.action !== 'accept' || !isObject(answer.content)) continue;
        const problem = dataProblem(schema, answer.content);
        if (problem) report(`${path}/content`, `the accepted content does not match the requestedSchema: ${problem}`);
      }
    },
  },
];
