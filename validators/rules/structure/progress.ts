/** RULES.md §10: the structure rules of progress (PROG), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const progressStructureRules: Rule[] = structureRules([
  {
    id: 'PROG-SHAPE',
    level: 'schema',
    source: 'basic/patterns/progress.mdx §Progress Flow',
    title: 'notifications/progress has progressToken, progress, total?, message?',
  },
  {
    id: 'PROG-TOKEN-TYPE',
    level: 'MUST',
    source: 'basic/patterns/progress.mdx §Progress Flow',
    title: '_meta.progressToken is a string or an integer',
  },
]);
