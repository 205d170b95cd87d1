/** TOOLS rules on `tools/list`: order, tool names and list changes. */
import { type Rule, since } from '../../rule.js';
import { seenAt } from '../../session-state.js';
import { invariance, nameOf, relist } from '../support/memories.js';
import { clientRequest, params } from '../support/messages.js';
import { ACKNOWLEDGED, listChangedRefused, memoryOf } from '../support/negotiated.js';
import { listedTools } from './support.js';

const NAME = /^[A-Za-z0-9_.-]+$/;

export const listingRules: Rule[] = [
  invariance('tools/list'),
  {
    id: 'TOOLS-LIST-ORDER',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Capabilities',
    revisions: since('2026-07-28'),
    title: 'Tools come in the same order while the set is unchanged',
    on: ['result tools/list'],
    check(o, report, state) {
      const r = relist(o, state, 'tools/list', false);
      if (!r) return;
      const was = r.before.items.map(nameOf);
      const now = r.items.map(nameOf);
      if (
        was.length === now.length &&
        [...was].sort().join('\u0000') === [...now].sort().join('\u0000') &&
        was.join('\u0000') !== now.join('\u0000')
      ) {
        report('/result/tools', `same tools as in ${seenAt(r.before, state)}, in a different order`);
      }
    },
  },
  {
    id: 'TOOLS-NAME-LENGTH',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    revisions: since('2025-11-25'),
    title: 'A tool name is 1-128 characters',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        if (typeof t.name === 'string' && (t.name.length < 1 || t.name.length > 128))
          report(`/result/tools/${i}/name`, `tool name is ${t.name.length} characters long`);
      });
    },
  },
  {
    id: 'TOOLS-NAME-FORMAT',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    revisions: since('2025-11-25'),
    title: 'A tool name uses only [A-Za-z0-9_.-]',
    on: ['result tools/list'],
    check(o, report) {
      listedTools(o).forEach((t, i) => {
        if (typeof t.name === 'string' && t.name.length > 0 && !NAME.test(t.name))
          report(`/result/tools/${i}/name`, `tool name ${JSON.stringify(t.name)} has characters outside [A-Za-z0-9_.-]`);
      });
    },
  },
  {
    id: 'TOOLS-NAME-UNIQUE',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    title: 'Tool names are unique within a server',
    on: ['result tools/list'],
    check(o, report) {
      const seen = new Set<string>();
      listedTools(o).forEach((t, i) => {
        if (typeof t.name !== 'string') return;
        if (seen.has(t.name)) report(`/result/tools/${i}/name`, `tool ${JSON.stringify(t.name)} is listed twice`);
        seen.add(t.name);
      });
    },
  },
  {
    id: 'TOOLS-LISTCHANGED',
    level: 'SHOULD',
    obs: 'N',
    era: 'modern',
    source: 'server/tools.mdx §List Changed Notification',
    title: 'A server that declared tools.listChanged honours toolsListChanged on listen streams',
    on: ACKNOWLEDGED,
    check(o, report, state) {
      memoryOf(o, state);
      // A changed list without the notification is TOOLS-LIST-INVARIANT; this is the refusal up front.
      if (listChangedRefused(o, state, ['tools']).length)
        report(
          '/params/notifications',
          'the subscription asked for toolsListChanged and the server declared tools.listChanged, but the acknowledgment leaves it out',
        );
    },
  },
  {
    id: 'TOOLS-NAME-CASE',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'server/tools.mdx §Tool Names',
    title: 'tools/call uses a tool name in the exact case tools/list gave',
    on: ['client-request tools/call'],
    check(o, report, state) {
      const m = memoryOf(o, state);
      const req = clientRequest(o);
      const name = req?.method === 'tools/call' ? params(req).name : undefined;
      // The tool-name guidance arrived in 2025-11-25; a partly fetched list proves nothing.
      if (
        typeof name !== 'string' ||
        !m.toolsComplete ||
        state.tools.has(name) ||
        !(o.era === 'modern' || (o.revision ?? '') >= '2025-11-25')
      )
        return;
      const listedAs = [...state.tools.keys()].find((t) => t.toLowerCase() === name.toLowerCase());
      if (listedAs !== undefined)
        report(
          '/params/name',
          `tools/call names ${JSON.stringify(name)}, but the tool is listed as ${JSON.stringify(listedAs)}; tool names are case-sensitive`,
        );
    },
  },
];
