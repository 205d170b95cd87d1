#!/usr/bin/env node
// The last step of `npm run build`: dist/.build-stamp marks when dist/ was last built, so a test
// run can tell whether a source changed since (test/setup/fresh-build.mjs).
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

writeFileSync(join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', '.build-stamp'), `${new Date().toISOString()}\n`);
