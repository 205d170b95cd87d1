/**
 * Before/after proof for a restructuring of replay/ (issue 16): the replay and serve reports of
 * the example cassettes (replay-reports-run.ts says which), captured with one build and compared
 * with those of another. outputs.test.ts compares the build with the committed goldens in every
 * `npm test`.
 *
 *   node dist/test/refactor/replay-reports.js capture <out dir> [<package root>]
 *   node dist/test/refactor/replay-reports.js compare <dir a> <dir b>
 *   node dist/test/refactor/replay-reports.js update
 *
 * `<package root>` holds the build to run (`dist/lib/cli.js`; default: this checkout), so a copy
 * of the build from before the change can be captured at any time. The cassettes played are this
 * checkout's. `compare` prints each difference (by JSON Pointer for JSON reports, else by line)
 * and exits 1 on any. `update` rewrites the goldens (test/refactor/golden/replay/) from this
 * build, after a change of behaviour that is meant: review `git diff` and commit them with it.
 */
import { resolve } from 'node:path';
import { packageRoot } from '../../lib/paths.js';
import { formatDifferences } from './output-diff.js';
import { captureReports, compareReports, GOLDEN_REPLAY } from './replay-reports-run.js';

const [command, x, y] = process.argv.slice(2);
if (command === 'capture' && x) await captureReports(resolve(x), resolve(y ?? packageRoot));
else if (command === 'update' && !x) {
  await captureReports(GOLDEN_REPLAY, packageRoot, { replace: true });
  console.log(`wrote the replay reports of ${packageRoot} to ${GOLDEN_REPLAY}`);
} else if (command === 'compare' && x && y) {
  const { differences, files } = compareReports(x, y);
  process.stdout.write(formatDifferences(differences));
  console.log(`${files - differences.length} of ${files} files identical`);
  process.exitCode = differences.length === 0 ? 0 : 1;
} else {
  console.error('usage: replay-reports.js capture <out dir> [<package root>] | compare <dir a> <dir b> | update');
  process.exitCode = 2;
}
