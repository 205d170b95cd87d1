import { isObject, since, type Interest, type Rule } from '../rule.js';
import { dataProblem } from '../json-schema.js';
import { mrtrKey } from '../session-state.js';
import { clientCapabilities } from './envelope.js';
import { asked, at, memory, type O, type S } from './features-common.js';

const CREDENTIAL_PARAM = /^(access_?token|id_?token|refresh_?token|auth_?token|token|api_?key|apikey|password|passwd|pwd|secret|client_secret|session_?id|sid|jwt|x-amz-signature|x-amz-credential|x-goog-signature|signature|sig)$/i;
const JWT = /\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}/;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const LINK = /\bhttps?:\/\/[^\s"'<>]+|\bwww\.[a-z0-9-]+\.[a-z]{2,}[^\s"'<>]*/i;
/** The texts a form shows the user (values, defaults and schema URIs are not links to click). */
const SHOWN = new Set(['message', 'title', 'description']);

interface Asks {
  /** The capabilities the client declared in `initialize` (2025 era). */
  initCaps?: Record<string, unknown>;
  /** The requestedSchema of each form elicitation an input_required answer asked, by retry key. */
  forms: Map<string, Map<string, Record<string, unknown>>>;
}

const recall = memory<Asks>(
  () => ({ forms: new Map() }),
  (t, o) => {
    const json = o.json;
    if (!json) return undefined;
    if (o.msg.direction === 'client-to-server' && json.method === 'initialize' && isObject(json.params) && isObject(json.params.capabilities)) {
      const caps = json.params.capabilities;
      return () => (t.initCaps = caps);
    }
    if (!o.request || !('id' in json) || !isObject(json.result)) return undefined;
    const forms = new Map<string, Record<string, unknown>>();
    for (const [p, , key] of asked(o, 'elicitation/create')) if (key !== undefined && p.mode !== 'url' && isObject(p.requestedSchema)) forms.set(key, p.requestedSchema);
    if (forms.size === 0) return undefined;
    const retry = mrtrKey(o.request.json);
    return () => t.forms.set(retry, forms);
  },
);

/** What `recall` learns from: every rule of this file runs on these too (as well as on what it
 * judges), so that no message that teaches something is missed. */
const LEARNS: Interest[] = ['client-request initialize', 'client-notification initialize', 'server-input_required'];

/** The client capabilities a server ask must respect: the triggering request's (2026-07-28) or initialize's (2025). */
function capabilitiesFor(o: O, state: S): Record<string, unknown> | undefined {
  const t = recall(o, state);
  if (o.request) return clientCapabilities(o.request.json);
  return o.era === 'legacy' ? t.initCaps : undefined;
}

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

/** §15-16 of RULES.md: what a server may ask of the client (elicitation, sampling), on both carriers. */
export const clientAskRules: Rule[] = [
  {
    id: 'ELICIT-URL-SAFE', level: 'MUST NOT', obs: 'H', era: 'all', source: 'client/elicitation.mdx §Safe URL Handling',
    revisions: since('2025-11-25'),
    title: 'An elicitation URL carries no credentials or personal data and is not pre-authenticated',
    on: [...LEARNS, 'server-request elicitation/create', 'server-input_required'],
    check(o, report, state) {
      recall(o, state);
      for (const [p, path] of asked(o, 'elicitation/create')) {
        const why = p.mode === 'url' && typeof p.url === 'string' ? unsafeUrl(p.url) : undefined;
        if (why) report(`${path}/url`, `the URL for the user carries ${why}; a malicious client could use it to impersonate the user`);
      }
    },
  },
  {
    id: 'ELICIT-FORM-NO-LINKS', level: 'SHOULD NOT', obs: 'H', era: 'all', source: 'client/elicitation.mdx §Safe URL Handling',
    revisions: since('2025-06-18'),
    title: 'Form elicitations contain no clickable URLs',
    on: [...LEARNS, 'server-request elicitation/create', 'server-input_required'],
    check(o, report, state) {
      recall(o, state);
      for (const [p, path] of asked(o, 'elicitation/create')) {
        if (p.mode === 'url') continue;
        const found = shownStrings(p, path).find(([s]) => LINK.test(s));
        if (found) report(found[1], `a form elicitation shows the link ${LINK.exec(found[0])![0]}; send the user to a URL only with URL mode`);
      }
    },
  },
  {
    id: 'ELICIT-RESULT-VALID', level: 'SHOULD', obs: 'N', era: 'all', source: 'client/elicitation.mdx §Form Mode Security',
    revisions: since('2025-06-18'),
    title: 'Accepted form content validates against the requestedSchema',
    on: [...LEARNS, 'client-json'],
    check(o, report, state) {
      const t = recall(o, state);
      if (o.msg.direction !== 'client-to-server' || !o.json) return;
      const checks: [Record<string, unknown>, unknown, string][] = [];
      // 2025: the answer to a server's elicitation/create request.
      const asked2025 = o.request?.method === 'elicitation/create' && isObject(o.request.json.params) ? o.request.json.params : undefined;
      if (asked2025 && asked2025.mode !== 'url' && isObject(asked2025.requestedSchema) && isObject(o.json.result)) checks.push([asked2025.requestedSchema, o.json.result, '/result']);
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
  {
    id: 'SAMP-TOOLS-CAP', level: 'MUST NOT', obs: 'N', era: 'all', source: 'client/sampling.mdx §Tools in Sampling',
    revisions: since('2025-11-25'),
    title: 'tools and toolChoice in sampling only when the client declared sampling.tools',
    on: [...LEARNS, 'server-request sampling/createMessage', 'server-input_required'],
    check(o, report, state) {
      const caps = capabilitiesFor(o, state);
      for (const [p, path] of asked(o, 'sampling/createMessage')) {
        const field = 'tools' in p ? 'tools' : 'toolChoice' in p ? 'toolChoice' : undefined;
        // No sampling capability at all is MRTR-DECLARED-ONLY's (or the 2025 capability rules').
        if (!field || !caps || !isObject(caps.sampling) || 'tools' in caps.sampling) continue;
        report(`${path}/${field}`, `a sampling request with ${field}, but the client did not declare sampling.tools`);
      }
    },
  },
  {
    id: 'SAMP-CONTEXT', level: 'SHOULD NOT', obs: 'N', era: 'all', source: 'client/sampling.mdx §Capabilities',
    revisions: since('2025-11-25'),
    title: 'includeContext thisServer/allServers only when the client declared sampling.context',
    on: [...LEARNS, 'server-request sampling/createMessage', 'server-input_required'],
    check(o, report, state) {
      const caps = capabilitiesFor(o, state);
      // sampling.context and the deprecation came with 2025-11-25; before it the values were plain.
      if (!caps || !isObject(caps.sampling) || 'context' in caps.sampling || !o.revision || o.revision < '2025-11-25') return;
      for (const [p, path] of asked(o, 'sampling/createMessage')) {
        if (p.includeContext === 'thisServer' || p.includeContext === 'allServers') report(`${path}/includeContext`, `includeContext ${String(p.includeContext)}, but the client did not declare sampling.context; omit it or use "none"`);
      }
    },
  },
];
