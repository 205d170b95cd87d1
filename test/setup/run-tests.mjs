#!/usr/bin/env node
// The test runner behind `npm test` and `npm run test:all`:
//
//   npm test                      unit and integration tiers
//   npm run test:all              and the e2e tier (real peers, install, corpus, fuzz, browser,
//                                 Prometheus), with coverage checked against its floor
//   npm test -- <file.ts> ...     just those files (any tier), after an incremental build
//   npm test -- --match '<title>' other arguments go to ava as they are
//
// It builds first when a source changed (tsc is incremental: after an edit, seconds), names one folder for
// the run's shared recordings (test/helpers/shared-artifact.ts), and runs ava on the tier's
// files. Plain JavaScript, so it can run before anything is built.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { glob } from 'tinyglobby';
import { E2E, LONGEST_FIRST } from './tiers.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const args = process.argv.slice(2);
const all = args.includes('--all');
const coverage = args.includes('--coverage');
const rest = args.filter((a) => a !== '--all' && a !== '--coverage');

/** Runs a step; its failure ends the run with its exit code. */
function step(command, commandArgs, env = process.env) {
  const r = spawnSync(command, commandArgs, { cwd: root, stdio: 'inherit', env, shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

// Only when a source is newer than the last build (fresh-build.mjs): right after `npm ci`, whose
// prepare built, there is nothing to do.
step(process.execPath, [join(root, 'test', 'setup', 'fresh-build.mjs')]);
if (all) step(process.execPath, [join(root, 'test', 'setup', 'ensure-node22.mjs')]);

// Files named on the command line run whatever their tier, as ava's configuration says (one
// file at a time); otherwise the tiers, each a run of its own: the unit and integration tiers two
// files at a time (this machine's cores; these tests wait for events, never for the clock), the
// e2e tier one file at a time (real peers with start-up budgets of their own: @ai-sdk/mcp gives
// `server/discover` one second).
const named = rest.filter((a) => /\.test\.(ts|js)$/.test(a));
const avaArgs = rest.filter((a) => !named.includes(a));
const phases = [];
if (named.length > 0) {
  phases.push({ files: named.map((f) => relative(root, join(process.cwd(), f))), args: [], coverage: true });
} else {
  // test/peers/node22 has a node_modules of its own (the Node 22 peers), with tests of theirs.
  const every = (await glob('test/**/*.test.ts', { cwd: root, ignore: ['**/node_modules/**'] })).sort();
  const e2e = new Set(await glob(E2E, { cwd: root }));
  const rank = (f) => (LONGEST_FIRST.includes(f) ? LONGEST_FIRST.indexOf(f) : LONGEST_FIRST.length);
  const fast = every.filter((f) => !e2e.has(f)).sort((a, b) => rank(a) - rank(b));
  console.log(
    `# unit and integration tiers: ${fast.length} test files${all ? `, then the e2e tier: ${e2e.size}` : ` (npm run test:all adds the e2e tier: ${e2e.size} more)`}`,
  );
  phases.push({ files: fast, args: ['--concurrency', '2'], coverage: true });
  // Coverage is measured over the unit and integration tiers, the tests of our own code: the e2e
  // tier's subject is outside the project (real peers, installs, a browser), its processes are
  // mostly theirs, and V8's coverage made it a fifth slower for 0.8 points of branches (measured).
  if (all) phases.push({ files: every.filter((f) => e2e.has(f)), args: ['--concurrency', '1'], coverage: false });
}

const shared = mkdtempSync(join(tmpdir(), 'mcp-cassette-test-run-'));
const env = { ...process.env, MCP_CASSETTE_TEST_SHARED: shared };
const coverageDir = join(root, 'coverage');
if (coverage) {
  // V8 writes each process's coverage here (the tests and every process they start); c8 maps it
  // back to the TypeScript sources afterwards (.c8rc.json).
  rmSync(coverageDir, { recursive: true, force: true });
  env.NODE_V8_COVERAGE = join(coverageDir, 'tmp');
}
const ava = join(root, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
let status = 0;
try {
  for (const phase of phases) {
    const started = Date.now();
    const phaseEnv = { ...env };
    if (!phase.coverage) delete phaseEnv.NODE_V8_COVERAGE;
    const r = spawnSync(process.execPath, [ava, ...phase.args, ...avaArgs, ...phase.files], { cwd: root, stdio: 'inherit', env: phaseEnv });
    if (r.status !== 0) status = r.status ?? 1;
    // The tiers' lengths, so that a run that grows says where (CI has a time budget).
    if (phases.length > 1 || coverage) console.log(`# ${phase.files.length} test files in ${Math.round((Date.now() - started) / 1000)} s`);
  }
} finally {
  rmSync(shared, { recursive: true, force: true });
}
if (coverage) {
  const started = Date.now();
  step(process.execPath, [join(root, 'test', 'setup', 'coverage-compact.mjs')]);
  const c8 = join(root, 'node_modules', 'c8', 'bin', 'c8.js');
  const report = spawnSync(process.execPath, [c8, 'report'], { cwd: root, stdio: 'inherit' });
  if (report.status !== 0) status ||= report.status ?? 1;
  else {
    const floor = spawnSync(process.execPath, [join(root, 'test', 'setup', 'coverage-floor.mjs')], { cwd: root, stdio: 'inherit' });
    if (floor.status !== 0) status ||= floor.status ?? 1;
  }
  console.log(`# coverage compacted and reported in ${Math.round((Date.now() - started) / 1000)} s`);
}
process.exit(status);
