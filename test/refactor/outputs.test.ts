/**
 * Behaviour must not change when the code is only restructured (issue 36): what `validate` and
 * `rules` print, and the replay and serve reports of the example cassettes, are compared with the
 * goldens committed in test/refactor/golden/ (README there: what is normalised, how to update).
 * A failure names each output that differs, by JSON Pointer or by line, and the command that
 * rewrites the goldens when the change is meant.
 */
import type { ChildProcess } from 'node:child_process';
import test, { type ExecutionContext } from 'ava';
import { packageRoot } from '../../lib/paths.js';
import { tempDir } from '../helpers/tmp.js';
import { formatDifferences, type Difference } from './output-diff.js';
import { captureReports, compareReports, GOLDEN_REPLAY, UPDATE_REPLAY } from './replay-reports-run.js';
import { captureAll, compareSnapshot, GOLDEN_VALIDATE, UPDATE_VALIDATE } from './validate-outputs-run.js';

/** Kills, when the test ends, a process it started that is still running. */
const owned =
  (t: ExecutionContext) =>
  (child: ChildProcess): void =>
    t.teardown(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });

function explain(differences: Difference[], golden: string, update: string): string {
  return [
    `${differences.length} output(s) differ from the goldens in ${golden}:`,
    formatDifferences(differences),
    `If this change of behaviour is meant, rewrite the goldens with the current build and commit them with it:`,
    `  npm run build && ${update} && git diff --stat test/refactor/golden`,
  ].join('\n');
}

// Both at once, two CLI runs (or replay scenarios) at a time each: the validate runs use the CPU,
// the replays mostly wait for their peers; the file runs beside another on 2 cores.
test('validate and rules print what the goldens hold, for every cassette and report format', async (t) => {
  const now = await captureAll(packageRoot, { concurrency: 2, started: owned(t) });
  // The three `rules` outputs and five formats of at least one cassette: a capture that found
  // nothing would otherwise show only as "missing".
  t.true(now.size >= 8, `only ${now.size} outputs captured`);
  const differences = compareSnapshot(GOLDEN_VALIDATE, now);
  if (differences.length > 0) t.fail(explain(differences, GOLDEN_VALIDATE, UPDATE_VALIDATE));
});

test('replay and serve reports of the example cassettes are what the goldens hold', async (t) => {
  const out = tempDir(t, 'replay-reports-now-');
  await captureReports(out, packageRoot, { concurrency: 2, started: owned(t) });
  const { differences, files } = compareReports(GOLDEN_REPLAY, out);
  t.true(files >= 10, `only ${files} report files`);
  if (differences.length > 0) t.fail(explain(differences, GOLDEN_REPLAY, UPDATE_REPLAY));
});
