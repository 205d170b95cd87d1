/** RULES.md §14: the structure rules of multi-round-trip requests (MRTR), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { MODERN_TYPES, structureRules } from './support.js';

export const mrtrStructureRules: Rule[] = structureRules([
  {
    id: 'MRTR-KINDS',
    level: 'MUST',
    source: 'basic/patterns/mrtr.mdx §Server Requirements',
    title: 'inputRequests values are bare {method, params} asks of the three kinds',
    revisions: MODERN_TYPES,
  },
  {
    id: 'MRTR-STATE-STRING',
    level: 'schema',
    source: 'basic/patterns/mrtr.mdx §InputRequiredResult',
    title: 'requestState is a string',
    revisions: MODERN_TYPES,
  },
]);
