/**
 * The short fuzz run in `npm test`: a new seed each run (`FUZZ_SEED` pins one), printed first and
 * in every test's title, so `npm run fuzz -- --seed N` reruns exactly these cases. Over stdio one
 * session with deep nesting (10^5 levels) in every position, one with every valid-JSON kind, and
 * each kind that breaks the JSON once; two cases over HTTP JSON and SSE; modest byte sizes
 * (test/fuzz/frames.ts shortRunCases). Each case is recorded through the real `record --ui
 * --otel` (its live view walked, its spans caught) and its cassette, and a tampered copy of it,
 * go through every reader (test/fuzz/run.ts, readers.ts). Serial: each case already runs a dozen
 * CLIs at once.
 */
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAll } from './child.js';
import { parseSeed, shortRunCases } from './frames.js';
import { runCase } from './run.js';

const seed = parseSeed(process.env.FUZZ_SEED);
const rerun = `npm run fuzz -- --seed ${String(seed)}`;
console.log(
  `# fuzz seed ${String(seed)}: rerun these cases with \`${rerun}\` (or FUZZ_SEED=${String(seed)} npm test -- test/fuzz/fuzz.test.ts)`,
);

for (const c of shortRunCases(seed)) {
  test.serial(`fuzz seed ${String(seed)} case ${String(c.index)}: ${c.kind} in ${c.position} over ${c.transport}`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-fuzz-'));
    t.teardown(() => {
      killAll();
      rmSync(dir, { recursive: true, force: true });
    });
    const failures = await runCase(c, dir);
    t.deepEqual(failures, [], `${failures.join('\n')}\nreplay: ${rerun} --case ${String(c.index)}`);
  });
}
