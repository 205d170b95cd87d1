/** RULES.md §7: prompts (PROMPTS). */
import { type BareExchangeRule, type ExchangeRule, isObject, type Rule, type SessionEndRule } from '../rule.js';
import { exchangeOf, fromServer, PRE_DISPATCH_CODES, PRE_DISPATCH_STATUS } from './support/http.js';
import { seenAt, type SessionState } from '../session-state.js';
import { invariance, listChanged } from './support/memories.js';
import { BASE64, obj, params, refusable, resultFor, URI } from './support/messages.js';

const MIME = /^[\w.+-]+\/[\w.+-]+(?:\s*;.*)?$/;

// --- PROMPTS-ERR-ARGS ---------------------------------------------------------------------------

/** From the session's prompts/list answers: each prompt's required arguments, and where. */
type Listed = { required: string[]; at: { seq: number; session: string; exchange?: number } };
/** The prompts' required arguments, per server context: on stateless HTTP every exchange is a
 * session of its own, and the prompts/get comes in another exchange than the prompts/list. */
const listedByContext = new WeakMap<object, Map<string, Listed>>();
function promptsOf(state: SessionState): Map<string, Listed> {
  let m = listedByContext.get(state.context);
  if (!m) listedByContext.set(state.context, (m = new Map()));
  return m;
}

export const promptRules: (Rule | ExchangeRule | BareExchangeRule | SessionEndRule)[] = [
  invariance('prompts/list'),
  {
    id: 'PROMPTS-MEDIA',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/prompts.mdx §Image Content',
    title: 'Prompt images and audio are base64 with a valid MIME type',
    on: ['result prompts/get'],
    check(o, report) {
      const r = resultFor(o, 'prompts/get');
      if (!r || !Array.isArray(r.messages)) return;
      r.messages.forEach((m, i) => {
        const c = isObject(m) && isObject(m.content) ? m.content : undefined;
        if (!c || (c.type !== 'image' && c.type !== 'audio')) return;
        if (typeof c.data !== 'string' || !BASE64.test(c.data))
          report(`/result/messages/${i}/content/data`, `${String(c.type)} data is not base64`);
        if (typeof c.mimeType !== 'string' || !MIME.test(c.mimeType))
          report(`/result/messages/${i}/content/mimeType`, `${String(c.type)} has no valid MIME type`);
      });
    },
  },
  {
    id: 'PROMPTS-EMBEDDED',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/prompts.mdx §Embedded Resources',
    title: 'An embedded resource in a prompt has a URI, a MIME type, and text or a base64 blob',
    on: ['result prompts/get'],
    check(o, report) {
      const r = resultFor(o, 'prompts/get');
      if (!r || !Array.isArray(r.messages)) return;
      r.messages.forEach((m, i) => {
        const c = isObject(m) && isObject(m.content) ? m.content : undefined;
        if (!c || c.type !== 'resource') return;
        const res = isObject(c.resource) ? c.resource : {};
        const missing = [
          typeof res.uri === 'string' && URI.test(res.uri) ? '' : 'a valid uri',
          typeof res.mimeType === 'string' ? '' : 'a mimeType',
          typeof res.text === 'string' || (typeof res.blob === 'string' && BASE64.test(res.blob)) ? '' : 'text or a base64 blob',
        ].filter(Boolean);
        if (missing.length) report(`/result/messages/${i}/content/resource`, `the embedded resource lacks ${missing.join(', ')}`);
      });
    },
  },
  listChanged('prompts', 'PROMPTS-LISTCHANGED', 'server/prompts.mdx §List Changed Notification'),
  {
    id: 'PROMPTS-ERR-ARGS',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/prompts.mdx §Error Handling',
    title: 'prompts/get missing an argument prompts/list marked required gets -32602',
    on: ['server-response prompts/list', 'server-response prompts/get'],
    check(o, report, state) {
      const prompts = promptsOf(state);
      const req = o.request;
      if (o.msg.direction !== 'server-to-client' || !o.json || !req) return;
      const r = obj(o.json.result);
      if (req.method === 'prompts/list' && r && Array.isArray(r.prompts)) {
        if (params(req.json).cursor === undefined) prompts.clear(); // a first page starts a new list
        for (const p of r.prompts.map(obj)) {
          if (typeof p?.name !== 'string') continue;
          const required = (Array.isArray(p.arguments) ? p.arguments.map(obj) : [])
            .filter((a) => a?.required === true && typeof a.name === 'string')
            .map((a) => a!.name as string);
          prompts.set(p.name, {
            required,
            at: { seq: o.msg.seq, session: state.session.id, ...(o.msg.http ? { exchange: o.msg.http.exchange } : {}) },
          });
        }
        return;
      }
      const p = params(req.json);
      // A retry carries what the server asked for through MRTR; a changed list may have changed the arguments.
      if (
        req.method !== 'prompts/get' ||
        typeof p.name !== 'string' ||
        'inputResponses' in p ||
        'requestState' in p ||
        state.listChanged.has('prompts')
      )
        return;
      const listed = prompts.get(p.name);
      const args = obj(p.arguments) ?? {};
      const missing = (listed?.required ?? []).filter((a) => !Object.hasOwn(args, a));
      if (!listed || missing.length === 0) return;
      const named = `prompts/get ${JSON.stringify(p.name)} without ${missing.join(', ')}, which prompts/list (${seenAt(listed.at, state)}) marks required,`;
      if (r) {
        if (r.resultType !== 'input_required')
          report('/result', `${named} succeeded; a missing required argument gets -32602 (Invalid params)`);
        return;
      }
      const e = obj(o.json.error);
      const x = exchangeOf(o, state);
      if (
        !e ||
        e.code === -32602 ||
        PRE_DISPATCH_CODES.has(e.code as number) ||
        (x && (!fromServer(x) || PRE_DISPATCH_STATUS.has(x.status!))) ||
        refusable(req, state)
      )
        return;
      report(
        '/error/code',
        `${named} was answered with error ${JSON.stringify(e.code)}; a missing required argument gets -32602 (Invalid params)`,
      );
    },
  },
];
