import test from 'ava';
import { readFileSync } from 'node:fs';
import { validateSessions } from '../../validators/validate-sessions.js';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { validateRecordings } from '../../validators/recording.js';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { SessionState } from '../../validators/session-state.js';
import { SPEC_PAGES } from '../../lib/spec-pages.js';
import { findingLines, fixtureFindings, fixtureSession, fixtureSessions, loadFixtures } from '../helpers/fixtures.js';
import { RULES_FILE_HINT, rulesFile } from '../helpers/paths.js';

const fixtures = loadFixtures();

for (const f of fixtures) {
  test(`${f.rule}/${f.name}: ${f.description}`, (t) => {
    const errors: string[] = [];
    const options = { rules: RULES, onRuleError: (rule: string, err: unknown) => errors.push(`${rule}: ${String(err)}`) };
    // Each session (stateless HTTP ones sharing the server context), then the cross-session
    // rules over all of them (one recording).
    const sessions = fixtureSessions(f);
    const violations = [...validateSessions(sessions, options), ...validateRecordings(sessions, options)];
    t.deepEqual(errors, [], 'no rule threw');
    t.deepEqual([...new Set(violations.map((v) => v.rule))].sort(), [...f.expect].sort());
    // Spec links point at the page in the revision of the message a finding is about, where that
    // revision has the page, else at the 2026-07-28 page the catalogue cites.
    const revisions = revisionsBySeq(sessions);
    for (const v of violations) {
      t.true(v.message.length > 0);
      const [, linked, page] = /^https:\/\/modelcontextprotocol\.io\/specification\/(\d{4}-\d{2}-\d{2})\/(.*)$/.exec(v.spec) ?? [];
      const revision = revisions.get(`${v.session}#${v.seq}`) ?? revisions.get(v.session);
      const expected = revision !== undefined && SPEC_PAGES[revision]?.has(page!) ? revision : '2026-07-28';
      t.is(linked, expected, `${v.rule} at ${v.session}#${v.seq} (${revision ?? 'no revision'}): ${v.spec}`);
    }
    // Where each finding points, and how many there are.
    if (!f.findings)
      return t.fail(
        `${f.rule}/${f.name}.json has no \`findings\` list: add one entry per violation it raises ({rule, seq, direction, path}, and session for a multi-session fixture); write them by hand from the rule's text (docs/validation.md, "Where a finding points"); \`node dist/test/helpers/fixture-findings.js ${f.rule}/${f.name}\` prints what it raises now, to compare`,
      );
    t.deepEqual(findingLines(fixtureFindings(f, violations)), findingLines(f.findings), 'each finding at its message and path, each once');
    t.deepEqual([...new Set(f.findings.map((x) => x.rule))].sort(), [...f.expect].sort(), '`expect` names the rules of `findings`');
  });
}

/** The revision each message is judged by (by `session#seq`), and each session's last one (by id). */
function revisionsBySeq(sessions: RecordedSession[]): Map<string, string | undefined> {
  const out = new Map<string, string | undefined>();
  for (const s of sessions) {
    const state = new SessionState(s);
    for (const m of s.messages) {
      const o = state.observe(m);
      out.set(`${s.id}#${m.seq}`, o.revision);
      state.commit(o);
    }
    out.set(s.id, state.legacyRevision ?? (state.modernSeen ? '2026-07-28' : undefined));
  }
  return out;
}

test('a finding on a 2025-06-18 session links to the 2025-06-18 page, or to 2026-07-28 where that revision has no such page', (t) => {
  const init = (version: string) => [
    [
      'c',
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
    ],
    [
      's',
      { jsonrpc: '2.0', id: 0, result: { protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } },
    ],
    ['c', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ];
  const session = (version: string) =>
    fixtureSession({
      rule: 'links',
      name: version,
      description: '',
      transport: 'stdio',
      expect: [],
      messages: [
        ...init(version),
        ['c', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: {}, _meta: { progressToken: 7 } } }],
        // A result that is no CallToolResult (server/tools), then progress for a finished request (utilities/progress in 2025, patterns/progress in 2026).
        ['s', { jsonrpc: '2.0', id: 1, result: { content: 'not an array' } }],
        ['s', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 7, progress: 1 } }],
      ] as [string, unknown][],
    });
  const links = (version: string) => Object.fromEntries(validateSession(session(version), { rules: RULES }).map((v) => [v.rule, v.spec]));
  t.deepEqual(links('2025-06-18'), {
    'TOOLS-CALL-SHAPE': 'https://modelcontextprotocol.io/specification/2025-06-18/server/tools',
    'PROG-STOP': 'https://modelcontextprotocol.io/specification/2026-07-28/basic/patterns/progress',
  });
  t.deepEqual(links('2024-11-05')['TOOLS-CALL-SHAPE'], 'https://modelcontextprotocol.io/specification/2024-11-05/server/tools');
});

