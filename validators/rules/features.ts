import { isObject, type Rule } from '../rule.js';
import { idKey } from '../session-state.js';
import { LISTEN, LOG_LEVEL, SUB_ID, at, metaOf, notification, type O, type S } from './features-common.js';
import { cacheRules } from './features-cache.js';
import { clientAskRules } from './features-client.js';
import { subscriptionRules } from './features-subs.js';

const INTERNAL = /\binternal (server )?error\b|\bunhandled (exception|error|rejection)\b/i;
const PRIVATE_IP = /^(10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|169\.254\.\d+\.\d+|\[f[cd][0-9a-f]{2}:.*\])$/;
const INTERNAL_HOST = /\.(internal|local|lan|corp|intranet|home\.arpa)$/;
/** Non-standard spellings a client might use to cancel (LSP's `$/cancelRequest` and friends). */
const OTHER_CANCEL = /^(\$\/cancelRequest|cancel|cancell?ed|notifications\/cancel|notifications\/canceled|notifications\/cancelRequest)$/;

// Log data that must not be there (LOG-NO-SECRETS). Credential-shaped tokens (Bearer, JWT, AWS,
// private keys) are SEC-SECRET-LEAK's; these are named secrets, URL passwords and personal data.
const SECRET_KEY = /^(pass(word|wd)?|pwd|secret|client[-_]?secret|api[-_]?key|access[-_]?token|refresh[-_]?token|auth[-_]?token|private[-_]?key|authorization|cookie|set-cookie)$/i;
const SECRET_TEXT = /\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|refresh[_-]?token|client[_-]?secret)\b\s*[:=]\s*["']?([^\s"',;]{3,})/i;
const URL_PASSWORD = /\b[a-z][a-z0-9+.-]*:\/\/[^\s:@/]+:([^\s@/]+)@/i;
const EMAIL = /\b([A-Za-z0-9._%+-]+)@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b/;
const ROLE_MAILBOX = /^(git|noreply|no-reply|support|admin|info|root|postmaster|hostmaster|webmaster|security|abuse)$/i;
const CARD = /\b\d{4}([ -])\d{4}\1\d{4}\1\d{1,7}\b/;
const SSN = /\b\d{3}-\d{2}-\d{4}\b/;
const MASKED = /^([*x•.#-]+|<[^>]*>|\[[^\]]*\]|\$\{[^}]*\}|redacted|hidden|none|null|undefined|\{\{[^}]*\}\})$/i;

/** The requests a server notification can belong to: on HTTP the one its stream answers, on stdio
 * every request in flight (listen requests aside: they are no request's log channel). */
function owners(o: O, state: S) {
  if (o.msg.http) {
    const r = state.exchangeRequest(o.msg.http.exchange);
    return r ? [r] : [];
  }
  return [...state.pending['client-to-server'].values()].filter((r) => r.method !== LISTEN);
}

const logLevelOf = (request: Record<string, unknown>): unknown => metaOf(request.params)?.[LOG_LEVEL];

/** Why an https URI cannot be fetched by the client from the web on its own, if it cannot. */
function notOnTheWeb(uri: string): string | undefined {
  if (!/^https:\/\//i.test(uri)) return undefined;
  let host: string;
  try {
    host = new URL(uri).hostname.toLowerCase();
  } catch {
    return undefined;
  }
  if (PRIVATE_IP.test(host)) return 'a private network address';
  if (INTERNAL_HOST.test(host)) return 'an internal host name';
  if (!host.includes('.') && host !== 'localhost' && !host.startsWith('[')) return 'a single-label intranet host name';
  return undefined;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1 && (d *= 2) > 9) d -= 9;
    sum += d;
  }
  return sum % 10 === 0;
}

/** What in one log string looks like a secret or personal data. */
function sensitive(text: string): string | undefined {
  const named = SECRET_TEXT.exec(text);
  if (named && !MASKED.test(named[2]!)) return `a ${named[1]!.toLowerCase()} value`;
  const url = URL_PASSWORD.exec(text);
  if (url && !MASKED.test(url[1]!)) return 'a password inside a URL';
  const email = EMAIL.exec(text);
  if (email && !ROLE_MAILBOX.test(email[1]!)) return 'an email address';
  const card = CARD.exec(text);
  if (card && luhn(card[0].replace(/\D/g, ''))) return 'a payment card number';
  if (SSN.test(text)) return 'a social security number';
  return undefined;
}

/** The first sensitive thing in log data, with its path. */
function findSensitive(v: unknown, path: string): [string, string] | undefined {
  if (typeof v === 'string') {
    const what = sensitive(v);
    return what ? [path, what] : undefined;
  }
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const f = findSensitive(v[i], `${path}/${i}`);
      if (f) return f;
    }
  } else if (isObject(v)) {
    for (const [k, x] of Object.entries(v)) {
      if (SECRET_KEY.test(k) && typeof x === 'string' && x.trim() !== '' && !MASKED.test(x.trim())) return [at(path, k), `a ${k} field with a value`];
      const f = findSensitive(x, at(path, k));
      if (f) return f;
    }
  }
  return undefined;
}

