/**
 * For fixture authors: what a rule fixture raises now, where each finding points, and its
 * message, to check against the fixture's description before the `findings` list is written in.
 *
 *   node dist/test/helpers/fixture-findings.js [RULE-ID | RULE-ID/name ...] [--write]
 *
 * Without names: every fixture. `--write` adds `findings` to the named fixtures that have none
 * (never changes one that has); read what it printed first: a finding on the wrong message or
 * path is a rule to fix, not an expectation to record.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateSessions } from '../../validators/validate-sessions.js';
import { validateRecordings } from '../../validators/recording.js';
import { RULES } from '../../validators/rules/index.js';
import { fixtureFindings, fixtureRoot, fixtureSessions, loadFixtures, type FixtureFinding, type RuleFixture } from './fixtures.js';

const args = process.argv.slice(2);
const write = args.includes('--write');
const names = args.filter((a) => a !== '--write');
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
  if (write && !f.findings) save(f, findings);
}

/** The fixture file with `findings` after `expect`, one finding a line; the rest of the text as
 * it was (some fixtures escape characters or repeat a key on purpose). */
function save(f: RuleFixture, findings: FixtureFinding[]): void {
  const file = join(fixtureRoot, f.rule, `${f.name}.json`);
  const text = readFileSync(file, 'utf8');
  const expect = /\n  "expect": \[[^\]]*\],?\n/.exec(text);
  if (!expect) throw new Error(`${file}: no top-level "expect" list to put the findings after`);
  const lines = findings.map((x) => `    ${JSON.stringify(x).replace(/,"/g, ', "').replace(/":/g, '": ')}`);
  const list = findings.length === 0 ? '[]' : `[\n${lines.join(',\n')}\n  ]`;
  const at = expect.index + expect[0].length;
  const comma = expect[0].endsWith(',\n') ? ',' : '';
  const block = comma ? `  "findings": ${list},\n` : undefined;
  // `expect` last: a comma after it, then the list.
  writeFileSync(
    file,
    block ? text.slice(0, at) + block + text.slice(at) : `${text.slice(0, at - 1)},\n  "findings": ${list}\n${text.slice(at)}`,
  );
}
