/**
 * The machine reports of `check`: JUnit (one test case per replayed interaction, failed by its
 * breaking changes and violations; one per probe; one per stale baseline entry), SARIF 2.1.0
 * (each finding at the line of its recorded message, with partialFingerprints, so code scanning
 * tracks it across runs; expected findings carry an external suppression) and GitHub workflow
 * annotations.
 */
import { relative } from 'node:path';
import { annotationData, annotationProperty } from '../lib/report-escape.js';
import { type JunitCase, type JunitSuite, junitReport } from '../lib/junit.js';
import { ruleAnchor, ruleHelp, sarifDriver, type RuleDoc } from '../lib/sarif.js';
import { verdictText } from '../lib/cassette/masked-verdicts.js';
import { RULES } from '../validators/rules/index.js';
import { FUZZ_DOC, fuzzRuleTitle } from '../validators/fuzz/report.js';
import { fails } from './findings.js';
import type { CheckRun, Finding } from './types.js';

const repoPath = (file: string): string => (relative(process.cwd(), file) || file).split('\\').join('/');
const subject = (x: { method?: string; name?: string }): string => [x.method, x.name].filter(Boolean).join(' ');

/** A finding's location, rule and values: a probe's are what it sent and what it got, a replayed
 * interaction's what the recording holds and what the build answered. */
function detail(f: Finding): string {
  const v = (x: unknown) => (x === undefined ? '(absent)' : JSON.stringify(x).slice(0, 400));
  const [was, is] = f.kind === 'probe' ? ['sent', 'got'] : ['recorded', 'live'];
  const values = f.recorded !== undefined || f.live !== undefined ? `\n${was}: ${v(f.recorded)}\n${is}: ${v(f.live)}` : '';
  return `${repoPath(f.file)}:${f.line} ${f.kind} ${f.id}${f.path ? ` at ${f.path}` : ''}: ${verdictText(f)}${values}`;
}

/** One suite per cassette: a case per replayed interaction, failed by the findings at
 * `--fail-on` in the messages that answer it, and a case per judged probe; then a suite for the
 * stale baseline entries and what could not run. */
export function renderJunit(run: CheckRun): string {
  const testcase = (classname: string, name: string, found: readonly Finding[], durationMs?: number): JunitCase => {
    const failing = found.filter((f) => fails(f, run.failOn));
    const rest = found.filter((f) => !fails(f, run.failOn));
    return {
      classname,
      name,
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(failing.length
        ? {
            failure: {
              message: failing.map((f) => `${f.kind} ${f.id}`).join(', '),
              type: failing[0]!.kind,
              text: failing.map(detail).join('\n\n'),
            },
          }
        : {}),
      ...(rest.length ? { systemOut: rest.map((f) => `${f.expected ? 'expected ' : ''}${f.severity}: ${detail(f)}`).join('\n\n') } : {}),
    };
  };
  const suites: JunitSuite[] = run.cassettes.map((c) => {
    const mine = run.findings.filter((f) => f.file === c.path && f.kind !== 'stale' && f.kind !== 'fuzz');
    const cases: JunitCase[] = [];
    const placed = new Set<Finding>();
    for (const i of c.interactions) {
      const found = mine.filter((f) => f.kind !== 'probe' && f.session === i.session && f.seq === i.seq);
      for (const f of found) placed.add(f);
      cases.push(testcase(`session ${i.session}`, `#${i.seq} ${subject(i)}`, found, i.durationMs));
    }
    const loose = mine.filter((f) => f.kind !== 'probe' && !placed.has(f));
    if (loose.length) cases.push(testcase('traffic', 'messages outside a replayed interaction', loose));
    for (const [k, r] of (c.probe?.results ?? []).entries()) {
      if (r.outcome === 'not-applicable' || r.outcome === 'skipped') continue;
      cases.push(
        testcase(
          `probe ${r.probe}`,
          r.rule,
          mine.filter((f) => f.kind === 'probe' && f.probeResult === k),
        ),
      );
    }
    if (c.replay.error)
      cases.push({
        classname: 'replay',
        name: 'replay ran to the end',
        error: { message: c.replay.error.code, text: c.replay.error.message },
      });
    return { name: repoPath(c.source ?? c.path), cases };
  });
  if (run.fuzz)
    suites.push({
      name: 'fuzz',
      cases: [
        { classname: 'fuzz', name: `${run.fuzz.cases} cases in ${run.fuzz.seconds} s (seed ${run.fuzz.seed})` },
        ...run.findings.filter((f) => f.kind === 'fuzz').map((f) => testcase('fuzz', `${f.id} on ${subject(f)}`, [f])),
      ],
    });
  const stale = run.findings.filter((f) => f.kind === 'stale');
  if (stale.length || run.errors.length)
    suites.push({
      name: run.expectedFailures ?? 'check',
      cases: [
        ...stale.map((f) => testcase('expected failures', f.id, [f])),
        ...run.errors.map((e) => ({ classname: 'check', name: 'check ran to the end', error: { message: 'could not run', text: e } })),
      ],
    });
  return junitReport('mcp-cassette check', suites);
}