/** §6-11 of RULES.md: resources, completion, logging, progress and cancellation, plus the other feature groups. */
const featureCoreRules: Rule[] = [
  {
    id: 'RES-INTERNAL', level: 'SHOULD', obs: '1', era: 'all', source: 'server/resources.mdx §Error Handling',
    title: 'A resource request that failed internally is answered -32603',
    on: ['error'],
    check(o, report) {
      const method = o.request?.method;
      const e = o.json && isObject(o.json.error) ? o.json.error : undefined;
      if (!e || !method?.startsWith('resources/') || e.code === -32603 || typeof e.message !== 'string') return;
      // Only an error that calls itself internal: other failures may have other codes.
      if (INTERNAL.test(e.message)) report('/error/code', `${method} failed with "${e.message}" under code ${String(e.code)}; internal errors use -32603`);
    },
  },
  {
    id: 'RES-HTTPS', level: 'SHOULD', obs: 'H', era: 'all', source: 'server/resources.mdx §https://',
    title: 'https:// resource URIs are ones the client can fetch from the web itself',
    on: ['result resources/list', 'result resources/read'],
    check(o, report, state) {
      const r = o.json && isObject(o.json.result) ? o.json.result : undefined;
      const method = o.request?.method;
      if (!r || (method !== 'resources/list' && method !== 'resources/read')) return;
      const key = method === 'resources/list' ? 'resources' : 'contents';
      (Array.isArray(r[key]) ? (r[key] as unknown[]) : []).forEach((item, i) => {
        const uri = isObject(item) && typeof item.uri === 'string' ? item.uri : undefined;
        const why = uri ? notOnTheWeb(uri) : undefined;
        if (why && state.once(`res-https:${uri}`)) report(`/result/${key}/${i}/uri`, `${uri} is an https URI on ${why}, which a client cannot fetch from the web on its own; use a custom URI scheme and serve it through resources/read`);
      });
    },
  },
  {
    id: 'COMPL-RANKED', level: 'SHOULD', obs: 'H', era: 'all', source: 'server/utilities/completion.mdx §Implementation Considerations',
    title: 'Completion values are sorted by relevance (exact and prefix matches first)',
    on: ['result completion/complete'],
    check(o, report) {
      const c = o.request?.method === 'completion/complete' && o.json && isObject(o.json.result) && isObject(o.json.result.completion) ? o.json.result.completion : undefined;
      const p = o.request && isObject(o.request.json.params) ? o.request.json.params : {};
      const typed = isObject(p.argument) && typeof p.argument.value === 'string' ? p.argument.value.trim().toLowerCase() : '';
      if (!c || !Array.isArray(c.values) || typed === '' || !c.values.every((v) => typeof v === 'string')) return;
      const values = c.values as string[];
      // 0 exact, 1 starts with what was typed, 2 contains it, 3 unrelated.
      const rank = (v: string) => (v.toLowerCase() === typed ? 0 : v.toLowerCase().startsWith(typed) ? 1 : v.toLowerCase().includes(typed) ? 2 : 3);
      const exact = values.findIndex((v) => rank(v) === 0);
      if (exact > 0) return report(`/result/completion/values/${exact}`, `the exact match ${JSON.stringify(values[exact])} comes after ${exact} other value(s); rank values by relevance`);
      const unrelated = values.findIndex((v) => rank(v) === 3);
      const late = unrelated < 0 ? -1 : values.findIndex((v, i) => i > unrelated && rank(v) <= 1);
      if (late > 0) report(`/result/completion/values/${late}`, `${JSON.stringify(values[late])} starts with the typed ${JSON.stringify(typed)} but comes after ${JSON.stringify(values[unrelated])}, which does not contain it; rank values by relevance`);
    },
  },
  {
    id: 'LOG-OPT-IN', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'server/utilities/logging.mdx §Per-request log level',
    title: 'No log messages for a request whose _meta lacks io.modelcontextprotocol/logLevel',
    on: ['server-notification notifications/message'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !notification(o, 'notifications/message') || metaOf(o.json!.params)?.[SUB_ID] !== undefined) return;
      const mine = owners(o, state);
      // A log on a listen stream or outside any request is LOG-REQUEST-SCOPED's (and SUB-NO-REQSCOPED's).
      if (mine.length === 0 || mine.some((r) => r.method === LISTEN || logLevelOf(r.json) !== undefined)) return;
      const names = mine.map((r) => `${r.method} ${JSON.stringify(r.json.id)}`).join(', ');
      report('/method', `a log message for ${names}, ${mine.length === 1 ? 'which did not ask' : 'none of which asked'} for logs; send notifications/message only for requests whose _meta carries ${LOG_LEVEL}`);
    },
  },
  {
    id: 'LOG-REQUEST-SCOPED', level: 'MUST NOT', obs: 'N', era: 'modern', source: 'server/utilities/logging.mdx §Per-request log level',
    title: 'Log messages ride only the response stream of the request that set the level, before its response',
    on: ['server-notification notifications/message'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !notification(o, 'notifications/message')) return;
      const sub = metaOf(o.json!.params)?.[SUB_ID];
      if (sub !== undefined) return report(at('/params/_meta', SUB_ID), `a log message on subscription ${JSON.stringify(sub)}; logs are request-scoped and never ride a subscriptions/listen stream`);
      if (o.msg.http) {
        // A log on a listen stream is SUB-NO-REQSCOPED's; here: after the response of its stream.
        const answered = (state.responsesInExchange.get(o.msg.http.exchange) ?? 0) > 0;
        if (!state.exchangeRequest(o.msg.http.exchange) && answered) report('/method', 'a log message after the response that ended its request\'s stream');
        return;
      }
      if (owners(o, state).length === 0) report('/method', 'a log message while no request is in flight; logs go only to the request that set the level, before its response');
    },
  },
  {
    id: 'LOG-NO-SECRETS', level: 'MUST NOT', obs: 'H', era: 'all', source: 'server/utilities/logging.mdx §Security',
    title: 'Log messages carry no credentials, secrets or personal data',
    on: ['server-notification notifications/message'],
    check(o, report) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/message') : undefined;
      const found = p ? findSensitive(p.data, '/params/data') : undefined;
      if (found) report(found[0], `a log message carries ${found[1]}; remove credentials and personal data from logs`);
    },
  },
  {
    id: 'PROG-STREAM', level: 'MUST', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'Progress travels on the SSE stream of the request it reports on',
    on: ['server-notification notifications/progress'],
    check(o, report, state) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/progress') : undefined;
      const known = p ? state.progress.get(JSON.stringify(p.progressToken)) : undefined;
      const origin = known && !known.answered ? state.pending['client-to-server'].get(known.requestKey) : undefined;
      if (!origin?.msg.http || !o.msg.http || origin.msg.http.exchange === o.msg.http.exchange) return;
      const carrier = state.exchangeRequest(o.msg.http.exchange);
      report('/params/progressToken', `progress for ${origin.method} ${JSON.stringify(origin.json.id)} on the stream of ${carrier ? `${carrier.method} ${JSON.stringify(carrier.json.id)}` : 'another exchange'}; progress goes only on the originating request's stream`);
    },
  },
  {
    id: 'CANCEL-STDIO', level: 'MUST', obs: 'N', era: 'all', transport: 'stdio', source: 'basic/patterns/cancellation.mdx §Transport-Specific Cancellation',
    title: 'On stdio the client cancels with notifications/cancelled naming the request id',
    on: ['client-request', 'client-notification'],
    check(o, report) {
      if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string') return;
      if (OTHER_CANCEL.test(o.json.method)) return report('/method', `a cancellation sent as ${o.json.method}; on stdio a client cancels with notifications/cancelled and the request's id in params.requestId`);
      const p = notification(o, 'notifications/cancelled');
      if (p && !('requestId' in p)) report('/params/requestId', `notifications/cancelled without params.requestId${'id' in p ? ' (the id is in params.id)' : ''}; it must name the request to cancel`);
    },
  },
  {
    id: 'CANCEL-HTTP', level: 'MUST', obs: 'N', era: 'modern', transport: 'streamable-http', source: 'basic/patterns/cancellation.mdx §Transport-Specific Cancellation',
    title: 'On HTTP a stream is ended by closing it, not by a server notifications/cancelled',
    on: ['server-notification notifications/cancelled'],
    check(o, report, state) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/cancelled') : undefined;
      if (!p) return;
      const ref = state.pending['client-to-server'].get(idKey(p.requestId));
      report('/method', `the server sent notifications/cancelled${ref ? ` for ${ref.method} ${JSON.stringify(ref.json.id)}` : ''} over HTTP; on Streamable HTTP closing the SSE stream is the cancellation, and the notification is stdio-only`);
    },
  },
];

/** Server features, utilities, subscriptions and client-feature rules added after the first catalogue pass (see the rule catalogue (RULES.md)). */
export const featureRules: Rule[] = [...featureCoreRules, ...subscriptionRules, ...cacheRules, ...clientAskRules];
