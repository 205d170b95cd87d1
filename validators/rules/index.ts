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
import { negotiationRules } from './negotiation.js';
import { extensionRules } from './extensions.js';
import { featureRules } from './features.js';
import { wireRules } from './wire.js';
import { crossSessionRules } from './cross-session.js';
import { remainingRules } from './remaining.js';
import { structureRulesLast } from './structure.js';

/**
 * Every implemented rule (explicit list, no directory scanning). The structure rules come last:
 * they skip what a more specific rule already reported for the same message. The cross-session
 * rules judge whole recordings (validators/recording.ts), not single messages.
 */
export const RULES: readonly Rule[] = [...envelopeRules, ...metaRules, ...versionRules, ...capabilityRules, ...toolRules, ...utilityRules, ...mrtrRules, ...clientFeatureRules, ...stdioRules, ...httpRules, ...transportExtraRules, ...securityRules, ...negotiationRules, ...extensionRules, ...featureRules, ...wireRules, ...crossSessionRules, ...remainingRules, ...structureRulesLast];
