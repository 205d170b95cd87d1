import test from 'ava';
import {
  assertRun,
  CARRIERS,
  COMBINED_RUNS,
  DEFECT_RUNS,
  KNOWN_MISSES,
  recordHttp,
  recordStdio,
  rulesOf,
  type Carrier,
} from '../helpers/defect-sessions.js';
import { tempDir } from '../helpers/tmp.js';
import { ruleOf, type Revision } from '../servers/defect-server.js';

/*
 * Transport parity: the same client script, on the official v2 SDK client, drives a server
 * seeded with defects (test/servers/defect-server.ts: one at a time over HTTP, each to a user of
 * its own; on stdio the three servers of COMBINED_RUNS) through the real `record` CLI with live
 * validation, over stdio, stateless 2026-07-28 HTTP answering JSON, the same answering SSE, and
 * a 2025-11-25 sessionful HTTP session. Each defect raises exactly its rule, at the message it
 * is about, live and offline (`validate`'s code on the saved cassette) alike; the clean server
 * raises nothing. Most defects need more than one message (a list before a call, two lists, a
 * declared capability), which stateless HTTP shows only through the server context. The older
 * revisions are revision-parity.test.ts's; the validation-recall bench measures every cell.
 */

/** The revision each transport is tested at here. */
const REVISION: Record<Carrier, Revision> = {
  stdio: '2026-07-28',
  'http-json': '2026-07-28',
  'http-sse': '2026-07-28',
  'http-2025': '2025-11-25',
};

for (const carrier of CARRIERS) {
  const revision = REVISION[carrier];
  test.serial(
    `transport parity over ${carrier} (${revision}): each defect raises exactly its rule at its message, live and offline alike; the clean server raises nothing`,
    async (t) => {
      const dir = tempDir(t);
      // stdio: a recording per server, the three at once; HTTP: one recording, a user per server.
      const runs = carrier === 'stdio' ? COMBINED_RUNS : DEFECT_RUNS;
      const recorded =
        carrier === 'stdio'
          ? new Map(await Promise.all(runs.map(async (run) => [run, await recordStdio(dir, revision, run)] as const)))
          : await recordHttp(t, dir, carrier, revision);
      const seen: string[] = [];
      for (const run of runs) {
        const v = recorded.get(run)!;
        if (v.exit)
          t.deepEqual(
            v.exit,
            { code: 0, signal: null },
            `${run.join() || 'clean'}: the recorder exits 0 when its client ends stdin; ${v.stderr}`,
          );
        seen.push(...assertRun(t, carrier, revision, run, v));
      }
      const missed = rulesOf(runs, revision).filter((r) => !seen.includes(r));
      t.deepEqual(
        missed,
        KNOWN_MISSES[carrier]?.map((d) => ruleOf(d, revision)) ?? [],
        'every rule of the revision is caught but the known misses',
      );
      // The recall tables of docs/validation.md come from the validation-recall bench; this line
      // says the same for the cell.
      t.log(`${carrier} ${revision} catches: ${seen.join(', ')}`);
    },
  );
}
