/**
 * The short fuzz run in `npm test`: a fixed seed; over stdio one session with deep nesting (10^5
 * levels) in every position, one with every valid-JSON kind, and each kind that breaks the JSON
 * once; two cases over HTTP JSON and SSE; modest byte sizes (test/fuzz/frames.ts shortRunCases).
 * Each case is recorded through the real `record` and its cassette goes through recover, validate
 * (every format), show, replay, serve (stdio and --listen) and probe (test/fuzz/run.ts). Serial:
 * each case already runs a dozen CLIs at once.
 */
import test from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shortRunCases } from './frames.js';
import { killAll, runCase } from './run.js';

const seed = 20261201;

for (const c of shortRunCases(seed)) {
  test.serial(`fuzz seed ${String(seed)} case ${String(c.index)}: ${c.kind} in ${c.position} over ${c.transport}`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-fuzz-'));
    t.teardown(() => {
      killAll();
      rmSync(dir, { recursive: true, force: true });
    });
    const failures = await runCase(c, dir);
    t.deepEqual(failures, [], `${failures.join('\n')}\nreplay: npm run fuzz -- --short --seed ${String(seed)} --case ${String(c.index)}`);
  });
}
