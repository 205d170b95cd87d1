#!/usr/bin/env node
/**
 * `npm run fuzz -- --seconds N [--seed S]`: random cases until N seconds pass (at least one case);
 * `npm run fuzz -- --seed S --case K` replays one case. Full sizes (10^5 levels, 1-10 MB lines).
 * `--short` walks the short run's cases of `npm test` instead (with `--case K`, just that one).
 * Prints the seed first, one line per case, and every failure with the command that replays it.
 * Exit 0 when every case passed, 1 when one failed, 2 on a usage error.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCase, fullLimits, makeCase, shortRunCases, type FuzzCase } from './frames.js';
import { killAll, runCase } from './run.js';

function usage(message: string): never {
  process.stderr.write(`${message}\nusage: npm run fuzz -- --seconds N [--seed S] | --seed S --case K [--short] | --short [--seed S]\n`);
  process.exit(2);
}

const args = process.argv.slice(2);
const short = args.includes('--short');
if (short) args.splice(args.indexOf('--short'), 1);
const opts = new Map<string, number>();
for (let i = 0; i < args.length; i += 2) {
  const name = args[i]!;
  const value = Number(args[i + 1]);
  if (!['--seconds', '--seed', '--case'].includes(name)) usage(`unknown option ${name}`);
  if (!Number.isSafeInteger(value) || value < 0) usage(`${name} needs a whole number`);
  opts.set(name, value);
}
if (opts.has('--case') && !opts.has('--seed')) usage('--case needs --seed');
const seed = opts.get('--seed') ?? Math.floor(Math.random() * 2 ** 32);
const seconds = opts.get('--seconds') ?? 60;
for (const s of ['SIGINT', 'SIGTERM'] as const)
  process.on(s, () => {
    killAll();
    process.exit(130);
  });

process.stdout.write(`fuzz seed ${String(seed)}\n`);
const deadline = Date.now() + seconds * 1000;
const only = opts.get('--case');
const shortCases = short ? shortRunCases(seed) : undefined;
if (shortCases && only !== undefined && !shortCases[only]) usage(`the short run has cases 0-${String(shortCases.length - 1)}`);
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
      `     files kept in ${dir}; replay: npm run fuzz -- ${short ? '--short ' : ''}--seed ${String(seed)} --case ${String(index)}\n`,
    );
  }
}
process.stdout.write(`fuzz seed ${String(seed)}: ${String(ran)} cases, ${String(failed)} failed\n`);
process.exitCode = failed ? 1 : 0;
