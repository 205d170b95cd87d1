/** RULES.md §7: the structure rules of prompts (PROMPTS), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const promptStructureRules: Rule[] = structureRules([
  {
    id: 'PROMPTS-LIST-SHAPE',
    level: 'schema',
    source: 'server/prompts.mdx §Listing Prompts',
    title: 'A ListPromptsResult has prompts: Prompt[] (name; arguments[])',
  },
  {
    id: 'PROMPTS-GET-SHAPE',
    level: 'schema',
    source: 'server/prompts.mdx §Getting a Prompt',
    title: 'A GetPromptResult has messages of {role, content}',
  },
  {
    id: 'PROMPTS-ARGS-STRINGS',
    level: 'schema',
    source: 'server/prompts.mdx §Getting a Prompt',
    title: 'prompts/get arguments map strings to strings',
  },
]);
