/** What each scenario hands back to run.ts: table rows, target verdicts and notes. */
export interface Row {
  scenario: string;
  variant: string;
  median: string;
  /** p99 for latencies and times; the p1 block (the slow tail) for rates. */
  tail: string;
  compared: string;
}

export interface Target {
  /** The target, in words. */
  goal: string;
  measured: string;
  /** undefined: not measured in this run. */
  met: boolean | undefined;
}

export interface Section {
  rows: Row[];
  targets: Target[];
  notes: string[];
}

export function section(): Section {
  return { rows: [], targets: [], notes: [] };
}

export function markdownTable(header: string[], rows: string[][]): string {
  const esc = (c: string): string => c.replace(/\|/g, '\\|');
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => esc(r[i] ?? '').length)));
  const line = (r: string[]): string => `| ${r.map((c, i) => esc(c).padEnd(widths[i]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}
