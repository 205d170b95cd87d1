/** RULES.md §6: the structure rules of resources (RES), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const resourceStructureRules: Rule[] = structureRules([
  {
    id: 'RES-LIST-SHAPE',
    level: 'schema',
    source: 'server/resources.mdx §Listing Resources',
    title: 'resources/list and resources/templates/list results have their structure',
  },
  {
    id: 'RES-READ-SHAPE',
    level: 'schema',
    source: 'server/resources.mdx §Reading Resources',
    title: 'resources/read returns contents[] of {uri, text} or {uri, blob}',
  },
  {
    id: 'RES-ANNOTATIONS',
    level: 'schema',
    source: 'server/resources.mdx §Annotations',
    title: 'Annotations: priority in [0,1], audience of user/assistant',
  },
]);