const ruleId = (f: Finding): string =>
  f.kind === 'breaking' || f.kind === 'changed' ? `replay/${f.id}` : f.kind === 'stale' ? 'baseline/stale' : f.id;
const level = (f: Finding): 'error' | 'warning' | 'note' =>
  f.kind === 'breaking' || f.kind === 'changed' || f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'note';

function ruleText(f: Finding): string {
  if (f.kind === 'breaking') return `Breaking change in replay: ${f.id}`;
  if (f.kind === 'changed') return `Output changed in replay: ${f.id}`;
  if (f.kind === 'stale') return 'An expected-failures entry that no longer occurs';
  if (f.id.startsWith('fuzz/')) return fuzzRuleTitle(f.id);
  return RULES.find((r) => r.id === f.id)?.title ?? f.id;
}

/** The page of docs/ that explains a finding's rule: a change code's table, the baselines
 * section, or the rule's row of docs/rules.md. */
function ruleDoc(f: Finding): RuleDoc {
  if (f.kind === 'breaking' || f.kind === 'changed') return { page: 'replay-verdicts.md' };
  if (f.kind === 'stale') return { page: 'ci.md', anchor: 'expected-failures-baselines' };
  if (f.id.startsWith('fuzz/')) return FUZZ_DOC;
  return { page: 'rules.md', anchor: ruleAnchor(f.id) };
}

export function renderSarif(run: CheckRun): string {
  const rules: { id: string; shortDescription: { text: string } }[] = [];
  const index = new Map<string, number>();
  for (const f of run.findings) {
    const id = ruleId(f);
    if (index.has(id)) continue;
    index.set(id, rules.length);
    rules.push({ id, shortDescription: { text: ruleText(f) }, ...ruleHelp(ruleText(f), ruleDoc(f), f.spec) });
  }
  const results = run.findings.map((f) => ({
    ruleId: ruleId(f),
    ruleIndex: index.get(ruleId(f))!,
    level: level(f),
    message: { text: `${verdictText(f)}${f.method ? ` (${subject(f)}${f.path ? `, ${f.path}` : ''})` : ''}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: repoPath(f.file) }, region: { startLine: f.line } } }],
    partialFingerprints: { 'mcpCassetteFinding/v1': f.fingerprint },
    ...(f.expected ? { suppressions: [{ kind: 'external', status: 'accepted', justification: `listed in ${run.expectedFailures}` }] } : {}),
    properties: {
      kind: f.kind,
      ...(f.session !== undefined ? { session: f.session } : {}),
      ...(f.seq !== undefined ? { seq: f.seq } : {}),
      ...(f.path !== undefined ? { path: f.path } : {}),
      ...(f.isNew !== undefined ? { new: f.isNew } : {}),
      ...(f.evidence ? { evidence: f.evidence, seenLive: true } : {}),
      // A probe has no recording: its values are what it sent and what it got.
      ...(f.recorded !== undefined ? { [f.kind === 'probe' ? 'sent' : 'recorded']: f.recorded } : {}),
      ...(f.live !== undefined ? { [f.kind === 'probe' ? 'got' : 'live']: f.live } : {}),
    },
  }));
  const doc = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { ...sarifDriver(), rules } },
        results,
        invocations: [
          {
            executionSuccessful: run.verdict !== 'error',
            ...(run.errors.length ? { toolExecutionNotifications: run.errors.map((e) => ({ level: 'error', message: { text: e } })) } : {}),
          },
        ],
      },
    ],
  };
  return JSON.stringify(doc, null, 2) + '\n';
}

/** Workflow commands (stdout, when GITHUB_ACTIONS=true): one per finding, at its file and line. */
export function renderAnnotations(run: CheckRun): string {
  const lines: string[] = [];
  for (const f of run.findings) {
    const kind = f.expected ? 'notice' : fails(f, run.failOn) ? 'error' : f.severity === 'warning' ? 'warning' : 'notice';
    const title = `${f.expected ? 'expected ' : ''}${f.kind === 'breaking' ? 'breaking change' : f.kind === 'changed' ? 'changed output' : f.kind} ${f.id}`;
    lines.push(
      `::${kind} file=${annotationProperty(repoPath(f.file))},line=${f.line},title=${annotationProperty(title)}::${annotationData(`${verdictText(f)}${f.method ? ` (${subject(f)}${f.path ? `, ${f.path}` : ''})` : ''}`)}`,
    );
  }
  for (const e of run.errors) lines.push(`::error title=${annotationProperty('mcp-cassette check could not run')}::${annotationData(e)}`);
  return lines.length ? lines.join('\n') + '\n' : '';
}
