import test from 'ava';
import { assertRun, COMBINED_RUNS, recordHttp, recordStdio, rulesOf } from '../helpers/defect-sessions.js';
import { tempDir } from '../helpers/tmp.js';
import type { Revision } from '../servers/defect-server.js';

/*
 * Revision parity: the transport-parity script (the official v2 SDK client through the real
 * `record` CLI, live validation on, against test/servers/defect-server.ts) at the revisions
 * before 2025-11-25, whose `initialize` the client offers and the server accepts. Each defect
 * raises exactly its rule at its answer, live and in `validate` alike, on the revisions that have
 * the rule (a missing resource is -32002 there, so -32602 is RES-NOTFOUND-LEGACY-32002), and
 * nothing where the revision has no such rule (an outputSchema before 2025-06-18, tool order and
 * the `_meta` envelope before 2026-07-28); the clean server raises nothing. The validation-recall
 * bench measures every transport and revision, one defect at a time; here the defects share
 * three servers (COMBINED_RUNS), which keeps the test quick on a busy machine.
 */

/** HTTP sessions (Streamable HTTP came with 2025-03-26): one recording per revision, each server
 * shown to a user of its own. */
const RUNS = COMBINED_RUNS;
for (const revision of ['2025-06-18', '2025-03-26'] as Revision[]) {
  test.serial(`revision parity, HTTP session at ${revision}: each defect raises exactly its rule of ${revision}, or nothing`, async (t) => {
    const recorded = await recordHttp(t, tempDir(t), 'http-2025', revision, RUNS);
    const seen = RUNS.flatMap((run) => assertRun(t, 'http-2025', revision, run, recorded.get(run)!));
    t.deepEqual(seen, rulesOf(RUNS, revision), 'every rule of the revision is caught');
    t.log(`http-2025 ${revision} catches: ${seen.join(', ')}`);
  });
}

/** stdio at 2024-11-05 (the first revision; it had no Streamable HTTP): the three servers at once. */
test.serial('revision parity, stdio at 2024-11-05: each defect raises exactly its rule of 2024-11-05, or nothing', async (t) => {
  const revision: Revision = '2024-11-05';
  const dir = tempDir(t);
  const recorded = await Promise.all(RUNS.map((run) => recordStdio(dir, revision, run)));
  const seen = RUNS.flatMap((run, i) => {
    const v = recorded[i]!;
    t.deepEqual(
      v.exit,
      { code: 0, signal: null },
      `${run.join() || 'clean'}: the recorder exits 0 when its client ends stdin; ${v.stderr}`,
    );
    return assertRun(t, 'stdio', revision, run, v);
  });
  t.deepEqual(seen, [
    'TOOLS-ERR-PROTOCOL',
    'TOOLS-ERR-EXECUTION',
    'CAP-DECLARED-ANSWERS',
    'RES-NOTFOUND-LEGACY-32002',
    'ENV-RES-ID-MATCH',
    'PROMPTS-ERR-ARGS',
  ]);
  t.deepEqual(seen, rulesOf(RUNS, revision));
});
