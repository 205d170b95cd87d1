/**
 * What every structure rule (the `1·S` catalogue rules of each family, in this folder) shares:
 * message structure, per revision, is the SDK's published schemas corrected by our revision gates
 * (validators/structure/), checked once per message, and each finding is reported under the rule
 * its type or member maps to (rule-of-type.ts). These rules run last: a problem a more specific
 * rule already reported at the same place is not said twice, and the JSON-RPC envelope belongs to
 * the ENV rules.
 */
import { since, type Interest, type Observed, type Rule, type RuleInfo } from '../../rule.js';
import { CODED_ERRORS, isRevision, targetOf, typeProblems } from '../../structure/check.js';
import { RULE_OF_TYPE, RULES_OF_ANY_TYPE, ruleOf } from '../../structure/rule-of-type.js';
import { NOTIFICATION_TYPE, REQUEST_TYPE } from '../../structure/sdk.js';

interface Finding {
  rule: string;
  path: string;
  message: string;
}

/** The findings of the message being judged (every structure rule asks about the same one). */
let last: { o: Observed; findings: Finding[] } | undefined;
/** Envelope members the ENV rules judge (ENV-JSONRPC20, ENV-REQ-ID-TYPE, ENV-RES-RESULT, ENV-ERR-SHAPE). */
const ENVELOPE = /^(|\/jsonrpc|\/id|\/method|\/result|\/error|\/error\/code|\/error\/message)$/;
const BROAD = new Set(['', '/result', '/params', '/error']);

function structureOf(o: Observed): Finding[] {
  if (last?.o === o) return last.findings;
  const f: Finding[] = [];
  last = { o, findings: f };
  // Every revision from 2024-11-05 on has its gates; an unknown revision string is not judged.
  if (!o.json || !isRevision(o.revision)) return f;
  const target = targetOf(o.json, o.revision, o.request?.method);
  if (!target) return f;
  for (const p of typeProblems(target.type, target.value, o.revision) ?? []) {
    const path = `${target.at}${p.path}`;
    if (ENVELOPE.test(path)) continue;
    f.push({
      rule: ruleOf(target.type, path),
      path,
      message: `${target.type}: ${path || '(root)'} ${p.message.replace(/^Invalid input: /, '')}`,
    });
  }
  return f;
}

/** Said already by a more specific rule: the same member, or one inside or around it. */
function covered(path: string, reported: string[] = []): boolean {
  return reported.some((r) => r === path || (!BROAD.has(r) && path.startsWith(`${r}/`)) || r.startsWith(`${path}/`));
}

/** Types only 2026-07-28 has (and the 2025-06-18 ElicitResult) are judged only there: `revisions`
 * says so to `rules` (the gates would find no such type elsewhere anyway). */
export const MODERN_TYPES = since('2026-07-28');
/** A structure rule's catalogue entry: what `rules` lists; `obs` is `1`, `era` `all` unless given. */
export type StructureRuleInfo = Omit<RuleInfo, 'obs' | 'era'> & { era?: RuleInfo['era'] };

/**
 * The messages whose structure can yield a finding under a rule, from the tables that decide it:
 * requests and notifications are checked as the type of their method, results as the result type
 * of the method they answer (or an InputRequiredResult), errors by their code (targetOf), and a
 * finding falls under the rule of its type unless a member rule or the fallback takes it (ruleOf).
 */
function interestsOf(id: string): Interest[] {
  if (RULES_OF_ANY_TYPE.has(id)) return ['json'];
  const on: Interest[] = [];
  for (const [method, type] of REQUEST_TYPE) {
    if (RULE_OF_TYPE[type] === id) on.push(`request ${method}`);
    if (RULE_OF_TYPE[`${type.slice(0, -'Request'.length)}Result`] === id) on.push(`result ${method}`);
  }
  for (const [method, type] of NOTIFICATION_TYPE) if (RULE_OF_TYPE[type] === id) on.push(`notification ${method}`);
  if (Object.values(CODED_ERRORS).some((type) => RULE_OF_TYPE[type] === id)) on.push('error');
  if (RULE_OF_TYPE.InputRequiredResult === id) on.push('result');
  return on.length > 0 ? on : ['json'];
}

/** The structure rules of these entries, in their order: each reports the findings of its own id. */
export function structureRules(catalogue: readonly StructureRuleInfo[]): Rule[] {
  return catalogue.map((info) => ({
    obs: '1' as const,
    era: 'all' as const,
    ...info,
    on: interestsOf(info.id),
    check(o, report) {
      for (const f of structureOf(o)) if (f.rule === info.id && !covered(f.path, o.reported)) report(f.path, f.message);
    },
  }));
}
