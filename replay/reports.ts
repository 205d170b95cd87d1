/**
 * Renders a ReplayResult: console text (colour only when asked, i.e. on a TTY), JSON (schema:
 * replay/replay-report.schema.json), JUnit XML (one test suite per session, one test case per
 * interaction), Markdown (a PR comment or $GITHUB_STEP_SUMMARY) and GitHub workflow annotations.
 */
import { relative } from 'node:path';
import type { Difference, InteractionResult, ReplayResult, SessionResult } from './types.js';

export const REPORT_FORMATS = ['json', 'junit', 'markdown', 'github'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

const where = (r: ReplayResult) => relative(process.cwd(), r.cassette) || r.cassette;
const what = (i: InteractionResult) => `${i.method}${i.name ? ` ${i.name}` : ''}`;
/** Where an interaction sits in its session: the recorded message, or the HTTP exchange of a GET or DELETE. */
const ref = (i: InteractionResult) => (i.exchange !== undefined ? `exchange ${i.exchange}` : `#${i.seq}`);
const short = (v: unknown, n = 160): string => {
  if (v === undefined) return '(absent)';
  const s = JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
};

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

export function renderConsole(result: ReplayResult, colour: boolean): string {
  const paint = (code: number, s: string) => (colour ? `\u001b[${code}m${s}\u001b[0m` : s);
  const tag = (v: string) => (v === 'breaking' ? paint(31, 'BREAKING') : v === 'warning' ? paint(33, 'WARNING ') : v === 'compatible' ? paint(36, 'COMPAT  ') : v === 'same' ? paint(32, 'ok      ') : paint(2, v.toUpperCase().padEnd(8)));
  const target = result.target.url ?? result.target.command?.join(' ') ?? '';
  const lines = [`replay ${where(result)} against ${target}`];
  for (const s of result.sessions) {
    lines.push(`${tag(s.outcome)} session ${s.index}${s.label ? ` (${s.label})` : ''}: ${s.transport}${s.revision ? ` ${s.revision}` : ''}, ${s.interactions.length} interaction(s)${s.note ? ` - ${s.note}` : ''}`);
    for (const i of s.interactions) {
      if (i.outcome === 'same') continue;
      lines.push(`  ${tag(i.outcome)} ${ref(i)} ${what(i)}${i.note ? `: ${i.note}` : ''}`);
      for (const d of i.differences) {
        lines.push(`      ${tag(d.verdict)} ${d.kind}: ${d.message}${d.path ? ` at ${d.path}` : ''}`);
        if (d.recorded !== undefined) lines.push(`          ${paint(31, `- ${short(d.recorded)}`)}`);
        if (d.live !== undefined) lines.push(`          ${paint(32, `+ ${short(d.live)}`)}`);
      }
    }
    if (s.error) lines.push(`  ${paint(31, 'ERROR')} ${s.error.code}: ${s.error.message}`);
  }
  const m = result.summary;
  lines.push('');
  if (result.error) lines.push(paint(31, `replay could not finish: ${result.error.message} (${result.error.code}, session ${String(result.error.session)}${result.error.seq ? `, waiting on message #${result.error.seq}` : ''}); the report above is partial`));
  lines.push(`${m.interactions} interactions in ${m.sessions} sessions: ${m.same} unchanged, ${m.breaking} breaking, ${m.warning} warning, ${m.compatible} compatible, ${m.skipped} skipped (${result.durationMs} ms)`);
  if (m.volatileSkipped) lines.push(`${m.volatileSkipped} volatile value${m.volatileSkipped === 1 ? '' : 's'} skipped, as calibrated (--calibrate)`);
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
    parts.push(`updated ${where(result)}: re-recorded session${u.replaced.length > 1 ? 's' : ''} ${list(u.replaced)} from the live server (the changes listed above)`);
    parts.push(`kept ${u.kept.length} session${u.kept.length === 1 ? '' : 's'} as ${u.kept.length === 1 ? 'it was' : 'they were'}`);
  } else {
    parts.push(`${where(result)} not updated: ${u.note ?? 'no session could be replaced'}`);
  }
  for (const c of u.conflicts) parts.push(`session ${c.id} not updated: ${c.reason}; run the update again`);
  return { written: u.written, text: parts.join('; ') };
}

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '');
}

const diffText = (ds: readonly Difference[]) => ds.map((d) => `${d.verdict} ${d.kind}: ${d.message}${d.path ? ` at ${d.path}` : ''}\n  recorded: ${short(d.recorded, 400)}\n  live: ${short(d.live, 400)}`).join('\n');

