/**
 * The before/after proof for a restructuring that must not change behaviour (issue 16): what
 * `mcp-cassette validate` prints for every cassette in the repository, in every report format, and
 * what `mcp-cassette rules` prints, captured from one build and compared with another
 * (validate-outputs-run.ts). outputs.test.ts compares the build with the committed goldens in
 * every `npm test`.
 *
 *   node dist/test/refactor/validate-outputs.js snapshot <dir> [--root <checkout>]
 *   node dist/test/refactor/validate-outputs.js compare <dir> [--root <checkout>]
 *   node dist/test/refactor/validate-outputs.js update
 *
 * `--root` is the checkout whose build (dist/lib/cli.js) and cassettes are used, by default the
 * one this script was built in: the commit before a restructuring does not hold this script, so
 * its snapshot is taken with the script of the commit after, pointed at the old checkout. `compare`
 * prints every difference (a missing or new output, exit code, stderr, and stdout: by JSON Pointer
 * when both sides are JSON, else by line) and exits 1 on any; 0 when everything is identical.
 * `update` rewrites the goldens (test/refactor/golden/validate/) from this build, after a change
 * of behaviour that is meant: review `git diff` and commit them with it.
 */
import { resolve } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { formatDifferences } from './output-diff.js';
import { captureAll, compareSnapshot, GOLDEN_VALIDATE, writeSnapshot } from './validate-outputs-run.js';

const log = (line: string): void => void process.stderr.write(`  ${line}\n`);

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const dir = command === 'update' ? GOLDEN_VALIDATE : args.shift();
  let root = packageRoot;
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--root' && args[i + 1] && command !== 'update') root = args[++i]!;
    else return usage(`unknown argument ${args[i]}`);
  }
  if (!dir || (command !== 'snapshot' && command !== 'compare' && command !== 'update')) return usage();
  root = resolve(root);
  const all = await captureAll(root, { log });
  if (command !== 'compare') {
    writeSnapshot(resolve(dir), all, command === 'update');
    process.stdout.write(`wrote ${all.size} outputs of ${root} to ${dir}\n`);
    return 0;
  }
  const differences = compareSnapshot(resolve(dir), all);
  process.stdout.write(formatDifferences(differences));
  process.stdout.write(differences.length === 0 ? `no differences in ${all.size} outputs\n` : `${differences.length} output(s) differ\n`);
  return differences.length === 0 ? 0 : 1;
}

function usage(problem?: string): number {
  if (problem) process.stderr.write(`${problem}\n`);
  process.stderr.write('usage: node dist/test/refactor/validate-outputs.js snapshot|compare <dir> [--root <checkout>] | update\n');
  return 2;
}

process.exitCode = await main(process.argv.slice(2));
