/** RULES.md §16: use of deprecated features (DEPRECATED). */
import { isObject, type Rule } from '../rule.js';
import { at } from './support/messages.js';

/** The asks of the deprecated client features (Sampling, Roots). */
const DEPRECATED_ASKS: ReadonlySet<unknown> = new Set(['sampling/createMessage', 'roots/list']);

export const deprecatedRules: Rule[] = [
  {
    id: 'DEPRECATED-USE',
    level: 'SHOULD NOT',
    obs: '1',
    era: 'modern',
    source: 'deprecated.mdx',
    severity: 'info',
    title: 'Roots, Sampling and includeContext thisServer/allServers are deprecated',
    on: ['server-input_required'],
    check(o, report) {
      // The use is the ask, so its method is what is pointed at (a roots/list input request may
      // have no params). In 2026-07-28 a server asks only through inputRequests: a server request
      // is a message that should not exist at all, ENV-NO-SERVER-REQ's (STDIO-NO-SERVER-REQ's) whole.
      const r = o.msg.direction === 'server-to-client' && o.json && isObject(o.json.result) ? o.json.result : undefined;
      const found: [Record<string, unknown>, string][] = [];
      if (r?.resultType === 'input_required' && isObject(r.inputRequests))
        for (const [k, v] of Object.entries(r.inputRequests))
          if (isObject(v) && DEPRECATED_ASKS.has(v.method)) found.push([v, at('/result/inputRequests', k)]);
      for (const [ask, base] of found) {
        report(`${base}/method`, `${String(ask.method)} is deprecated in 2026-07-28`);
        const p = ask.params;
        if (isObject(p) && (p.includeContext === 'thisServer' || p.includeContext === 'allServers'))
          report(`${base}/params/includeContext`, `includeContext ${String(p.includeContext)} is deprecated`);
      }
    },
  },
];
