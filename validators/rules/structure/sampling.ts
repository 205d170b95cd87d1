/** RULES.md §16: the structure rules of sampling (SAMP), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const samplingStructureRules: Rule[] = structureRules([
  {
    id: 'SAMP-REQ-SHAPE',
    level: 'schema',
    source: 'client/sampling.mdx §Request Fields',
    title: 'A sampling request has messages[], maxTokens and valid preferences',
  },
  {
    id: 'SAMP-RESULT-SHAPE',
    level: 'schema',
    source: 'client/sampling.mdx §Result Fields',
    title: 'A CreateMessageResult has role, content and model',
  },
]);
