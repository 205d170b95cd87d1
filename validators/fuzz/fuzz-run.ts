/**
 * `mcp-cassette fuzz <cassette|dir...> -- <server command>` / `--url <endpoint> [-- <command>]`:
 * reads the cassettes, derives the cases, fuzzes the server the user named (never the one a
 * cassette recorded), writes each finding's cassette and the reports. Exit 0 no finding at
 * --fail-on, 1 findings, 2 it could not run.
 */
import { appendFileSync } from 'node:fs';
import { randomInt } from 'node:crypto';
import { resolve } from 'node:path';
import type { CommandArgs, CommandModule } from '../../lib/command.js';
import { checkReportPaths, writeReportText } from '../../lib/cli-output.js';
import { expandCassettePaths } from '../../lib/cassette/directory.js';
import { settleBeforeRead } from '../../lib/cassette/settle-read.js';
import { loadCassette } from '../../lib/cassette/store.js';
import { CassetteError, ioReason } from '../../lib/errors.js';
import { parseHeaderOptions } from '../../lib/http-headers.js';
import { derivePlan, type Plan } from '../probes/plan.js';
import { generateCases } from './cases.js';
import { runFuzz, type FuzzRun } from './engine.js';
import { renderFuzzJson, renderFuzzJunit, renderFuzzSarif, renderFuzzSummary, renderFuzzText, type FuzzReportContext } from './report.js';
import { HttpServerProcess, type Endpoint } from './target.js';

export interface FuzzArgs {
  cassettes: string[];
  command: string[];
  url?: string;
  seconds?: number;
  runs?: number;
  seed?: number;
  out: string;
  timeout?: number;
  allowSideEffects: boolean;
  header: string[];
  failOn: string;
  summary?: string;
  junit?: string;
  sarif?: string;
  json?: string;
}

export const DEFAULT_SECONDS = 60;
export const DEFAULT_TIMEOUT_MS = 5000;

/** One plan from several cassettes: every recorded call, the first handshake, every tool. */
export function mergePlans(plans: readonly Plan[]): Plan {
  const merged: Plan = { transport: plans[0]!.transport, modern: [], legacy: [], tools: new Map(), mrtr: [], usesAuth: false };
  for (const p of plans) {
    merged.modern.push(...p.modern);
    merged.legacy.push(...p.legacy);
    merged.mrtr.push(...p.mrtr);
    merged.initialize ??= p.initialize;
    merged.supportedVersions ??= p.supportedVersions;
    merged.usesAuth ||= p.usesAuth;
    for (const [name, tool] of p.tools) if (!merged.tools.has(name)) merged.tools.set(name, tool);
  }
  return merged;
}

function usage(message: string): never {
  throw new CassetteError('MCPC_USAGE', message);
}

