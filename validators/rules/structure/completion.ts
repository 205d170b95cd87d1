/** RULES.md §8: the structure rules of completion (COMPL), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const completionStructureRules: Rule[] = structureRules([
  {
    id: 'COMPL-REQ-SHAPE',
    level: 'schema',
    source: 'server/utilities/completion.mdx §Requesting Completions',
    title: 'completion/complete has ref, argument {name, value} and context?',
  },
  {
    id: 'COMPL-RESULT-SHAPE',
    level: 'MUST',
    source: 'server/utilities/completion.mdx §Completion Results',
    title: 'A CompleteResult has the CompleteResult structure',
  },
]);
