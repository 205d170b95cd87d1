/** RULES.md §5: tools (TOOLS), x-mcp-header included, by subject. */
import type { Rule } from '../../rule.js';
import { callRules } from './calls.js';
import { headerRules } from './headers.js';
import { listingRules } from './listing.js';
import { schemaRules } from './schemas.js';

/**
 * The order the engine runs the TOOLS rules in. A message's findings come out in rule order, so
 * this list keeps reports identical to what earlier versions wrote; a new rule goes at the end.
 */
const ORDER = [
  'TOOLS-LIST-INVARIANT',
  'TOOLS-LIST-ORDER',
  'TOOLS-ERR-EXECUTION',
  'TOOLS-NAME-LENGTH',
  'TOOLS-NAME-FORMAT',
  'TOOLS-NAME-UNIQUE',
  'TOOLS-INPUTSCHEMA-OBJ',
  'TOOLS-SCHEMA-VALID',
  'TOOLS-DIALECT-UNSUPPORTED',
  'TOOLS-NOPARAM',
  'TOOLS-OUTPUT-CONFORM',
  'TOOLS-STRUCT-MIRROR',
  'TOOLS-ERR-PROTOCOL',
  'TOOLS-RETRY-NEW-ID',
  'TOOLS-LISTCHANGED',
  'TOOLS-NAME-CASE',
  'TOOLS-XMCPHEADER-VALID',
  'TOOLS-XMCPHEADER-REJECT',
  'TOOLS-XMCPHEADER-SENSITIVE',
];

const byId = new Map([...listingRules, ...schemaRules, ...callRules, ...headerRules].map((r) => [r.id, r]));

// A rule missing from ORDER would silently never run.
if (byId.size !== ORDER.length) throw new Error('every TOOLS rule must be named in ORDER');

export const toolRules: Rule[] = ORDER.map((id) => byId.get(id)!);
