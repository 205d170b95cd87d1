/** RULES.md §8: completion (COMPL). */
import { isObject, type Rule } from '../rule.js';
import { resultFor } from './support/messages.js';

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
