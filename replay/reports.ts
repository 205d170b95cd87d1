/**
 * Renders a ReplayResult: console text (colour only when asked, i.e. on a TTY), JSON (schema:
 * replay/replay-report.schema.json), JUnit XML (one test suite per session, one test case per
 * interaction), Markdown (a PR comment or $GITHUB_STEP_SUMMARY) and GitHub workflow annotations.
 */
import { relative } from 'node:path';
import type { Difference, FindingVerdict, InteractionResult, MaskedToken, ReplayResult, SessionResult } from './types.js';
import { annotationData, annotationProperty, md, mdCode } from '../lib/report-escape.js';
import { jsonSnippet } from '../lib/json-snippet.js';
import { type JunitCase, type JunitSuite, junitReport } from '../lib/junit.js';

export const REPORT_FORMATS = ['json', 'junit', 'markdown', 'github'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const where = (r: ReplayResult) => relative(process.cwd(), r.cassette) || r.cassette;
const what = (i: InteractionResult) => `${i.method}${i.name ? ` ${i.name}` : ''}`;
/** Where an interaction sits in its session: the recorded message, or the HTTP exchange of a GET or DELETE. */
const ref = (i: InteractionResult) => (i.exchange !== undefined ? `exchange ${i.exchange}` : `#${i.seq}`);

/** A recorded and a live value as a report shows them, and where they first differ. */
export interface ShownChange {
  recorded: string;
  live: string;
  /** Set when the values were too long to show whole: the 0-based offset of the first differing
   * character, in the strings (both strings) or in their compact JSON texts (anything else). */
  offset?: number;
  /** The column of `recorded`/`live` where that character is shown. */
  column?: number;
}

const BEFORE = 60;

/**
 * Both values whole when they fit in `width` characters; otherwise the same window of each, from
 * 60 characters before their first difference, with `…` where text was cut. The common prefix is
 * equal on both sides, so the difference sits at the same column in both lines.
 */
export function showChange(recorded: unknown, live: unknown, width = 160): ShownChange {
  const whole = { recorded: jsonSnippet(recorded, width), live: jsonSnippet(live, width) };
  if (recorded === undefined || live === undefined) return whole;
  const strings = typeof recorded === 'string' && typeof live === 'string';
  const [a, b] = strings ? [recorded, live] : [JSON.stringify(recorded), JSON.stringify(live)];
  if (JSON.stringify(recorded).length <= width && JSON.stringify(live).length <= width) return whole;
  let offset = 0;
  while (offset < a.length && offset < b.length && a[offset] === b[offset]) offset++;
  if (offset === a.length && offset === b.length) return whole;
  let start = Math.max(0, offset - BEFORE);
  if (start > 0 && /[\udc00-\udfff]/.test(a[start]!)) start--; // never split a surrogate pair
  // A string's window is shown JSON-escaped (newlines as \n) but without quotes: it is a slice.
  const esc = (t: string) => (strings ? JSON.stringify(t).slice(1, -1) : t);
  const show = (t: string) => `${start > 0 ? '…' : ''}${esc(t.slice(start, start + width))}${start + width < t.length ? '…' : ''}`;
  return { recorded: show(a), live: show(b), offset, column: (start > 0 ? 1 : 0) + esc(a.slice(start, offset)).length };
}

const differsAt = (c: ShownChange) => `differs after ${c.offset} equal characters`;

export function renderReport(format: ReportFormat, result: ReplayResult, strict = false): string {
  switch (format) {
    case 'json':
      return JSON.stringify(result, null, 2) + '\n';
    case 'junit':
      return junit(result, strict);
    case 'markdown':
      return markdown(result);
    case 'github':
      return github(result);
  }
}

/** One masked token, for a console line: its shape, where, and both values. */
function maskText(m: MaskedToken): string {
  const v = (x: string | undefined) => (x === undefined ? '(none)' : JSON.stringify(x.length > 60 ? `${x.slice(0, 59)}…` : x));
  return `${m.shape} at ${m.path || '/'}: ${v(m.recorded)} → ${v(m.live)}`;
}

/** `pid 3, file-timestamp 2`: the masked tokens that differed, counted by shape. */
function maskedShapes(result: ReplayResult): string {
  const count = new Map<string, number>();
  for (const s of result.sessions)
    for (const i of s.interactions) for (const m of i.masked ?? []) count.set(m.shape, (count.get(m.shape) ?? 0) + 1);
  return [...count].map(([shape, n]) => `${shape} ${n}`).join(', ');
}

export function renderConsole(result: ReplayResult, colour: boolean): string {
  const paint = (code: number, s: string) => (colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const tag = (v: string) =>
    v === 'breaking'
      ? paint(31, 'BREAKING')
      : v === 'changed'
        ? paint(35, 'CHANGED ')
        : v === 'warning'
          ? paint(33, 'WARNING ')
          : v === 'compatible'
            ? paint(36, 'COMPAT  ')
            : v === 'same'
              ? paint(32, 'ok      ')
              : paint(2, v.toUpperCase().padEnd(8));
  const target = result.target.url ?? result.target.command?.join(' ') ?? '';
  const lines = [`replay ${where(result)} against ${target}`];
  for (const s of result.sessions) {
    lines.push(
      `${tag(s.outcome)} session ${s.index}${s.label ? ` (${s.label})` : ''}: ${s.transport}${s.revision ? ` ${s.revision}` : ''}, ${s.interactions.length} interaction(s)${s.note ? ` - ${s.note}` : ''}`,
    );
    for (const i of s.interactions) {
      if (i.outcome === 'same') continue;
      lines.push(`  ${tag(i.outcome)} ${ref(i)} ${what(i)}${i.note ? `: ${i.note}` : ''}`);
      for (const d of i.differences) {
        lines.push(`      ${tag(d.verdict)} ${d.kind}: ${d.message}${d.path ? ` at ${d.path}` : ''}`);
        const c = showChange(d.recorded, d.live);
        if (d.recorded !== undefined) lines.push(`          ${paint(31, `- ${c.recorded}`)}`);
        if (d.live !== undefined) lines.push(`          ${paint(32, `+ ${c.live}`)}`);
        if (c.offset !== undefined) lines.push(`          ${paint(2, `  ${' '.repeat(c.column!)}^ ${differsAt(c)}`)}`);
      }
      for (const m of (i.masked ?? []).slice(0, 3)) lines.push(`      ${paint(2, `masked ${maskText(m)}`)}`);
      if ((i.masked?.length ?? 0) > 3) lines.push(`      ${paint(2, `masked ${i.masked!.length - 3} more (the JSON report lists them)`)}`);
    }
    if (s.error) lines.push(`  ${paint(31, 'ERROR')} ${s.error.code}: ${s.error.message}`);
  }
  const m = result.summary;
  lines.push('');
  if (result.finding) lines.push(paint(result.finding.reproduced ? 31 : 32, findingLine(result.finding)));
  if (result.error)
    lines.push(
      paint(
        31,
        `replay could not finish: ${result.error.message} (${result.error.code}, session ${String(result.error.session)}${result.error.seq ? `, waiting on message #${result.error.seq}` : ''}); the report above is partial`,
      ),
    );
  lines.push(
    `${m.interactions} interactions in ${m.sessions} sessions: ${m.same} unchanged, ${m.breaking} breaking, ${m.changed} changed, ${m.warning} warning, ${m.compatible} compatible, ${m.skipped} skipped (${result.durationMs} ms)`,
  );
  if (m.volatileSkipped)
    lines.push(`${m.volatileSkipped} volatile value${m.volatileSkipped === 1 ? '' : 's'} skipped, as calibrated (--calibrate)`);
  const shapes = maskedShapes(result);
  if (shapes) lines.push(`volatile tokens masked where they differed: ${shapes} (each is listed under its interaction in the JSON report)`);
  const update = updateSummary(result);
  if (update) lines.push(update.written ? paint(32, update.text) : update.text);
  return lines.join('\n') + '\n';
}

/** One line on what `--update` did to the file (the differences above are what changed). */
export function updateSummary(result: ReplayResult): { written: boolean; text: string } | undefined {
  const u = result.update;
  if (!u) return undefined;
  const list = (ns: number[]) => ns.join(', ');
  const parts: string[] = [];
  if (u.written) {
    parts.push(
      `updated ${where(result)}: re-recorded session${u.replaced.length > 1 ? 's' : ''} ${list(u.replaced)} from the live server (the changes listed above)`,
    );
    parts.push(`kept ${u.kept.length} session${u.kept.length === 1 ? '' : 's'} as ${u.kept.length === 1 ? 'it was' : 'they were'}`);
  } else {
    parts.push(`${where(result)} not updated: ${u.note ?? 'no session could be replaced'}`);
  }
  for (const c of u.conflicts) parts.push(`session ${c.id} not updated: ${c.reason}; run the update again`);
  return { written: u.written, text: parts.join('; ') };
}

const diffText = (ds: readonly Difference[]) =>
  ds
    .map((d) => {
      const c = showChange(d.recorded, d.live, 400);
      return `${d.verdict} ${d.kind}: ${d.message}${d.path ? ` at ${d.path}` : ''}${c.offset !== undefined ? ` (${differsAt(c)})` : ''}\n  recorded: ${c.recorded}\n  live: ${c.live}`;
    })
    .join('\n');

function junit(result: ReplayResult, strict: boolean): string {
  const fails = (i: InteractionResult) => i.outcome === 'breaking' || i.outcome === 'changed' || (strict && i.outcome === 'warning');
  const total = result.sessions.reduce((n, s) => n + Math.max(1, s.interactions.length), 0);
  const failures = result.sessions.reduce((n, s) => n + s.interactions.filter(fails).length, 0) + (result.finding?.reproduced ? 1 : 0);
  const errors = result.sessions.filter((s) => s.error).length;
  const suites = result.sessions.map((s): JunitSuite => {
    const name = `${where(result)} session ${s.index}${s.label ? ` (${s.label})` : ''}`;
    const sFails = s.interactions.filter(fails).length + (result.finding?.reproduced && s.index === 1 ? 1 : 0);
    const sSkipped = s.interactions.filter((i) => i.outcome === 'skipped' || i.outcome === 'unanswered').length;
    const cases: JunitCase[] = [];
    if (result.finding && s.index === 1) {
      const f = result.finding;
      cases.push({
        classname: name,
        name: `fuzz finding ${f.rule ?? f.kind} on ${f.method}${f.tool ? ` ${f.tool}` : ''}`,
        ...(f.reproduced ? { failure: { message: f.how, type: 'finding-reproduced', text: f.recorded } } : {}),
        oneLine: true,
      });
    } else if (!s.interactions.length) {
      cases.push({ classname: name, name: 'session', skipped: { message: s.note ?? 'nothing replayed' }, oneLine: true });
    }
    for (const i of s.interactions) {
      const c: JunitCase = {
        classname: name,
        name: `${ref(i)} ${what(i)}`,
        ...(i.durationMs !== undefined ? { durationMs: i.durationMs } : {}),
      };
      if (fails(i))
        c.failure = {
          message: i.differences
            .filter((d) => d.verdict === 'breaking' || d.verdict === 'changed' || (strict && d.verdict === 'warning'))
            .map((d) => d.message)
            .join('; '),
          type: i.outcome,
          text: diffText(i.differences),
        };
      else if (i.outcome === 'skipped') c.skipped = { message: i.note ?? 'skipped' };
      else if (i.outcome === 'unanswered') c.error = { message: s.error?.message ?? 'no answer', type: s.error?.code ?? 'unanswered' };
      else if (i.differences.length) c.systemOut = diffText(i.differences);
      cases.push(c);
    }
    return {
      name,
      cases,
      ...(s.error ? { systemErr: `${s.error.code}: ${s.error.message}` } : {}),
      counts: {
        tests: Math.max(1, s.interactions.length),
        failures: sFails,
        errors: s.error ? 1 : 0,
        skipped: s.interactions.length || (result.finding && s.index === 1) ? sSkipped : 1,
      },
    };
  });
  return junitReport('mcp-cassette replay', suites, { counts: { tests: total, failures, errors }, durationMs: result.durationMs });
}

function markdown(result: ReplayResult): string {
  const m = result.summary;
  const icon =
    result.outcome === 'error' ? '⛔' : result.outcome === 'breaking' || result.outcome === 'changed' ? '❌' : m.warning ? '⚠️' : '✅';
  const lines = [`## ${icon} mcp-cassette replay: \`${where(result)}\``, ''];
  if (result.error)
    lines.push(
      `**The replay could not finish:** ${md(result.error.message)} (\`${result.error.code}\`, session ${String(result.error.session)}). The results below are partial.`,
      '',
    );
  lines.push(
    '| unchanged | breaking | changed | warning | compatible | skipped |',
    '|---|---|---|---|---|---|',
    `| ${m.same} | ${m.breaking} | ${m.changed} | ${m.warning} | ${m.compatible} | ${m.skipped} |`,
    '',
  );
  const update = updateSummary(result);
  if (update) lines.push(`**${update.written ? 'Cassette updated' : 'Cassette not updated'}:** ${md(update.text)}`, '');
  if (result.finding) lines.push(`**${md(findingLine(result.finding))}**`, '');
  const rows: string[] = [];
  for (const s of result.sessions) {
    for (const i of s.interactions) {
      for (const d of i.differences) {
        const c = showChange(d.recorded, d.live);
        const value = (v: unknown, shown: string) => (v === undefined ? '*absent*' : mdCode(shown));
        rows.push(
          `| ${s.index} | ${ref(i)} \`${md(what(i))}\` | **${d.verdict}** | \`${d.kind}\` | ${md(d.message)}${c.offset !== undefined ? ` (${differsAt(c)})` : ''} | ${value(d.recorded, c.recorded)} | ${value(d.live, c.live)} |`,
        );
      }
    }
  }
  if (rows.length) {
    lines.push(
      '<details open><summary>Differences</summary>',
      '',
      '| session | interaction | verdict | kind | what changed | recorded | live |',
      '|---|---|---|---|---|---|---|',
      ...rows,
      '',
      '</details>',
      '',
    );
  }
  return lines.join('\n');
}

function github(result: ReplayResult): string {
  const lines: string[] = [];
  const file = annotationProperty(where(result));
  const at = (s: SessionResult, i: InteractionResult) =>
    `session ${s.index}, ${i.exchange !== undefined ? `HTTP exchange ${i.exchange}` : `message #${i.seq}`} ${what(i)}`;
  for (const s of result.sessions) {
    for (const i of s.interactions) {
      for (const d of i.differences) {
        if (d.verdict === 'compatible') continue;
        lines.push(
          `::${d.verdict === 'breaking' || d.verdict === 'changed' ? 'error' : 'warning'} file=${file},title=${annotationProperty(`replay ${d.verdict}: ${d.kind}`)}::${annotationData(`${d.message} (${at(s, i)}${d.path ? `, ${d.path}` : ''})`)}`,
        );
      }
    }
  }
  if (result.finding?.reproduced)
    lines.push(
      `::error file=${file},title=${annotationProperty(`fuzz finding reproduced: ${result.finding.rule ?? result.finding.kind}`)}::${annotationData(findingLine(result.finding))}`,
    );
  if (result.error)
    lines.push(
      `::error file=${file},title=${annotationProperty(`replay could not run: ${result.error.code}`)}::${annotationData(result.error.message)}`,
    );
  return lines.length ? lines.join('\n') + '\n' : '';
}

/** One line on a fuzz finding's replay: still there, or gone. */
function findingLine(f: FindingVerdict): string {
  const what = `${f.rule ?? f.kind} on ${f.method}${f.tool ? ` \`${f.tool}\`` : ''}`;
  return f.reproduced ? `fuzz finding reproduced: ${what}: ${f.how}` : `fuzz finding not reproduced (fixed): ${what}: ${f.how}`;
}
