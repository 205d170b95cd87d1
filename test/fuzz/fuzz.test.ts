/**
 * The short fuzz run in `npm test`: a fixed seed, deep nesting (10^5 levels) in every position and
 * seven other kinds over stdio, two cases over HTTP JSON and SSE, at modest byte sizes
 * (test/fuzz/frames.ts shortRunCases). Each case is recorded through the real `record` and its cassette goes through recover, validate,
 * show, replay and serve (test/fuzz/run.ts). Serial: each case already runs six CLIs at once.
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
