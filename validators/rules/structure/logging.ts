/** RULES.md §9: the structure rules of logging (LOG), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const loggingStructureRules: Rule[] = structureRules([
  {
    id: 'LOG-SHAPE',
    level: 'schema',
    source: 'server/utilities/logging.mdx §Log Message Notifications',
    title: 'notifications/message has level, data and logger?',
  },
]);
