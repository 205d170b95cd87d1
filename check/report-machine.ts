/**
 * The machine reports of `check`: JUnit (one test case per replayed interaction, failed by its
 * breaking changes and violations; one per probe; one per stale baseline entry), SARIF 2.1.0
 * (each finding at the line of its recorded message, with partialFingerprints, so code scanning
 * tracks it across runs; expected findings carry an external suppression) and GitHub workflow
 * annotations.
 */
import { relative } from 'node:path';
import { annotationData, annotationProperty, xmlText } from '../lib/report-escape.js';
import { RULES } from '../validators/rules/index.js';
import { fails } from './findings.js';
import type { CheckRun, Finding } from './types.js';

const repoPath = (file: string): string => (relative(process.cwd(), file) || file).split('\\').join('/');
const subject = (x: { method?: string; name?: string }): string => [x.method, x.name].filter(Boolean).join(' ');

function detail(f: Finding): string {
  const v = (x: unknown) => (x === undefined ? '(absent)' : JSON.stringify(x).slice(0, 400));
  const values = f.recorded !== undefined || f.live !== undefined ? `\nrecorded: ${v(f.recorded)}\nlive: ${v(f.live)}` : '';
  return `${repoPath(f.file)}:${f.line} ${f.kind} ${f.id}${f.path ? ` at ${f.path}` : ''}: ${f.message}${values}`;
}

export function renderJunit(run: CheckRun): string {
  const out: string[] = [];
  const suites: string[] = [];
  let tests = 0;
  let failures = 0;
  const testcase = (classname: string, name: string, found: readonly Finding[], time?: number): string => {
    tests += 1;
    const failing = found.filter((f) => fails(f, run.failOn));
    const rest = found.filter((f) => !fails(f, run.failOn));
    if (failing.length) failures += 1;
    const lines = [
      `    <testcase classname="${xmlText(classname)}" name="${xmlText(name)}"${time !== undefined ? ` time="${(time / 1000).toFixed(3)}"` : ''}>`,
    ];
    if (failing.length)
      lines.push(
        `      <failure message="${xmlText(failing.map((f) => `${f.kind} ${f.id}`).join(', '))}" type="${xmlText(failing[0]!.kind)}">${xmlText(failing.map(detail).join('\n\n'))}</failure>`,
      );
    if (rest.length)
      lines.push(
        `      <system-out>${xmlText(rest.map((f) => `${f.expected ? 'expected ' : ''}${f.severity}: ${detail(f)}`).join('\n\n'))}</system-out>`,
      );
    lines.push('    </testcase>');
    return lines.join('\n');
  };
  for (const c of run.cassettes) {
    const start = tests;
    const startFailures = failures;
    const mine = run.findings.filter((f) => f.file === c.path && f.kind !== 'stale');
    const cases: string[] = [];
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
    if (c.replay.error) {
      tests += 1;
      failures += 1;
      cases.push(
        `    <testcase classname="replay" name="replay ran to the end">\n      <error message="${xmlText(c.replay.error.code)}">${xmlText(c.replay.error.message)}</error>\n    </testcase>`,
      );
    }
    suites.push(
      `  <testsuite name="${xmlText(repoPath(c.source ?? c.path))}" tests="${tests - start}" failures="${failures - startFailures}">`,
      ...cases,
      '  </testsuite>',
    );
  }
  const stale = run.findings.filter((f) => f.kind === 'stale');
  const extra: string[] = [];
  if (stale.length || run.errors.length) {
    const start = tests;
    const startFailures = failures;
    for (const f of stale) extra.push(testcase('expected failures', f.id, [f]));
    for (const e of run.errors) {
      tests += 1;
      failures += 1;
      extra.push(
        `    <testcase classname="check" name="check ran to the end">\n      <error message="could not run">${xmlText(e)}</error>\n    </testcase>`,
      );
    }
    suites.push(
      `  <testsuite name="${xmlText(run.expectedFailures ?? 'check')}" tests="${tests - start}" failures="${failures - startFailures}">`,
      ...extra,
      '  </testsuite>',
    );
  }
  out.push(
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="mcp-cassette check" tests="${tests}" failures="${failures}">`,
    ...suites,
    '</testsuites>',
  );
  return out.join('\n') + '\n';
}

const ruleId = (f: Finding): string =>
  f.kind === 'breaking' || f.kind === 'changed' ? `replay/${f.id}` : f.kind === 'stale' ? 'baseline/stale' : f.id;
const level = (f: Finding): 'error' | 'warning' | 'note' =>
  f.kind === 'breaking' || f.kind === 'changed' || f.severity === 'error' ? 'error' : f.severity === 'warning' ? 'warning' : 'note';

function ruleText(f: Finding): string {
  if (f.kind === 'breaking') return `Breaking change in replay: ${f.id}`;
  if (f.kind === 'changed') return `Output changed in replay: ${f.id}`;
  if (f.kind === 'stale') return 'An expected-failures entry that no longer occurs';
  return RULES.find((r) => r.id === f.id)?.title ?? f.id;
}

export function renderSarif(run: CheckRun): string {
  const rules: { id: string; shortDescription: { text: string }; helpUri?: string }[] = [];
  const index = new Map<string, number>();
  for (const f of run.findings) {
    const id = ruleId(f);
    if (index.has(id)) continue;
    index.set(id, rules.length);
    rules.push({ id, shortDescription: { text: ruleText(f) }, ...(f.spec ? { helpUri: f.spec } : {}) });
  }
  const results = run.findings.map((f) => ({
    ruleId: ruleId(f),
    ruleIndex: index.get(ruleId(f))!,
    level: level(f),
    message: { text: `${f.message}${f.method ? ` (${subject(f)}${f.path ? `, ${f.path}` : ''})` : ''}` },
    locations: [{ physicalLocation: { artifactLocation: { uri: repoPath(f.file) }, region: { startLine: f.line } } }],
    partialFingerprints: { 'mcpCassetteFinding/v1': f.fingerprint },
    ...(f.expected ? { suppressions: [{ kind: 'external', status: 'accepted', justification: `listed in ${run.expectedFailures}` }] } : {}),
    properties: {
      kind: f.kind,
      ...(f.session !== undefined ? { session: f.session } : {}),
      ...(f.seq !== undefined ? { seq: f.seq } : {}),
      ...(f.path !== undefined ? { path: f.path } : {}),
      ...(f.isNew !== undefined ? { new: f.isNew } : {}),
      ...(f.recorded !== undefined ? { recorded: f.recorded } : {}),
      ...(f.live !== undefined ? { live: f.live } : {}),
    },
  }));
  const doc = {
    $schema: 'https://json.schemastore.org/sarif-2.1.0.json',
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'mcp-cassette', informationUri: 'https://github.com/modelcontextprotocol/modelcontextprotocol', rules } },
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
      `::${kind} file=${annotationProperty(repoPath(f.file))},line=${f.line},title=${annotationProperty(title)}::${annotationData(`${f.message}${f.method ? ` (${subject(f)}${f.path ? `, ${f.path}` : ''})` : ''}`)}`,
    );
  }
  for (const e of run.errors) lines.push(`::error title=${annotationProperty('mcp-cassette check could not run')}::${annotationData(e)}`);
  return lines.length ? lines.join('\n') + '\n' : '';
}
