/**
 * For fixture authors: what a rule fixture raises now, where each finding points, and its
 * message, to compare with the `findings` list the author wrote by hand from the rule's text
 * (docs/validation.md, "Where a finding points"). It never writes a fixture: expected findings
 * the validator produced would only test the validator against itself.
 *
 *   node dist/test/helpers/fixture-findings.js [RULE-ID | RULE-ID/name ...]
 *
 * Without names: every fixture.
 */
import { validateSessions } from '../../validators/validate-sessions.js';
import { validateRecordings } from '../../validators/recording.js';
import { RULES } from '../../validators/rules/index.js';
import { fixtureFindings, fixtureSessions, loadFixtures } from './fixtures.js';

const names = process.argv.slice(2);
const chosen = loadFixtures().filter((f) => names.length === 0 || names.includes(f.rule) || names.includes(`${f.rule}/${f.name}`));

for (const f of chosen) {
  const sessions = fixtureSessions(f);
  const options = { rules: RULES, onRuleError: (rule: string, err: unknown) => console.log(`  ${rule} THREW ${String(err)}`) };
  const violations = [...validateSessions(sessions, options), ...validateRecordings(sessions, options)];
  const findings = fixtureFindings(f, violations);
  console.log(`${f.rule}/${f.name}: ${f.description}`);
  findings.forEach((x, i) =>
    console.log(
      `  ${x.rule} ${x.session === undefined ? '' : `session ${x.session} `}#${x.seq} ${x.direction} ${JSON.stringify(x.path)}: ${violations[i]!.message}`,
    ),
  );
}
