#!/usr/bin/env node
// After a coverage run (`npm run test:all`, c8 over the unit and integration tiers and the
// processes those tests start; test/setup/run-tests.mjs says why not the e2e tier): fails when
// line or branch coverage fell more than 1 point below the committed floor
// (test/setup/coverage-floor.json). Raise the floor when coverage rises, in the same commit as
// the tests that raised it, and keep docs/testing.md's figures beside it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const floor = JSON.parse(readFileSync(join(root, 'test', 'setup', 'coverage-floor.json'), 'utf8'));
const total = JSON.parse(readFileSync(join(root, 'coverage', 'coverage-summary.json'), 'utf8')).total;
let failed = false;
for (const kind of ['lines', 'branches']) {
  const pct = total[kind].pct;
  const ok = pct >= floor[kind] - 1;
  failed ||= !ok;
  console.log(
    `# coverage ${kind}: ${pct.toFixed(2)}% (floor ${floor[kind]}%, fails below ${(floor[kind] - 1).toFixed(2)}%)${ok ? '' : ': FELL BELOW THE FLOOR'}`,
  );
}
if (failed) {
  console.log('# coverage fell more than 1 point below test/setup/coverage-floor.json: add tests for what lost it');
  process.exit(1);
}