function junit(result: ReplayResult, strict: boolean): string {
  const fails = (i: InteractionResult) => i.outcome === 'breaking' || (strict && i.outcome === 'warning');
  const out = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const total = result.sessions.reduce((n, s) => n + Math.max(1, s.interactions.length), 0);
  const failures = result.sessions.reduce((n, s) => n + s.interactions.filter(fails).length, 0);
  const errors = result.sessions.filter((s) => s.error).length;
  out.push(`<testsuites name="mcp-cassette replay" tests="${total}" failures="${failures}" errors="${errors}" time="${(result.durationMs / 1000).toFixed(3)}">`);
  for (const s of result.sessions) {
    const name = `${where(result)} session ${s.index}${s.label ? ` (${s.label})` : ''}`;
    const sFails = s.interactions.filter(fails).length;
    const sSkipped = s.interactions.filter((i) => i.outcome === 'skipped' || i.outcome === 'unanswered').length;
    out.push(`  <testsuite name="${xml(name)}" tests="${Math.max(1, s.interactions.length)}" failures="${sFails}" errors="${s.error ? 1 : 0}" skipped="${s.interactions.length ? sSkipped : 1}">`);
    if (!s.interactions.length) {
      out.push(`    <testcase classname="${xml(name)}" name="session"><skipped message="${xml(s.note ?? 'nothing replayed')}"/></testcase>`);
    }
    for (const i of s.interactions) {
      const time = i.durationMs !== undefined ? ` time="${(i.durationMs / 1000).toFixed(3)}"` : '';
      out.push(`    <testcase classname="${xml(name)}" name="${xml(`${ref(i)} ${what(i)}`)}"${time}>`);
      if (fails(i)) out.push(`      <failure message="${xml(i.differences.filter((d) => d.verdict === 'breaking' || (strict && d.verdict === 'warning')).map((d) => d.message).join('; '))}" type="${i.outcome}">${xml(diffText(i.differences))}</failure>`);
      else if (i.outcome === 'skipped') out.push(`      <skipped message="${xml(i.note ?? 'skipped')}"/>`);
      else if (i.outcome === 'unanswered') out.push(`      <error message="${xml(s.error?.message ?? 'no answer')}" type="${xml(s.error?.code ?? 'unanswered')}"/>`);
      else if (i.differences.length) out.push(`      <system-out>${xml(diffText(i.differences))}</system-out>`);
      out.push('    </testcase>');
    }
    if (s.error) out.push(`    <system-err>${xml(`${s.error.code}: ${s.error.message}`)}</system-err>`);
    out.push('  </testsuite>');
  }
  out.push('</testsuites>');
  return out.join('\n') + '\n';
}

function md(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function markdown(result: ReplayResult): string {
  const m = result.summary;
  const icon = result.outcome === 'error' ? '⛔' : result.outcome === 'breaking' ? '❌' : m.warning ? '⚠️' : '✅';
  const lines = [`## ${icon} mcp-cassette replay: \`${where(result)}\``, ''];
  if (result.error) lines.push(`**The replay could not finish:** ${md(result.error.message)} (\`${result.error.code}\`, session ${String(result.error.session)}). The results below are partial.`, '');
  lines.push('| unchanged | breaking | warning | compatible | skipped |', '|---|---|---|---|---|', `| ${m.same} | ${m.breaking} | ${m.warning} | ${m.compatible} | ${m.skipped} |`, '');
  const update = updateSummary(result);
  if (update) lines.push(`**${update.written ? 'Cassette updated' : 'Cassette not updated'}:** ${md(update.text)}`, '');
  const rows: string[] = [];
  for (const s of result.sessions) {
    for (const i of s.interactions) {
      for (const d of i.differences) rows.push(`| ${s.index} | ${ref(i)} \`${md(what(i))}\` | **${d.verdict}** | \`${d.kind}\` | ${md(d.message)} |`);
    }
  }
  if (rows.length) {
    lines.push('<details open><summary>Differences</summary>', '', '| session | interaction | verdict | kind | what changed |', '|---|---|---|---|---|', ...rows, '', '</details>', '');
  }
  return lines.join('\n');
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function github(result: ReplayResult): string {
  const lines: string[] = [];
  const file = escapeProperty(where(result));
  const at = (s: SessionResult, i: InteractionResult) => `session ${s.index}, ${i.exchange !== undefined ? `HTTP exchange ${i.exchange}` : `message #${i.seq}`} ${what(i)}`;
  for (const s of result.sessions) {
    for (const i of s.interactions) {
      for (const d of i.differences) {
        if (d.verdict === 'compatible') continue;
        lines.push(`::${d.verdict === 'breaking' ? 'error' : 'warning'} file=${file},title=${escapeProperty(`replay ${d.verdict}: ${d.kind}`)}::${escapeData(`${d.message} (${at(s, i)}${d.path ? `, ${d.path}` : ''})`)}`);
      }
    }
  }
  if (result.error) lines.push(`::error file=${file},title=${escapeProperty(`replay could not run: ${result.error.code}`)}::${escapeData(result.error.message)}`);
  return lines.length ? lines.join('\n') + '\n' : '';
}
