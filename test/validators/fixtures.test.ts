import test from 'ava';
import { readFileSync } from 'node:fs';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { validateRecordings } from '../../validators/recording.js';
import { findingLines, fixtureFindings, fixtureSessions, loadFixtures } from '../helpers/fixtures.js';
import { RULES_FILE_HINT, rulesFile } from '../helpers/paths.js';

const fixtures = loadFixtures();

for (const f of fixtures) {
  test(`${f.rule}/${f.name}: ${f.description}`, (t) => {
    const errors: string[] = [];
    const options = { rules: RULES, onRuleError: (rule: string, err: unknown) => errors.push(`${rule}: ${String(err)}`) };
    // Each session on its own, then the cross-session rules over all of them (one recording).
    const sessions = fixtureSessions(f);
    const violations = [...sessions.flatMap((s) => validateSession(s, options)), ...validateRecordings(sessions, options)];
    t.deepEqual(errors, [], 'no rule threw');
    t.deepEqual([...new Set(violations.map((v) => v.rule))].sort(), [...f.expect].sort());
    for (const v of violations) {
      t.true(v.message.length > 0);
      t.regex(v.spec, /^https:\/\/modelcontextprotocol\.io\/specification\/2026-07-28\//);
    }
    // Where each finding points, and how many there are.
    if (!f.findings) return t.fail(`${f.rule}/${f.name}.json has no \`findings\` list: add one entry per violation it raises ({rule, seq, direction, path}, and session for a multi-session fixture); \`node dist/test/helpers/fixture-findings.js ${f.rule}/${f.name}\` prints what it raises now, to check against its description before it is pasted in`);
    t.deepEqual(findingLines(fixtureFindings(f, violations)), findingLines(f.findings), 'each finding at its message and path, each once');
    t.deepEqual([...new Set(f.findings.map((x) => x.rule))].sort(), [...f.expect].sort(), '`expect` names the rules of `findings`');
  });
}

test('a finding that moves to another message or path, doubles or goes does not match the fixture\'s findings', (t) => {
  const f = fixtures.find((x) => x.rule === 'CAP-DECLARED-ANSWERS' && x.name === 'case')!;
  const sessions = fixtureSessions(f);
  const found = fixtureFindings(f, sessions.flatMap((s) => validateSession(s, { rules: RULES })));
  t.deepEqual(findingLines(found), findingLines(f.findings!));
  const [one] = found;
  for (const wrong of [[{ ...one!, seq: one!.seq - 1 }], [{ ...one!, path: '/error/code' }], [one!, one!], []]) t.notDeepEqual(findingLines(wrong), findingLines(f.findings!));
});

test('every implemented rule has a fixture that raises it', (t) => {
  for (const rule of RULES) t.true(fixtures.some((f) => f.rule === rule.id && f.expect.includes(rule.id)), `${rule.id} has a fixture`);
  t.true(fixtures.some((f) => f.rule === 'valid' && f.expect.length === 0), 'and clean traffic that raises nothing');
});

if (rulesFile) {
  test('every rule ID is in the catalogue', (t) => {
    const catalogue = readFileSync(rulesFile!, 'utf8');
    for (const rule of RULES) t.true(catalogue.includes(`| ${rule.id} |`), `${rule.id} is in the rule catalogue`);
  });
} else {
  console.log(`fixtures: the catalogue check is skipped, the rule catalogue is not here; ${RULES_FILE_HINT}`);
  test.skip(`every rule ID is in the catalogue (${RULES_FILE_HINT})`, () => {});
}

test('rule severity follows the level: MUST → error, SHOULD → warning, heuristics never error', (t) => {
  const bySeverity = Object.fromEntries(RULES.map((r) => [r.id, validateSeverity(r)]));
  t.is(bySeverity['ENV-RES-RESULT'], 'error');
  t.is(bySeverity['TOOLS-NAME-FORMAT'], 'warning');
  t.is(bySeverity['ENV-SERVERINFO'], 'warning');
  for (const r of RULES) if (r.obs === 'H') t.not(bySeverity[r.id], 'error');
});

import { severityOf } from '../../validators/rule.js';
function validateSeverity(r: (typeof RULES)[number]): string {
  return severityOf(r);
}
