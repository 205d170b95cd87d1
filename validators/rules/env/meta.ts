/** ENV rules on `_meta` keys, implementation info and icons. */
import { isObject, type Rule, since } from '../../rule.js';
import { marks, pointer } from '../../walk.js';
import { metaOf } from '../support/messages.js';
import { pointerToken } from '../../../lib/json-pointer.js';
import { isRpc, validKey, TRACEPARENT, reservedKeys } from './support.js';

export const metaRules: Rule[] = [
  {
    id: 'ENV-SERVERINFO',
    level: 'SHOULD',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §`_meta`',
    title: 'Every result carries `_meta["io.modelcontextprotocol/serverInfo"]`',
    on: ['server-result'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !isRpc(o.json) || !isObject(o.json.result)) return;
      const meta = o.json.result._meta;
      if (!isObject(meta) || !isObject(meta['io.modelcontextprotocol/serverInfo']))
        report('/result/_meta', 'the result has no io.modelcontextprotocol/serverInfo in `_meta`');
    },
  },
  {
    id: 'ENV-META-KEYFORMAT',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §`_meta`',
    revisions: since('2025-06-18'),
    title: '`_meta` keys are an optional dotted prefix with "/" and a name of [A-Za-z0-9._-]',
    on: ['json'],
    check(o, report) {
      if (!o.json) return;
      for (const [meta, at] of marks(o.json).metas) {
        for (const key of Object.keys(meta))
          if (!validKey(key)) report(`${pointer(at)}/${pointerToken(key)}`, `_meta key ${JSON.stringify(key)} is not a valid key`);
      }
    },
  },
  {
    id: 'ENV-ICON-SCHEME',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §`icons`',
    revisions: since('2025-11-25'),
    title: 'Icon src is https: or data:',
    on: ['server-json'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      for (const [icon, at] of marks(o.json).icons) {
        const src = isObject(icon) ? icon.src : undefined;
        if (typeof src === 'string' && !/^(https|data):/i.test(src))
          report(`${pointer(at)}/src`, `icon src ${JSON.stringify(src.slice(0, 60))} is neither https: nor data:; clients must reject it`);
      }
    },
  },
  {
    id: 'ENV-META-RESERVED',
    level: 'desc',
    obs: 'H',
    era: 'all',
    source: 'basic/index.mdx §`_meta`',
    revisions: since('2025-06-18'),
    title: 'Keys under the MCP-reserved prefixes are ones MCP defines',
    on: ['json'],
    check(o, report) {
      reservedKeys(metaOf(o.json?.params), '/params/_meta', report);
      reservedKeys(metaOf(o.json?.result), '/result/_meta', report);
    },
  },
  {
    id: 'ENV-META-OTEL',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/index.mdx §`_meta`',
    revisions: since('2026-07-28'),
    title: 'traceparent follows W3C Trace Context',
    on: ['json'],
    check(o, report) {
      const meta = metaOf(o.json?.params);
      const tp = meta?.traceparent;
      if (tp !== undefined && (typeof tp !== 'string' || !TRACEPARENT.test(tp)))
        report('/params/_meta/traceparent', `traceparent ${JSON.stringify(tp)} is not a W3C Trace Context value`);
    },
  },
];
