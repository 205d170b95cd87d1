/** RULES.md §13: the structure rules of subscriptions (SUB), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { MODERN_TYPES, structureRules } from './support.js';

export const subscriptionStructureRules: Rule[] = structureRules([
  {
    id: 'SUB-REQ-SHAPE',
    level: 'schema',
    source: 'basic/patterns/subscriptions.mdx',
    title: 'subscriptions/listen carries params.notifications (a SubscriptionFilter)',
    revisions: MODERN_TYPES,
  },
]);
