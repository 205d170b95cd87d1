import { isObject, type Interest, type Rule } from '../rule.js';
import { pointerAt, walk } from '../walk.js';

const OVERRIDE = /(ignore (all )?(the )?(previous|prior|above) (instructions|prompts?)|disregard (all )?(previous|prior) instructions|do not (tell|inform|mention (this )?to) the user|don't tell the user|<\/?(important|system|instructions?)>)/i;
// Zero-width and bidirectional controls, invisible operators, and Unicode tag characters.
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064]|\uDB40[\uDC00-\uDC7F]/;
const SECRET = /(\bBearer\s+[A-Za-z0-9\-._~+/]{20,}=*|\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}|\bAKIA[0-9A-Z]{16}\b|-----BEGIN [A-Z ]*PRIVATE KEY-----|\bsk-[A-Za-z0-9_-]{20,}|\bgh[pousr]_[A-Za-z0-9]{30,})/;

/** The shortest text SECRET can match (AKIA and 16 characters). */
const SECRET_MIN_LENGTH = 20;

// Cheaper tests that every match of OVERRIDE (a word it must contain) and INVISIBLE (a code unit
// it must contain) passes: most strings fail them, and skip the full patterns.
const OVERRIDE_WORD = /ignore|disregard|do not|don't|<\/?(?:important|system|instruction)/i;
const INVISIBLE_UNIT = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\uDB40]/;

function injection(text: string): string | undefined {
  const m = OVERRIDE_WORD.test(text) ? OVERRIDE.exec(text) : null;
  if (m) return `an instruction to the model (${JSON.stringify(m[0])})`;
  if (INVISIBLE_UNIT.test(text) && INVISIBLE.test(text)) return 'invisible or bidirectional Unicode characters';
  return undefined;
}

const LISTS = new Set(['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']);
const CONTENT = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** §22 of RULES.md: security heuristics (warnings, never errors). */
export const securityRules: Rule[] = [
  {
    id: 'SEC-DESC-INJECTION', level: 'desc', obs: 'H', era: 'all', source: 'server/tools.mdx §Security Considerations',
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
    id: 'SEC-RESULT-INJECTION', level: 'desc', obs: 'H', era: 'all', source: 'server/tools.mdx §Security Considerations',
    title: 'Results carry no instructions for the model (indirect prompt injection)',
    on: [...CONTENT].map((m): Interest => `result ${m}`),
    check(o, report) {
      if (!o.request || !CONTENT.has(o.request.method) || !o.json || !isObject(o.json.result)) return;
      const w = walk(o.json);
      for (let i = 0; i < w.strings.length; i++) {
        if (w.tops[i] !== 'result') continue;
        const found = injection(w.strings[i]!);
        if (found) report(pointerAt(w.stringsIn[i], w.stringKeys[i]), `${found} in returned data`);
      }
    },
  },
  {
    id: 'SEC-SECRET-LEAK', level: 'desc', obs: 'H', era: 'all', source: 'server/tools.mdx §Security Considerations',
    title: 'Results, logs and errors carry nothing that looks like a credential',
    on: ['server-result', 'server-error', 'server-request notifications/message', 'server-notification notifications/message'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      const top = isObject(o.json.result) ? 'result' : isObject(o.json.error) ? 'error' : o.json.method === 'notifications/message' ? 'params' : undefined;
      if (top === undefined) return;
      const w = walk(o.json);
      for (let i = 0; i < w.strings.length; i++) {
        const text = w.strings[i]!;
        if (text.length < SECRET_MIN_LENGTH || w.tops[i] !== top) continue;
        const m = SECRET.exec(text);
        if (m) return report(pointerAt(w.stringsIn[i], w.stringKeys[i]), `something that looks like a credential (${m[0].slice(0, 12)}…) in what the server sent`);
      }
    },
  },
  {
    id: 'SEC-STATE-ID-GUESSABLE', level: 'desc', obs: 'H', era: 'all', source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'State identifiers (requestState, ids, handles) are not short, low-entropy or sequential',
    on: ['server-result'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.json || !isObject(o.json.result)) return;
      const s = o.json.result.requestState;
      if (typeof s !== 'string') return;
      const distinct = new Set(s).size;
      const previous = state.handedOut.filter((h) => h.field === 'requestState').map((h) => String(h.value));
      const sequential = previous.some((p) => p.replace(/\d+$/, '') === s.replace(/\d+$/, '') && p !== s && /\d+$/.test(s));
      if (s.length < 16 || distinct < 8 || sequential) {
        report('/result/requestState', `requestState ${JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s)} is ${sequential ? 'sequential' : 'short and low-entropy'}; a client could guess or forge another one unless it is integrity-protected`);
      }
    },
  },
];
