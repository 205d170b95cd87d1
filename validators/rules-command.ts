import { distinctRules, severityOf, specLink } from './rule.js';
import { RULES } from './rules/index.js';

const ERAS = { all: '2025-06-18, 2025-11-25, 2026-07-28', legacy: '2025-06-18, 2025-11-25', modern: '2026-07-28' } as const;

export function ruleTable(): { id: string; severity: string; revisions: string; transport: string; spec: string; title: string }[] {
  return distinctRules(RULES).map((r) => ({ id: r.id, severity: severityOf(r), revisions: ERAS[r.era], transport: r.transport ?? 'any', spec: specLink(r.source), title: r.title }));
}

/** `mcp-cassette rules`: every implemented rule with its severity, revisions and spec link. */
export async function rulesCommand(options: { json: boolean; markdown: boolean }): Promise<number> {
  const table = ruleTable();
  if (options.json) process.stdout.write(JSON.stringify(table, null, 2) + '\n');
  else if (options.markdown) {
    process.stdout.write('| rule | severity | revisions | transport | what it checks |\n|---|---|---|---|---|\n');
    for (const r of table) process.stdout.write(`| [${r.id}](${r.spec}) | ${r.severity} | ${r.revisions} | ${r.transport} | ${r.title.replace(/\|/g, '\\|')} |\n`);
  } else {
    for (const r of table) process.stdout.write(`${r.id.padEnd(26)} ${r.severity.padEnd(8)} ${r.revisions.padEnd(36)} ${r.spec}\n`);
    process.stdout.write(`${table.length} rules\n`);
  }
  return 0;
}
