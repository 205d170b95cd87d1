/** RULES.md §2: the structure rules of versions and discovery (VER), judged as support.ts says. */
import type { Rule } from '../../rule.js';
import { MODERN_TYPES, structureRules } from './support.js';

export const versionStructureRules: Rule[] = structureRules([
  {
    id: 'VER-DISCOVER-REQ',
    level: 'schema',
    source: 'server/discover.mdx §Request',
    title: 'A server/discover request carries only _meta in params',
    revisions: MODERN_TYPES,
  },
  {
    id: 'VER-DISCOVER-RESULT',
    level: 'MUST',
    source: 'server/discover.mdx §Response',
    title: 'A DiscoverResult has the DiscoverResult structure',
    revisions: MODERN_TYPES,
  },
  {
    id: 'VER-UNSUPPORTED-32022',
    level: 'MUST',
    source: 'basic/versioning.mdx §Protocol Version Negotiation',
    title: '-32022 has the UnsupportedProtocolVersionError structure',
    revisions: MODERN_TYPES,
  },
  {
    id: 'VER-MISSING-CAP-32021',
    level: 'MUST',
    source: 'basic/index.mdx §`_meta`',
    title: '-32021 carries data.requiredCapabilities in the ClientCapabilities shape',
    revisions: MODERN_TYPES,
  },
]);
