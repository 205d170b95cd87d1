import { distinctRules, KNOWN_REVISIONS, revisionsOf, severityOf, specLink, type KnownRevision } from './rule.js';
import { RULES } from './rules/index.js';
import type { CommandModule } from '../lib/command.js';

/** `revisions`: the protocol revisions whose traffic the rule judges, oldest first, joined by ", ". */
export function ruleTable(): { id: string; severity: string; revisions: string; transport: string; spec: string; title: string }[] {
  return distinctRules(RULES).map((r) => ({
    id: r.id,
    severity: severityOf(r),
    revisions: revisionsOf(r).join(', '),
    transport: r.transport ?? 'any',
    spec: specLink(r.source),
    title: r.title,
  }));
}

/** `mcp-cassette rules`: every implemented rule with its severity, revisions and spec link. */
export async function rulesCommand(options: { json: boolean; markdown: boolean }): Promise<number> {
  const table = ruleTable();
  if (options.json) process.stdout.write(JSON.stringify(table, null, 2) + '\n');
  else if (options.markdown) {
    process.stdout.write('| rule | severity | revisions | transport | what it checks |\n|---|---|---|---|---|\n');
    for (const r of table)
      process.stdout.write(
        `| [${r.id}](${r.spec}) | ${r.severity} | ${revisionText(r.revisions)} | ${r.transport} | ${r.title.replace(/\|/g, '\\|')} |\n`,
      );
  } else {
    for (const r of table)
      process.stdout.write(`${r.id.padEnd(26)} ${r.severity.padEnd(8)} ${revisionText(r.revisions).padEnd(24)} ${r.spec}\n`);
    process.stdout.write(`${table.length} rules\n`);
  }
  return 0;
}

/** For reading: a run of consecutive known revisions as `first..last`, others as listed. */
function revisionText(list: string): string {
  const revisions = list.split(', ');
  const at = KNOWN_REVISIONS.indexOf(revisions[0] as KnownRevision);
  const consecutive = at >= 0 && revisions.every((r, i) => KNOWN_REVISIONS[at + i] === r);
  if (revisions.length > 1 && consecutive) return `${revisions[0]}..${revisions[revisions.length - 1]}`;
  return revisions.join(', ');
}

export const RULES_COMMAND: CommandModule = {
  name: 'rules',
  describe: 'List every validation rule with its severity, revisions and spec link',
  options: { json: { type: 'boolean', default: false }, markdown: { type: 'boolean', default: false } },
  handler: async (args) => rulesCommand({ json: Boolean(args.json), markdown: Boolean(args.markdown) }),
};
