/**
 * The human reports of `check`: the Markdown job summary (appended to $GITHUB_STEP_SUMMARY, or
 * written to --summary) and the console text. Verdict counts first, then each breaking change
 * and each violation with its recorded and live values, the failed probes, the stale baseline
 * entries, and the expected findings folded away.
 */
import { relative } from 'node:path';
import { md, mdCode } from '../lib/report-escape.js';
import { verdictText } from '../lib/cassette/masked-verdicts.js';
import { showChange } from '../replay/reports.js';
import type { CheckRun, Finding } from './types.js';
import { fails } from './findings.js';

export const where = (f: Pick<Finding, 'file' | 'line'>): string => `${relative(process.cwd(), f.file) || f.file}:${f.line}`;
const subject = (f: Finding): string =>
  [f.session !== undefined ? `session ${f.session}` : '', f.method ?? '', f.name ?? ''].filter(Boolean).join(' ');

const VERDICT = { pass: '✅ passed', fail: '❌ failed', error: '⛔ could not run' } as const;

function values(f: Finding): [string, string] {
  if (f.recorded === undefined && f.live === undefined) return ['', ''];
  const c = showChange(f.recorded, f.live, 120);
  return [f.recorded === undefined ? '*absent*' : mdCode(c.recorded), f.live === undefined ? '*absent*' : mdCode(c.live)];
}

function table(title: string, findings: readonly Finding[], open: boolean, heads = ['recorded', 'live']): string[] {
  if (!findings.length) return [];
  const rows = findings.map((f) => {
    const [rec, live] = values(f);
    return `| \`${md(where(f))}\` | ${md(subject(f))} | **${md(f.id)}** ${f.kind === 'violation' ? f.severity : ''} | ${md(verdictText(f))}${f.path ? ` (${mdCode(f.path)})` : ''} | ${rec} | ${live} |`;
  });
  return [
    `<details${open ? ' open' : ''}><summary>${title} (${findings.length})</summary>`,
    '',
    `| where | interaction | finding | what | ${heads[0]} | ${heads[1]} |`,
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    '</details>',
    '',
  ];
}

export function renderSummary(run: CheckRun): string {
  const c = run.counts;
  const lines = [`## mcp-cassette check: ${VERDICT[run.verdict]}`, ''];
  lines.push(`Build: ${mdCode(run.target)}${run.baselineBuild ? ` · base build: ${mdCode(run.baselineBuild)}` : ''}`);
  if (run.expectedFailures) lines.push(`Expected failures: ${mdCode(run.expectedFailures)}`);
  lines.push(`Fails on: breaking changes and violations at \`${run.failOn}\`${run.failOn === 'error' ? '' : ' or above'}`, '');
  if (run.shard) lines.push(`${partLine(run.shard)}`, '');
  for (const e of run.errors) lines.push(`**Could not run:** ${md(e)}`, '');
  lines.push(
    '| cassettes | interactions | unchanged | breaking | changed | warning | compatible | violations (error / warning) | new violations | probes failed | expected | stale |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    `| ${c.cassettes} | ${c.interactions} | ${c.same} | ${c.breaking} | ${c.changed} | ${c.warning} | ${c.compatible} | ${c.violations.error} / ${c.violations.warning} | ${c.newViolations} | ${c.probesFailed} | ${c.expected} | ${c.stale} |`,
    '',
  );
  const live = run.findings.filter((f) => !f.expected);
  lines.push(
    ...table(
      'Breaking changes',
      live.filter((f) => f.kind === 'breaking'),
      true,
    ),
  );
  lines.push(
    ...table(
      'Changed outputs',
      live.filter((f) => f.kind === 'changed'),
      true,
    ),
  );
  const violations = live.filter((f) => f.kind === 'violation');
  lines.push(
    ...table(
      'New violations',
      violations.filter((f) => f.isNew),
      true,
    ),
  );
  lines.push(
    ...table(
      'Violations the recording has too',
      violations.filter((f) => !f.isNew),
      violations.some((f) => !f.isNew && fails(f, run.failOn)),
    ),
  );
  lines.push(
    ...table(
      'Failed probes',
      live.filter((f) => f.kind === 'probe'),
      true,
      ['sent', 'got'],
    ),
  );
  if (run.fuzz) lines.push(fuzzLine(run.fuzz), '');
  lines.push(
    ...table(
      'Fuzz findings (each replays from its cassette: `mcp-cassette replay <cassette> -- <server>`)',
      live.filter((f) => f.kind === 'fuzz'),
      true,
    ),
  );
  const stale = live.filter((f) => f.kind === 'stale');
  if (stale.length) {
    lines.push(`<details open><summary>Stale baseline entries (${stale.length})</summary>`, '');
    for (const f of stale) lines.push(`- \`${md(where(f))}\` ${md(f.message)}`);
    lines.push('', '</details>', '');
  }
  lines.push(
    ...table(
      'Expected (listed in the baseline)',
      run.findings.filter((f) => f.expected),
      false,
    ),
  );
  return lines.join('\n') + '\n';
}

/** What `--fuzz-seconds` did, in one line. */
function fuzzLine(f: NonNullable<CheckRun['fuzz']>): string {
  const stopped = f.error ? `; stopped early: ${f.error}` : '';
  return `Fuzzed ${f.seconds} s (seed ${f.seed}, \`--fuzz-seed ${f.seed}\` sends the same cases): ${f.cases} cases, ${f.findings} finding(s), their cassettes in ${relative(process.cwd(), f.out) || f.out}${stopped}`;
}

/** What a part of a sharded run says of itself (an unsharded or merged run says nothing). */
function partLine(shard: NonNullable<CheckRun['shard']>): string {
  return `Part ${shard.index} of ${shard.total} (--shard ${shard.index}/${shard.total}): ${shard.positions.length} of ${shard.of} cassettes; stale baseline entries are judged by merge-reports over every part`;
}

export function renderText(run: CheckRun): string {
  const c = run.counts;
  const lines = [`mcp-cassette check → ${run.target}${run.baselineBuild ? ` (base build: ${run.baselineBuild})` : ''}`];
  if (run.shard) lines.push(partLine(run.shard));
  if (run.fuzz) lines.push(fuzzLine(run.fuzz));
  for (const e of run.errors) lines.push(`could not run: ${e}`);
  for (const f of run.findings) {
    const label = f.expected ? 'expected' : f.kind === 'stale' ? 'STALE' : fails(f, run.failOn) ? 'FAIL' : f.severity;
    // `FAIL      probe     VER-… x.cassette.json:5: probe …`: a probe or a stale entry names no
    // interaction and no path, and leaves no gap before the colon.
    const at = [where(f), subject(f), f.path ?? ''].filter(Boolean).join(' ');
    lines.push(`${label.padEnd(9)} ${f.kind.padEnd(9)} ${f.id} ${at}: ${verdictText(f)}`);
  }
  lines.push(
    '',
    `${VERDICT[run.verdict]}: ${c.cassettes} cassette${c.cassettes === 1 ? '' : 's'}, ${c.interactions} interactions (${c.same} unchanged, ${c.breaking} breaking, ${c.changed} changed, ${c.warning} warning, ${c.compatible} compatible); ${c.violations.error} error and ${c.violations.warning} warning violations (${c.newViolations} new); ${c.probesFailed} probes failed; ${c.expected} expected, ${c.stale} stale`,
  );
  return lines.join('\n') + '\n';
}
