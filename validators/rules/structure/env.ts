/** RULES.md §1: the structure rules of the JSON-RPC envelope and message model (ENV), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { structureRules } from './support.js';

export const envStructureRules: Rule[] = structureRules([
  {
    id: 'ENV-JSONRPC20',
    level: 'MUST',
    source: 'basic/index.mdx §Messages',
    title: 'Messages have the structure of their spec type (types no other rule names)',
  },
  {
    id: 'ENV-IMPL-SHAPE',
    level: 'schema',
    source: 'schema.ts:Implementation',
    title: 'clientInfo and serverInfo are Implementation objects (name and version required)',
  },
]);
