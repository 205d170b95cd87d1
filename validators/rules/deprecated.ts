/** RULES.md §16: use of deprecated features (DEPRECATED). */
import type { Rule } from '../rule.js';
import { asking, asks } from './support/memories.js';

export const deprecatedRules: Rule[] = [
  {
    id: 'DEPRECATED-USE',
    level: 'SHOULD NOT',
    obs: '1',
    era: 'modern',
    source: 'deprecated.mdx',
    severity: 'info',
    title: 'Roots, Sampling and includeContext thisServer/allServers are deprecated',
    on: [...asking('sampling/createMessage'), ...asking('roots/list')],
    check(o, report) {
      for (const method of ['sampling/createMessage', 'roots/list']) {
        for (const [p, at] of asks(o, method)) {
          report(at, `${method} is deprecated in 2026-07-28`);
          if (p.includeContext === 'thisServer' || p.includeContext === 'allServers')
            report(`${at}/includeContext`, `includeContext ${String(p.includeContext)} is deprecated`);
        }
      }
    },
  },
];