function checkArgs(args: FuzzArgs): void {
  if (!args.cassettes.length) usage('name the cassettes to start from: mcp-cassette fuzz <cassette|dir...> -- <server command>');
  if (!args.url && !args.command.length)
    usage(
      "name the server to fuzz: mcp-cassette fuzz <cassette...> -- <server command> [args...], or --url <endpoint> (the cassette's recorded server is never fuzzed on its own)",
    );
  if (args.url) {
    let u: URL;
    try {
      u = new URL(args.url);
    } catch {
      usage(`--url is not a URL: ${args.url}; give the MCP endpoint, e.g. http://127.0.0.1:3000/mcp`);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') usage(`--url must be http(s): ${args.url}`);
  }
  const positive = (name: string, v: number | undefined, integer = false): void => {
    if (v !== undefined && !(Number.isFinite(v) && v > 0 && (!integer || Number.isInteger(v))))
      usage(`--${name} must be a positive ${integer ? 'whole number' : 'number'} (got ${String(v)})`);
  };
  positive('seconds', args.seconds);
  positive('runs', args.runs, true);
  positive('timeout', args.timeout);
  if (args.seed !== undefined && !(Number.isInteger(args.seed) && args.seed >= 0 && args.seed <= 0xffffffff))
    usage(`--seed must be a whole number from 0 to 4294967295 (got ${String(args.seed)})`);
  if (args.failOn !== 'error' && args.failOn !== 'warning')
    usage(`--fail-on must be error or warning (got ${JSON.stringify(args.failOn)})`);
}

export interface FuzzOutcome {
  run: FuzzRun;
  report: FuzzReportContext;
}

/** Runs the fuzzer as the command would, without writing reports (tests and `check` call it). */
export async function fuzz(args: FuzzArgs, err: NodeJS.WritableStream = process.stderr): Promise<FuzzOutcome> {
  checkArgs(args);
  const paths = expandCassettePaths(args.cassettes);
  await settleBeforeRead(paths);
  const plans: Plan[] = [];
  for (const path of paths) {
    const cassette = loadCassette(path);
    // A finding's cassette holds the mutated requests of an earlier run, not a recorded session.
    if (cassette.finding) {
      err.write(`mcp-cassette fuzz: skipping ${path}: it is a fuzz finding, not a recorded session\n`);
      continue;
    }
    plans.push(derivePlan(cassette, true));
  }
  if (!plans.length) usage('no recorded session to start from: every cassette named is a fuzz finding');
  const plan = mergePlans(plans);
  const seed = args.seed ?? randomInt(0, 0xffffffff);
  const generated = generateCases(plan, seed, { allowSideEffects: args.allowSideEffects });
  const timeoutMs = args.timeout ?? DEFAULT_TIMEOUT_MS;
  let server: HttpServerProcess | undefined;
  const endpoint: Endpoint = args.url
    ? {
        transport: 'streamable-http',
        url: args.url,
        headers: parseHeaderOptions(args.header),
        ...(args.command.length ? { command: args.command } : {}),
      }
    : { transport: 'stdio', command: args.command };
  if (args.url && args.command.length) {
    server = new HttpServerProcess(args.command, args.url);
    try {
      await server.start();
    } catch (e) {
      await server.stop();
      throw new CassetteError('MCPC_USAGE', `${(e as Error).message}; check the command after -- and --url`);
    }
  }
  const target = args.url ?? args.command.join(' ');
  err.write(
    `mcp-cassette fuzz: seed ${seed}, ${plan.modern.length + plan.legacy.length} recorded requests from ${plans.length} cassette(s)\n`,
  );
  let run: FuzzRun;
  try {
    run = await runFuzz(
      {
        endpoint,
        plan,
        seed,
        ...(args.runs !== undefined ? { runs: args.runs } : {}),
        ...(args.seconds !== undefined || args.runs === undefined ? { seconds: args.seconds ?? DEFAULT_SECONDS } : {}),
        timeoutMs,
        out: resolve(args.out),
        ...(server ? { server } : {}),
        onFinding: (f) =>
          err.write(
            `mcp-cassette fuzz: finding ${f.observed.rule ?? f.observed.kind} on ${f.observed.method}${f.observed.tool ? ` ${f.observed.tool}` : ''}${f.cassette ? ` → ${f.cassette}` : ''}\n`,
          ),
      },
      generated.cases,
    );
  } finally {
    await server?.stop();
  }
  // Over HTTP the replay needs the server running, as `replay --url` always does.
  const replayArgs = args.url ? ['--url', args.url] : ['--', ...args.command];
  return { run, report: { run, target, replayArgs, cassettes: paths, skipped: generated.skipped } };
}

/** Exit status: 2 when nothing could be fuzzed; 1 findings at --fail-on; 0 otherwise. */
export async function fuzzCommand(args: FuzzArgs, env: NodeJS.ProcessEnv = process.env): Promise<number> {
  checkArgs(args);
  checkReportPaths([
    ['--summary', args.summary],
    ['--junit', args.junit],
    ['--sarif', args.sarif],
    ['--json', args.json],
  ]);
  const { run, report } = await fuzz(args);
  // With --json - the JSON is stdout's, and the text goes to stderr.
  (args.json === '-' ? process.stderr : process.stdout).write(renderFuzzText(report));
  if (args.json) writeReportText(args.json, renderFuzzJson(report));
  if (args.junit) writeReportText(args.junit, renderFuzzJunit(report));
  if (args.sarif) writeReportText(args.sarif, renderFuzzSarif(report));
  const summary = renderFuzzSummary(report);
  if (args.summary) writeReportText(args.summary, summary);
  if (env.GITHUB_STEP_SUMMARY) {
    try {
      appendFileSync(env.GITHUB_STEP_SUMMARY, summary);
    } catch (e) {
      throw new CassetteError(
        'MCPC_FILE_UNWRITABLE',
        `cannot append the job summary to $GITHUB_STEP_SUMMARY (${env.GITHUB_STEP_SUMMARY}): ${ioReason(e)}`,
      );
    }
  }
  if (run.cases === 0 || (run.error && run.cases <= 1 && run.findings.length === 0)) {
    process.stderr.write(
      `mcp-cassette fuzz: nothing was fuzzed${run.error ? `: ${run.error}` : ' (no case could be derived from the cassettes)'}\n`,
    );
    return 2;
  }
  const threshold = args.failOn === 'error' ? ['error'] : ['error', 'warning'];
  return run.findings.some((f) => threshold.includes(f.observed.severity)) ? 1 : 0;
}

const text = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));
const num = (v: unknown): number | undefined => (v === undefined ? undefined : Number(v));

export function fuzzArgsFrom(args: CommandArgs): FuzzArgs {
  const out: FuzzArgs = {
    cassettes: (args.cassette as unknown[]).map(String),
    command: (args['--'] ?? []).map(String),
    out: String(args.out),
    allowSideEffects: Boolean(args['allow-side-effects']),
    header: (args.header as unknown[]).map(String),
    failOn: String(args['fail-on']),
  };
  const optional = {
    url: text(args.url),
    seconds: num(args.seconds),
    runs: num(args.runs),
    seed: num(args.seed),
    timeout: num(args.timeout),
    summary: text(args.summary),
    junit: text(args.junit),
    sarif: text(args.sarif),
    json: text(args.json),
  };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) (out as unknown as Record<string, unknown>)[k] = v;
  return out;
}

/** The handler of FUZZ_COMMAND (fuzz-command.ts), loaded when the command runs. */
export const FUZZ_HANDLER: CommandModule['handler'] = async (args) => fuzzCommand(fuzzArgsFrom(args));
