#!/usr/bin/env node
// The first and last steps of `npm run build`: dist/.build-stamp marks when dist/ was last built,
// so a test run can tell whether a source changed since (test/setup/fresh-build.mjs). `--start`
// notes when the build began; the last step writes the stamp with that time, not the time it
// ended, so a source saved while the build ran still counts as newer than the build.
import { existsSync, mkdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist');
const start = join(dist, '.build-start');
const stamp = join(dist, '.build-stamp');

if (process.argv.includes('--start')) {
  mkdirSync(dist, { recursive: true });
  writeFileSync(start, `${new Date().toISOString()}\n`);
} else {
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
  if (existsSync(start)) {
    const began = statSync(start).mtime;
    utimesSync(stamp, began, began);
    rmSync(start, { force: true });
  }
}
