import type { Rule } from '../rule.js';
import { authRules } from './auth.js';
import { cacheRules } from './cache.js';
import { cancelRules } from './cancel.js';
import { capabilityRules } from './capabilities.js';
import { completionRules } from './completion.js';
import { deprecatedRules } from './deprecated.js';
import { elicitationRules } from './elicitation.js';
import { envRules } from './env/index.js';
import { httpRules } from './http/index.js';
import { loggingRules } from './logging.js';
import { mrtrRules } from './mrtr.js';
import { paginationRules } from './pagination.js';
import { progressRules } from './progress.js';
import { promptRules } from './prompts.js';
import { resourceRules } from './resources.js';
import { rootsRules } from './roots.js';
import { samplingRules } from './sampling.js';
import { securityRules } from './security.js';
import { stateRules } from './state.js';
import { stdioRules } from './stdio.js';
import { structureRulesLast } from './structure/index.js';
import { subscriptionRules } from './subscriptions.js';
import { taskRules } from './tasks.js';
import { toolRules } from './tools/index.js';
import { versionRules } from './version.js';

/**
 * Every implemented rule (explicit list, no directory scanning): one file per rule-ID family, in
 * the order of the catalogue's sections (RULES.md §1-22), which is also the order of the `rules`
 * table. The engine runs the rules in this order, so a message's findings come in it too. The
 * structure rules come last: they skip what a more specific rule already reported for the same
 * message. The recording rules (in their families) judge whole recordings (validators/recording.ts),
 * not single messages.
 */
export const RULES: readonly Rule[] = [
  ...envRules, // §1 ENV
  ...versionRules, // §2 VER
  ...stateRules, // §3 STATE
  ...capabilityRules, // §4 CAP
  ...toolRules, // §5 TOOLS
  ...resourceRules, // §6 RES
  ...promptRules, // §7 PROMPTS
  ...completionRules, // §8 COMPL
  ...loggingRules, // §9 LOG
  ...progressRules, // §10 PROG
  ...cancelRules, // §11 CANCEL
  ...paginationRules, // §12 PAGE
  ...cacheRules, // §12 CACHE
  ...subscriptionRules, // §13 SUB
  ...mrtrRules, // §14 MRTR
  ...elicitationRules, // §15 ELICIT
  ...samplingRules, // §16 SAMP
  ...rootsRules, // §16 ROOTS
  ...deprecatedRules, // §16 DEPRECATED
  ...taskRules, // §17 TASKS
  ...stdioRules, // §18 STDIO
  ...httpRules, // §19 HTTP
  ...authRules, // §20 AUTH
  ...securityRules, // §22 SEC
  ...structureRulesLast,
];
