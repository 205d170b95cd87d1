/** RULES.md §15: the structure rules of elicitation (ELICIT), judged as support.ts says. */
import { since } from '../../rule.js';
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const elicitationStructureRules: Rule[] = structureRules([
  {
    id: 'ELICIT-RESULT-SHAPE',
    level: 'schema',
    source: 'client/elicitation.mdx §Response Actions',
    title: 'An ElicitResult has action accept/decline/cancel and content values of the allowed types',
    revisions: since('2025-06-18'),
  },
]);
