/** RULES.md §8: completion (COMPL). */
import { isObject, type Rule } from '../rule.js';
import { exchangeOf, fromServer, PRE_DISPATCH_CODES, PRE_DISPATCH_STATUS } from './support/http.js';
import { knownList, learnLists, LIST_LEARNS, mayExpandTo } from './support/known-lists.js';
import { type O, obj, params, refusable, resultFor, type S } from './support/messages.js';

/**
 * COMPL-ERR: the prompt or resource a completion's `ref` names, in words, when the server's lists
 * show it has no such thing. A resource ref may name a template or a plain resource (the SDKs
 * complete a listed resource's URI with no values), so both lists must be known.
 */
function unknownRef(o: O, state: S): string | undefined {
  const ref = obj(params(o.request!.json).ref);
  if (ref?.type === 'ref/prompt' && typeof ref.name === 'string') {
    const prompts = knownList(o, state, 'prompts/list');
    if (!prompts || prompts.names.has(ref.name)) return undefined;
    const name = JSON.stringify(ref.name);
    return prompts.source
      ? `prompt ${name}, which ${prompts.source} does not name,`
      : `prompt ${name} of a server that declares no prompts`;
  }
  if (ref?.type !== 'ref/resource' || typeof ref.uri !== 'string') return undefined;
  const uri = ref.uri;
  const templates = knownList(o, state, 'resources/templates/list');
  const resources = knownList(o, state, 'resources/list');
  if (!templates || !resources || resources.names.has(uri) || [...templates.names].some((t) => mayExpandTo(t, uri))) return undefined;
  const none = 'a server that declares no resources';
  return templates.source || resources.source
    ? `resource ${JSON.stringify(uri)}, which matches no template of ${templates.source ?? none} and names no resource of ${resources.source ?? none},`
    : `resource ${JSON.stringify(uri)} of ${none}`;
}

export const completionRules: Rule[] = [
  {
    id: 'COMPL-RESULT-SHAPE',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/utilities/completion.mdx §Completion Results',
    title: 'completion.values is a string[] of at most 100 items',
    on: ['result completion/complete'],
    check(o, report) {
      const r = resultFor(o, 'completion/complete');
      if (!r) return;
      const c = isObject(r.completion) ? r.completion : undefined;
      if (!c || !Array.isArray(c.values) || !c.values.every((v) => typeof v === 'string'))
        return report('/result/completion/values', '`completion.values` is not an array of strings');
      if (c.values.length > 100) report('/result/completion/values', `${c.values.length} values; at most 100 are allowed`);
    },
  },
  {
    id: 'COMPL-TOTAL',
    level: 'derived',
    obs: '1',
    era: 'all',
    source: 'server/utilities/completion.mdx §Completion Results',
    title: 'completion.total, when present, is at least the number of values',
    on: ['result completion/complete'],
    check(o, report) {
      const c = isObject(resultFor(o, 'completion/complete')?.completion)
        ? (resultFor(o, 'completion/complete')!.completion as Record<string, unknown>)
        : undefined;
      if (c && typeof c.total === 'number' && Array.isArray(c.values) && c.total < c.values.length)
        report('/result/completion/total', `total ${c.total} is below the ${c.values.length} values returned`);
    },
  },
  {
    id: 'COMPL-ERR',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/utilities/completion.mdx §Error Handling',
    title: 'Completion for a prompt or resource the server does not have gets -32602, not another error',
    on: LIST_LEARNS,
    check(o, report, state) {
      learnLists(o, state);
      const req = o.request;
      const e = o.msg.direction === 'server-to-client' && req?.method === 'completion/complete' ? obj(o.json?.error) : undefined;
      const code = e?.code;
      // -32602 is right; -32601 says the server has no completions (COMPL-UNSUPPORTED); on
      // 2026-07-28 -32002 and -32042 are ENV-ERRCODE-REMOVED's; a refused request proves nothing.
      if (
        typeof code !== 'number' ||
        code === -32602 ||
        PRE_DISPATCH_CODES.has(code) ||
        (code === -32601 && !isObject(state.serverCapabilities?.completions)) ||
        ((code === -32002 || code === -32042) && o.era === 'modern') ||
        refusable(req!, state)
      )
        return;
      const x = exchangeOf(o, state);
      if (x && (!fromServer(x) || PRE_DISPATCH_STATUS.has(x.status!))) return;
      const unknown = unknownRef(o, state);
      // On 2025 revisions -32002 (resource not found) is a fair answer for a resource.
      if (!unknown || (code === -32002 && unknown.startsWith('resource '))) return;
      report(
        '/error/code',
        `completion/complete for ${unknown} was answered with error ${code}; an invalid prompt or resource gets -32602 (Invalid params)`,
      );
    },
  },
  {
    id: 'COMPL-RANKED',
    level: 'SHOULD',
    obs: 'H',
    era: 'all',
    source: 'server/utilities/completion.mdx §Implementation Considerations',
    title: 'Completion values are sorted by relevance (exact and prefix matches first)',
    on: ['result completion/complete'],
    check(o, report) {
      const c =
        o.request?.method === 'completion/complete' && o.json && isObject(o.json.result) && isObject(o.json.result.completion)
          ? o.json.result.completion
          : undefined;
      const p = o.request && isObject(o.request.json.params) ? o.request.json.params : {};
      const typed = isObject(p.argument) && typeof p.argument.value === 'string' ? p.argument.value.trim().toLowerCase() : '';
      if (!c || !Array.isArray(c.values) || typed === '' || !c.values.every((v) => typeof v === 'string')) return;
      const values = c.values as string[];
      // 0 exact, 1 starts with what was typed, 2 contains it, 3 unrelated.
      const rank = (v: string) =>
        v.toLowerCase() === typed ? 0 : v.toLowerCase().startsWith(typed) ? 1 : v.toLowerCase().includes(typed) ? 2 : 3;
      const exact = values.findIndex((v) => rank(v) === 0);
      if (exact > 0)
        return report(
          `/result/completion/values/${exact}`,
          `the exact match ${JSON.stringify(values[exact])} comes after ${exact} other value(s); rank values by relevance`,
        );
      const unrelated = values.findIndex((v) => rank(v) === 3);
      const late = unrelated < 0 ? -1 : values.findIndex((v, i) => i > unrelated && rank(v) <= 1);
      if (late > 0)
        report(
          `/result/completion/values/${late}`,
          `${JSON.stringify(values[late])} starts with the typed ${JSON.stringify(typed)} but comes after ${JSON.stringify(values[unrelated])}, which does not contain it; rank values by relevance`,
        );
    },
  },
];
