/** RULES.md §9: logging (LOG; deprecated in 2026-07-28). */
import { isObject, type Rule } from '../rule.js';
import { at, LISTEN, metaOf, notification, type O, type S, SUB_ID } from './support/messages.js';

const LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'];

const LOG_LEVEL = 'io.modelcontextprotocol/logLevel';

// Log data that must not be there (LOG-NO-SECRETS). Credential-shaped tokens (Bearer, JWT, AWS,
// private keys) are SEC-SECRET-LEAK's; these are named secrets, URL passwords and personal data.
const SECRET_KEY =
  /^(pass(word|wd)?|pwd|secret|client[-_]?secret|api[-_]?key|access[-_]?token|refresh[-_]?token|auth[-_]?token|private[-_]?key|authorization|cookie|set-cookie)$/i;

const SECRET_TEXT =
  /\b(password|passwd|pwd|secret|api[_-]?key|access[_-]?token|refresh[_-]?token|client[_-]?secret)\b\s*[:=]\s*["']?([^\s"',;]{3,})/i;

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
      if (SECRET_KEY.test(k) && typeof x === 'string' && x.trim() !== '' && !MASKED.test(x.trim()))
        return [at(path, k), `a ${k} field with a value`];
      const f = findSensitive(x, at(path, k));
      if (f) return f;
    }
  }
  return undefined;
}

export const loggingRules: Rule[] = [
  {
    id: 'LOG-THRESHOLD',
    level: 'SHOULD NOT',
    obs: 'N',
    era: 'modern',
    source: 'server/utilities/logging.mdx §Log Levels',
    title: 'No log messages below the level the request asked for',
    on: ['notification notifications/message'],
    check(o, report, state) {
      const p = notification(o, 'notifications/message');
      if (!p || typeof p.level !== 'string' || !o.msg.http) return;
      // On HTTP a log message rides the response stream of the request that set the level.
      const request = [...state.pending['client-to-server'].values()].find((r) => r.msg.http?.exchange === o.msg.http!.exchange);
      const meta = request && isObject(request.json.params) && isObject(request.json.params._meta) ? request.json.params._meta : undefined;
      const wanted = meta?.['io.modelcontextprotocol/logLevel'];
      if (typeof wanted === 'string' && LEVELS.indexOf(p.level) < LEVELS.indexOf(wanted))
        report('/params/level', `a ${p.level} message, below the ${wanted} level the request asked for`);
    },
  },
  {
    id: 'LOG-DEPRECATED',
    level: 'SHOULD NOT',
    obs: '1',
    era: 'modern',
    source: 'server/utilities/logging.mdx',
    severity: 'info',
    title: 'The Logging feature is deprecated in 2026-07-28',
    on: ['server-request notifications/message', 'server-notification notifications/message'],
    check(o, report) {
      if (o.msg.direction === 'server-to-client' && o.json?.method === 'notifications/message')
        report('/method', 'notifications/message (Logging) is deprecated in 2026-07-28; log to stderr or your own channel');
    },
  },
  {
    id: 'LOG-OPT-IN',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'server/utilities/logging.mdx §Per-request log level',
    title: 'No log messages for a request whose _meta lacks io.modelcontextprotocol/logLevel',
    on: ['server-notification notifications/message'],
    check(o, report, state) {
      if (
        o.msg.direction !== 'server-to-client' ||
        !notification(o, 'notifications/message') ||
        metaOf(o.json!.params)?.[SUB_ID] !== undefined
      )
        return;
      const mine = owners(o, state);
      // A log on a listen stream or outside any request is LOG-REQUEST-SCOPED's (and SUB-NO-REQSCOPED's).
      if (mine.length === 0 || mine.some((r) => r.method === LISTEN || logLevelOf(r.json) !== undefined)) return;
      const names = mine.map((r) => `${r.method} ${JSON.stringify(r.json.id)}`).join(', ');
      report(
        '/method',
        `a log message for ${names}, ${mine.length === 1 ? 'which did not ask' : 'none of which asked'} for logs; send notifications/message only for requests whose _meta carries ${LOG_LEVEL}`,
      );
    },
  },
  {
    id: 'LOG-REQUEST-SCOPED',
    level: 'MUST NOT',
    obs: 'N',
    era: 'modern',
    source: 'server/utilities/logging.mdx §Per-request log level',
    title: 'Log messages ride only the response stream of the request that set the level, before its response',
    on: ['server-notification notifications/message'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !notification(o, 'notifications/message')) return;
      const sub = metaOf(o.json!.params)?.[SUB_ID];
      if (sub !== undefined)
        return report(
          at('/params/_meta', SUB_ID),
          `a log message on subscription ${JSON.stringify(sub)}; logs are request-scoped and never ride a subscriptions/listen stream`,
        );
      if (o.msg.http) {
        // A log on a listen stream is SUB-NO-REQSCOPED's; here: after the response of its stream.
        const answered = (state.responsesInExchange.get(o.msg.http.exchange) ?? 0) > 0;
        if (!state.exchangeRequest(o.msg.http.exchange) && answered)
          report('/method', "a log message after the response that ended its request's stream");
        return;
      }
      if (owners(o, state).length === 0)
        report(
          '/method',
          'a log message while no request is in flight; logs go only to the request that set the level, before its response',
        );
    },
  },
  {
    id: 'LOG-NO-SECRETS',
    level: 'MUST NOT',
    obs: 'H',
    era: 'all',
    source: 'server/utilities/logging.mdx §Security',
    title: 'Log messages carry no credentials, secrets or personal data',
    on: ['server-notification notifications/message'],
    check(o, report) {
      const p = o.msg.direction === 'server-to-client' ? notification(o, 'notifications/message') : undefined;
      const found = p ? findSensitive(p.data, '/params/data') : undefined;
      if (found) report(found[0], `a log message carries ${found[1]}; remove credentials and personal data from logs`);
    },
  },
];
