/** RULES.md §16: roots (ROOTS; deprecated in 2026-07-28). */
import { isObject, type Rule } from '../rule.js';

export const rootsRules: Rule[] = [
  {
    id: 'ROOTS-FILE-URI',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'client/roots.mdx §Root',
    title: 'Root URIs are file:// URIs',
    on: ['client-json'],
    check(o, report) {
      if (o.msg.direction !== 'client-to-server' || !o.json) return;
      const roots: [unknown, string][] = [];
      if (o.request?.method === 'roots/list' && isObject(o.json.result) && Array.isArray(o.json.result.roots))
        roots.push(...o.json.result.roots.map((r, i) => [r, `/result/roots/${i}`] as [unknown, string]));
      const responses = isObject(o.json.params) && isObject(o.json.params.inputResponses) ? o.json.params.inputResponses : {};
      for (const [k, v] of Object.entries(responses))
        if (isObject(v) && Array.isArray(v.roots))
          roots.push(...v.roots.map((r, i) => [r, `/params/inputResponses/${k}/roots/${i}`] as [unknown, string]));
      for (const [r, at] of roots)
        if (isObject(r) && typeof r.uri === 'string' && !r.uri.startsWith('file://'))
          report(`${at}/uri`, `root ${JSON.stringify(r.uri)} is not a file:// URI`);
    },
  },
];
