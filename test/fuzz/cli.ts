#!/usr/bin/env node
/**
 * `npm run fuzz -- [--seed S] [--case K]`: the short run of `npm test` (test/fuzz/fuzz.test.ts) for
 * seed S (a random one when not given), or just its case K. The test prints the seed it used, so
 * `npm run fuzz -- --seed S` reruns exactly what it ran.
 * `npm run fuzz -- --seconds N [--seed S]`: random full-size cases (10^5 levels, 1-10 MB lines)
 * until N seconds pass (at least one case); `--full --seed S --case K` replays one of them.
 * Prints the seed first, one line per case, and every failure with the command that replays it.
 * Exit 0 when every case passed, 1 when one failed, 2 on a usage error.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killAll } from './child.js';
import { describeCase, fullLimits, makeCase, parseSeed, shortRunCases, type FuzzCase } from './frames.js';
import { runCase } from './run.js';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: npm run fuzz -- [--seed S] [--case K] | --seconds N [--seed S] | --full --seed S --case K\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const fullFlag = args.includes('--full');
if (fullFlag) args.splice(args.indexOf('--full'), 1);
const opts = new Map<string, string>();
for (let i = 0; i < args.length; i += 2) {
  const name = args[i]!;
  const value = args[i + 1];
  if (!['--seconds', '--seed', '--case'].includes(name)) usage(`unknown option ${name}`);
  if (value === undefined || !/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) usage(`${name} needs a whole number`);
  opts.set(name, value);
}
const full = fullFlag || opts.has('--seconds');
if (opts.has('--seconds') && opts.has('--case')) usage('--case replays one case: give --full instead of --seconds');
if (full && opts.has('--case') && !opts.has('--seed')) usage('--full --case needs --seed');
let seed: number;
try {
  seed = parseSeed(opts.get('--seed'));
} catch (err) {
  usage((err as Error).message);
}
const seconds = Number(opts.get('--seconds') ?? 60);
for (const s of ['SIGINT', 'SIGTERM'] as const)
  process.on(s, () => {
    killAll();
    process.exit(130);
  });

const only = opts.has('--case') ? Number(opts.get('--case')) : undefined;
const shortCases = full ? undefined : shortRunCases(seed);
if (shortCases && only !== undefined && !shortCases[only]) usage(`the short run has cases 0-${String(shortCases.length - 1)}`);
process.stdout.write(`fuzz seed ${String(seed)}\n`);
const deadline = Date.now() + seconds * 1000;
/** The next case to run, or undefined when the run is over. */
function next(ran: number): FuzzCase | undefined {
  if (only !== undefined) return ran === 0 ? (shortCases ? shortCases[only] : makeCase(seed, only, fullLimits)) : undefined;
  if (shortCases) return shortCases[ran];
  return ran === 0 || Date.now() < deadline ? makeCase(seed, ran, fullLimits) : undefined;
}
let failed = 0;
let ran = 0;
for (let c = next(0); c; c = next(ran)) {
  const index = c.index;
  const dir = join(tmpdir(), `mcp-cassette-fuzz-${String(seed)}-${String(index)}`);
  const failures = await runCase(c, dir);
  ran += 1;
  process.stdout.write(`${failures.length ? 'FAIL' : 'ok  '} ${describeCase(c)}\n`);
  if (failures.length) {
    failed += 1;
    for (const f of failures) process.stdout.write(`     ${f}\n`);
    process.stdout.write(
      `     files kept in ${dir}; replay: npm run fuzz -- ${full ? '--full ' : ''}--seed ${String(seed)} --case ${String(index)}\n`,
    );
  }
}
killAll();
process.stdout.write(`fuzz seed ${String(seed)}: ${String(ran)} cases, ${String(failed)} failed\n`);
process.exitCode = failed ? 1 : 0;
