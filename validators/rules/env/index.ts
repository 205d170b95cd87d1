/** RULES.md §1: the JSON-RPC envelope and message model (ENV), by subject. */
import type { Rule } from '../../rule.js';
import { envelopeRules } from './envelope.js';
import { errorRules } from './errors.js';
import { metaRules } from './meta.js';
import { resultRules } from './results.js';

/**
 * The order the engine runs the ENV rules in. A message's findings come out in rule order, so this
 * list keeps reports identical to what earlier versions wrote; a new rule goes at the end.
 */
const ORDER = [
  'ENV-UTF8',
  'ENV-JSONRPC20',
  'ENV-NO-BATCH',
  'ENV-REQ-ID-TYPE',
  'ENV-REQ-ID-INFLIGHT',
  'ENV-RES-ID-MATCH',
  'ENV-RES-RESULT',
  'ENV-RESULTTYPE-PRESENT',
  'ENV-RESULTTYPE-KNOWN',
  'ENV-ERR-SHAPE',
  'ENV-RESULT-XOR-ERROR',
  'ENV-NOTIF-NO-ID',
  'ENV-NO-SERVER-REQ',
  'ENV-NO-CLIENT-RESP',
  'ENV-ERRCODE-RESERVED',
  'ENV-ERRCODE-REMOVED',
  'ENV-SERVERINFO',
  'ENV-META-KEYFORMAT',
  'ENV-ERRCODE-LEGACYRANGE',
  'ENV-ERRCODE-APPDEF',
  'ENV-ICON-SCHEME',
  'ENV-ERR-MSG',
  'ENV-META-RESERVED',
  'ENV-META-OTEL',
  'ENV-RESULTTYPE-LEGACY',
  'ENV-ERR-ID',
  'ENV-NOTIF-NO-REPLY',
];

const byId = new Map([...envelopeRules, ...resultRules, ...errorRules, ...metaRules].map((r) => [r.id, r]));

// A rule missing from ORDER would silently never run.
if (byId.size !== ORDER.length) throw new Error('every ENV rule must be named in ORDER');

export const envRules: Rule[] = ORDER.map((id) => byId.get(id)!);