test('2025-03-26 and 2024-11-05 sessions: structure per revision, later rules not applied, each finding where it belongs', (t) => {
  const fixture = (rule: string, name: string) => fixtures.find((f) => f.rule === rule && f.name === name)!;
  const found = (s: RecordedSession) => validateSession(s, { rules: RULES }).map((v) => `${v.rule} #${v.seq} ${v.path} ${v.spec}`);
  /** The same session, negotiated at 2025-06-18 instead. */
  const asJune = (s: RecordedSession): RecordedSession =>
    JSON.parse(JSON.stringify(s).replace(/2025-03-26|2024-11-05/g, '2025-06-18')) as RecordedSession;
  const link = 'https://modelcontextprotocol.io/specification';
  const march = fixtureSession(fixture('TOOLS-CALL-SHAPE', 'march-resource-link'));
  t.deepEqual(found(march), [`TOOLS-CALL-SHAPE #7 /result/content/1/type ${link}/2025-03-26/server/tools`]);
  t.deepEqual(found(asJune(march)), [], 'a resource link is a content block from 2025-06-18 on');
  const original = fixtureSession(fixture('PROMPTS-GET-SHAPE', 'original-audio'));
  t.deepEqual(found(original), [`PROMPTS-GET-SHAPE #7 /result/messages/0/content/type ${link}/2024-11-05/server/prompts`]);
  t.deepEqual(found(asJune(original)), [], 'audio is a content block from 2025-03-26 on');
  const output = fixtureSession(fixture('TOOLS-OUTPUT-CONFORM', 'march-no-structured-output'));
  t.deepEqual(found(output), [], 'outputSchema and structuredContent mean nothing in 2025-03-26');
  t.deepEqual(found(asJune(output)), [`TOOLS-OUTPUT-CONFORM #7 /result/structuredContent ${link}/2025-06-18/server/tools`]);
  // -32602 for invalid tool arguments: a protocol error until SEP-1303 (2025-11-25).
  const invalidArguments = fixtureSession(fixture('TOOLS-ERR-EXECUTION', 'june-invalid-arguments-32602'));
  t.deepEqual(found(invalidArguments), []);
  t.deepEqual(found(JSON.parse(JSON.stringify(invalidArguments).replace(/2025-06-18/g, '2025-11-25')) as RecordedSession), [
    `TOOLS-ERR-EXECUTION #7 /error ${link}/2025-11-25/server/tools`,
  ]);
});

test("a finding that moves to another message or path, doubles or goes does not match the fixture's findings", (t) => {
  const f = fixtures.find((x) => x.rule === 'CAP-DECLARED-ANSWERS' && x.name === 'case')!;
  const sessions = fixtureSessions(f);
  const found = fixtureFindings(f, validateSessions(sessions, { rules: RULES }));
  t.deepEqual(findingLines(found), findingLines(f.findings!));
  const [one] = found;
  for (const wrong of [[{ ...one!, seq: one!.seq - 1 }], [{ ...one!, path: '/error/code' }], [one!, one!], []])
    t.notDeepEqual(findingLines(wrong), findingLines(f.findings!));
});

test('every implemented rule has a fixture that raises it', (t) => {
  for (const rule of RULES)
    t.true(
      fixtures.some((f) => f.rule === rule.id && f.expect.includes(rule.id)),
      `${rule.id} has a fixture`,
    );
  t.true(
    fixtures.some((f) => f.rule === 'valid' && f.expect.length === 0),
    'and clean traffic that raises nothing',
  );
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
