import type { CommandModule } from '../lib/command.js';
import { checkReportPaths } from '../lib/cli-output.js';
import { CassetteError } from '../lib/errors.js';
import { join } from 'node:path';

/**
 * `mcp-cassette merge-reports <dir...> --out DIR`: what the command line knows of it. The work is
 * in merge-reports.ts (beside check, whose reports it merges), loaded when the command runs.
 */
export const MERGE_REPORTS_COMMAND: CommandModule = {
  name: 'merge-reports',
  describe:
    'CI: merge the reports of a sharded check (check --shard K/N, one folder per part) into the reports one unsharded run writes: merge-reports <dir>... --out <dir>',
  usage: '$0 merge-reports <dir>... --out <dir> [--quiet]',
  positionals: [{ name: 'dirs', variadic: true }],
  options: {
    out: {
      type: 'string',
      describe: 'Write the merged results.json, summary.md, junit.xml and results.sarif into this folder (created when missing)',
    },
    quiet: { type: 'boolean', default: false, describe: 'No console report on stdout (the report files are still written)' },
  },
  help: {
    examples: [
      ['$0 merge-reports reports/1 reports/2 reports/3 --out reports/all', 'the three parts of check --shard K/3, as one run'],
      ['$0 merge-reports shards/* --out merged --quiet', 'every part a CI matrix uploaded, one folder each'],
    ],
    exitCodes: [
      ['0', 'the merged run passed: nothing breaking and no violation at --fail-on'],
      ['1', 'the merged run failed (as check: breaking, a violation at --fail-on, a stale expected-failures entry)'],
      ['2', 'a part could not run; or the parts are not every part of one run, each once (missing or duplicate parts are named); usage'],
      ['70', 'internal error (a bug in mcp-cassette: please report it)'],
    ],
    docs: 'ci.md',
  },
  handler: async (args) => {
    if (args.out === undefined)
      throw new CassetteError(
        'MCPC_USAGE',
        'merge-reports needs --out <dir>, the folder for the merged reports: mcp-cassette merge-reports <dir>... --out merged',
      );
    const out = String(args.out);
    // A folder that cannot take the reports is said before any part is read.
    checkReportPaths(['results.json', 'summary.md', 'junit.xml', 'results.sarif'].map((n) => ['--out', join(out, n)] as const));
    return (await import('./merge-reports.js')).mergeReportsCommand(args);
  },
};
