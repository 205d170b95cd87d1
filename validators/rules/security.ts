/** RULES.md §22: security heuristics (SEC; warnings, never errors). */
import { type ExchangeRule, type Interest, isObject, type Rule } from '../rule.js';
import type { SessionState } from '../session-state.js';
import { handedOutIds, lowEntropy, recentValues, sequential } from '../state-ids.js';
import { pointerAt, type Segment, walk } from '../walk.js';
import { fromServer, headerOf } from './support/http.js';

const OVERRIDE =
  /(ignore (all )?(the )?(previous|prior|above) (instructions|prompts?)|disregard (all )?(previous|prior) instructions|do not (tell|inform|mention (this )?to) the user|don't tell the user|<\/?(important|system|instructions?)>)/i;

// Zero-width and bidirectional controls, invisible operators, and Unicode tag characters.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064]|\uDB40[\uDC00-\uDC7F]/;

const SECRET =
  /(\bBearer\s+[A-Za-z0-9\-._~+/]{20,}=*|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----|\bsk-[A-Za-z0-9_-]{20,}|\bgh[pousr]_[A-Za-z0-9]{30,})/;

/** The shortest text SECRET can match (AKIA and 16 characters). */
const SECRET_MIN_LENGTH = 20;

// Cheaper tests that every match of OVERRIDE (a word it must contain) and INVISIBLE (a code unit
// it must contain) passes: most strings fail them, and skip the full patterns.
const OVERRIDE_WORD = /ignore|disregard|do not|don't|<\/?(?:important|system|instruction)/i;

const INVISIBLE_UNIT = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\uDB40]/;

function injection(text: string, prose = true): string | undefined {
  const m = OVERRIDE_WORD.test(text) ? OVERRIDE.exec(text) : null;
  if (m) return `an instruction to the model (${JSON.stringify(m[0])})`;
  if (prose && INVISIBLE_UNIT.test(text) && INVISIBLE.test(text)) return 'invisible or bidirectional Unicode characters';
  return undefined;
}

/**
 * What the `mimeType` beside a resource's `text` says of it. An MCP App (`text/html;profile=mcp-app`)
 * is a page the host renders, not text the model reads: it is not judged. Code and markup (HTML,
 * XHTML, SVG, CSS, JavaScript) carry zero-width and bidirectional characters as a matter of course
 * (entity tables, right-to-left strings, minified bundles): only instructions to the model count
 * there. Everything else, and text without a mimeType, is prose for the model.
 */
function textKind(mimeType: unknown): 'prose' | 'code' | 'app' {
  if (typeof mimeType !== 'string') return 'prose';
  const [base = '', ...params] = mimeType
    .toLowerCase()
    .split(';')
    .map((p) => p.trim());
  if (base === 'text/html' && params.some((p) => p.replace(/"/g, '') === 'profile=mcp-app')) return 'app';
  return CODE_TYPES.has(base) ? 'code' : 'prose';
}

const CODE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/css',
  'text/javascript',
  'application/javascript',
  'application/x-javascript',
  'text/ecmascript',
  'application/ecmascript',
]);

/** The object or array a walked string sits in. */
function containerAt(json: Record<string, unknown>, at: Segment | undefined): unknown {
  const keys: string[] = [];
  for (let s = at; s; s = s.up) keys.push(s.key);
  let v: unknown = json;
  for (let i = keys.length - 1; i >= 0 && v !== null && typeof v === 'object'; i--) v = (v as Record<string, unknown>)[keys[i]!];
  return v;
}

const valuesOf = (state: SessionState, field: string): (string | number)[] => recentValues(state.handedOut, field);

const listed = (seq: { last: (string | number)[]; step: number }): string =>
  `${seq.last.map((v) => JSON.stringify(v)).join(', ')}: step ${seq.step}`;

const LISTS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);

const CONTENT = new Set(['tools/call', 'prompts/get', 'resources/read']);

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\]|::1)$/i;

function urlOf(text: string): URL | undefined {
  if (urls.has(text)) return urls.get(text);
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (urls.size >= 64) urls.clear();
  urls.set(text, url);
  return url;
}

/** The session's target URL is parsed once, not once per exchange (only read, never changed). */
const urls = new Map<string, URL | undefined>();

