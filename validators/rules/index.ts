import type { Rule } from '../rule.js';
import { capabilityRules } from './capabilities.js';
import { envelopeRules } from './envelope.js';
import { httpRules } from './http.js';
import { clientFeatureRules } from './client-features.js';
import { metaRules } from './meta.js';
import { mrtrRules } from './mrtr.js';
import { securityRules } from './security.js';
import { stdioRules } from './stdio.js';
import { toolRules } from './tools.js';
import { transportExtraRules } from './transport-extra.js';
import { utilityRules } from './utilities.js';
import { versionRules } from './version.js';

/** Every implemented rule, in catalogue order (explicit list, no directory scanning). */
export const RULES: readonly Rule[] = [...envelopeRules, ...metaRules, ...versionRules, ...capabilityRules, ...toolRules, ...utilityRules, ...mrtrRules, ...clientFeatureRules, ...stdioRules, ...httpRules, ...transportExtraRules, ...securityRules];
