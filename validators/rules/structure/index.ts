/**
 * The structure rules (the `1·S` rules of each family), which run after every other rule (see
 * ../index.ts). Their order is the order of the `rules` table and of a message's findings, kept as
 * it was: TOOLS-MEDIA-B64 first (the shape rules then skip what it reported), then each family's
 * shape rules in the catalogue's order. A new one goes at the end of its family's file.
 */
import type { Rule } from '../../rule.js';
import { envStructureRules } from './env.js';
import { versionStructureRules } from './version.js';
import { mediaRule, toolStructureRules } from './tools.js';
import { resourceStructureRules } from './resources.js';
import { promptStructureRules } from './prompts.js';
import { completionStructureRules } from './completion.js';
import { loggingStructureRules } from './logging.js';
import { progressStructureRules } from './progress.js';
import { subscriptionStructureRules } from './subscriptions.js';
import { mrtrStructureRules } from './mrtr.js';
import { elicitationStructureRules } from './elicitation.js';
import { samplingStructureRules } from './sampling.js';

export const structureRulesLast: Rule[] = [
  mediaRule,
  ...envStructureRules,
  ...versionStructureRules,
  ...toolStructureRules,
  ...resourceStructureRules,
  ...promptStructureRules,
  ...completionStructureRules,
  ...loggingStructureRules,
  ...progressStructureRules,
  ...subscriptionStructureRules,
  ...mrtrStructureRules,
  ...elicitationStructureRules,
  ...samplingStructureRules,
];