export const securityRules: (Rule | ExchangeRule)[] = [
  {
    id: 'SEC-DESC-INJECTION',
    level: 'desc',
    obs: 'H',
    era: 'all',
    source: 'server/tools.mdx §Security Considerations',
    title: 'Descriptions and titles carry no instructions for the model, hidden tags or invisible Unicode',
    on: [...LISTS].map((m): Interest => `result ${m}`),
    check(o, report) {
      if (!o.request || !LISTS.has(o.request.method) || !o.json || !isObject(o.json.result)) return;
      const w = walk(o.json);
      for (let i = 0; i < w.strings.length; i++) {
        const key = w.stringKeys[i];
        if (w.tops[i] !== 'result' || !(key === 'description' || key === 'title' || w.stringsIn[i]?.key === 'annotations')) continue;
        const found = injection(w.strings[i]!);
        if (found) report(pointerAt(w.stringsIn[i], key), `${found} in a description the model reads`);
      }
    },
  },
  {
    id: 'SEC-RESULT-INJECTION',
    level: 'desc',
    obs: 'H',
    era: 'all',
    source: 'server/tools.mdx §Security Considerations',
    title: 'Results carry no instructions for the model (indirect prompt injection)',
    on: [...CONTENT].map((m): Interest => `result ${m}`),
    check(o, report) {
      if (!o.request || !CONTENT.has(o.request.method) || !o.json || !isObject(o.json.result)) return;
      const w = walk(o.json);
      for (let i = 0; i < w.strings.length; i++) {
        if (w.tops[i] !== 'result' || !injection(w.strings[i]!)) continue;
        // Resource text (resources/read contents, embedded resources) is judged by its mimeType.
        const holder = w.stringKeys[i] === 'text' ? containerAt(o.json, w.stringsIn[i]) : undefined;
        const kind = isObject(holder) ? textKind(holder.mimeType) : 'prose';
        const found = kind === 'app' ? undefined : injection(w.strings[i]!, kind === 'prose');
        if (found)
          report(
            pointerAt(w.stringsIn[i], w.stringKeys[i]),
            `${found} in returned data${kind === 'code' ? ` (${String((holder as Record<string, unknown>).mimeType)})` : ''}`,
          );
      }
    },
  },
  {
    id: 'SEC-SECRET-LEAK',
    level: 'desc',
    obs: 'H',
    era: 'all',
    source: 'server/tools.mdx §Security Considerations',
    title: 'Results, logs and errors carry nothing that looks like a credential',
    on: ['server-result', 'server-error', 'server-request notifications/message', 'server-notification notifications/message'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      const top = isObject(o.json.result)
        ? 'result'
        : isObject(o.json.error)
          ? 'error'
          : o.json.method === 'notifications/message'
            ? 'params'
            : undefined;
      if (top === undefined) return;
      const w = walk(o.json);
      for (let i = 0; i < w.strings.length; i++) {
        const text = w.strings[i]!;
        if (text.length < SECRET_MIN_LENGTH || w.tops[i] !== top) continue;
        const m = SECRET.exec(text);
        if (m)
          return report(
            pointerAt(w.stringsIn[i], w.stringKeys[i]),
            // Four characters name the shape (AKIA, ghp_, xoxb, sk-…) and give away none of the
            // secret: this message is stored, alerted and shown where the value itself is masked.
            `something that looks like a credential (${m[0].slice(0, 4)}…) in what the server sent`,
          );
      }
    },
  },
  {
    id: 'SEC-STATE-ID-GUESSABLE',
    level: 'desc',
    obs: 'H',
    era: 'all',
    source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'State identifiers (requestState, ids, handles) are not short, low-entropy or sequential',
    on: ['server-result'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.json || !isObject(o.json.result)) return;
      const r = o.json.result;
      if (typeof r.requestState === 'string') {
        const s = r.requestState;
        const seq = sequential([...valuesOf(state, 'requestState'), s]);
        if (lowEntropy(s) || seq) {
          report(
            '/result/requestState',
            `requestState ${JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)} is ${seq ? `sequential (${listed(seq)})` : 'short and low-entropy'}; a client could guess or forge another one unless it is integrity-protected`,
          );
        }
      }
      const p = o.request?.method === 'tools/call' && isObject(o.request.json.params) ? o.request.json.params : undefined;
      if (typeof p?.name !== 'string') return;
      for (const id of handedOutIds(p.name, r)) {
        const seq = sequential([...valuesOf(state, id.field), id.value]);
        // A record id seen once proves nothing; a handle or token is state by its name.
        const weak = seq
          ? `sequential across calls (${listed(seq)})`
          : id.token && lowEntropy(id.value)
            ? `short and low-entropy (${JSON.stringify(id.value)})`
            : undefined;
        if (weak && state.onceForServer(`SEC-STATE-ID-GUESSABLE ${id.field}`)) {
          report(
            id.pointer,
            `${id.member} returned by ${p.name} is ${weak}; identifiers that stand for state should be random, bound to the user and checked on every call`,
          );
        }
      }
    },
  },
  {
    // Needs to know where the server runs: the session's target (offline and live).
    id: 'SEC-LOCAL-HTTP-OPEN',
    level: 'desc',
    obs: 'H',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Security & Endpoint',
    severity: 'info',
    title: 'A loopback HTTP server answers MCP requests without authorization',
    on: [],
    check() {},
    checkExchange(x, first, report, state) {
      const target = state.session.target;
      const url = target && 'url' in target ? urlOf(target.url) : undefined;
      const method = isObject(first.json) ? first.json.method : undefined;
      if (!url || !LOOPBACK.test(url.hostname) || !x.mcp || first.kind !== 'request' || method === 'server/discover' || method === 'ping')
        return;
      if (
        x.status === undefined ||
        x.status < 200 ||
        x.status >= 300 ||
        !fromServer(x) ||
        headerOf(x.requestHeaders, 'authorization') !== undefined
      )
        return;
      if (state.onceForServer('local-http-open'))
        report(
          '',
          `the server on ${url.host} answered ${String(method)} without any Authorization: every local process (and a DNS-rebinding page, unless Origin is checked) can use it; require authentication`,
        );
    },
  },
];
