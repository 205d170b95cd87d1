/**
 * `mcp-cassette check --cassettes <glob>... [-- <server command> | --url <endpoint>]`: the CI
 * command. Replays every cassette against the build, validates the replays' own traffic, runs the
 * probes with --probe, and writes one combined report: the console text, a Markdown job summary
 * ($GITHUB_STEP_SUMMARY and/or --summary), --junit, --sarif, and annotations on stdout when
 * GITHUB_ACTIONS=true. Exit 0 nothing breaking and no violation at --fail-on, 1 otherwise, 2 it
 * could not run.
 */
import { appendFileSync } from 'node:fs';
import type { CommandArgs, CommandModule } from '../lib/command.js';
import { writeReportText } from '../lib/cli-output.js';
import { CassetteError, ioReason } from '../lib/errors.js';
import { parseHeaderOptions } from '../lib/http-headers.js';
import { shellCommand } from './base-build.js';
import { renderAnnotations, renderJunit, renderSarif } from './report-machine.js';
import { renderJson } from './report-json.js';
import { renderSummary, renderText } from './report-summary.js';
import { runCheck, type CheckOptions } from './run-check.js';
import { parseShard } from './shard.js';
import type { Target } from './recording-target.js';
import { EXIT, type CheckRun } from './types.js';

export interface CheckIo {
  out?: { write(text: string): unknown };
  err?: NodeJS.WritableStream;
  env?: NodeJS.ProcessEnv;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === undefined ? [] : [String(v)]);
const text = (v: unknown): string | undefined => (v === undefined ? undefined : String(v));

function httpUrl(option: string, value: string): string {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw new CassetteError('MCPC_USAGE', `--${option} is not a URL: ${value}; give the MCP endpoint, e.g. http://127.0.0.1:3000/mcp`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CassetteError('MCPC_USAGE', `--${option} must be http(s): ${value}`);
  return value;
}

/** The options as runCheck takes them, every usage error named. */
export function checkOptionsFrom(args: CommandArgs, err: NodeJS.WritableStream): CheckOptions {
  const command = (args['--'] ?? []).map(String);
  const url = text(args.url);
  if (url !== undefined && command.length)
    throw new CassetteError('MCPC_USAGE', 'give either the server command after -- or --url, not both');
  if (url === undefined && !command.length) {
    throw new CassetteError(
      'MCPC_USAGE',
      "name the build to check: mcp-cassette check --cassettes '<glob>' -- <server command> [args...], or --url <endpoint>",
    );
  }
  const target: Target = url !== undefined ? { url: httpUrl('url', url) } : { command };
  const failOn = text(args['fail-on']) ?? 'error';
  if (failOn !== 'error' && failOn !== 'warning')
    throw new CassetteError('MCPC_USAGE', `--fail-on must be error or warning (got ${JSON.stringify(failOn)})`);
  const baseBuild = text(args['baseline-build']);
  const baseUrl = text(args['baseline-url']);
  if (baseBuild !== undefined && baseUrl !== undefined)
    throw new CassetteError('MCPC_USAGE', 'give either --baseline-build or --baseline-url, not both');
  const baseline: Target | undefined =
    baseBuild !== undefined
      ? { command: shellCommand(baseBuild) }
      : baseUrl !== undefined
        ? { url: httpUrl('baseline-url', baseUrl) }
        : undefined;
  const client = text(args.client);
  if (!baseline && (client !== undefined || args['record-dir'] !== undefined)) {
    throw new CassetteError(
      'MCPC_USAGE',
      '--client and --record-dir belong to base-vs-PR mode: add --baseline-build <command> or --baseline-url <endpoint>',
    );
  }
  const timeout = args.timeout === undefined ? undefined : Number(args.timeout);
  if (timeout !== undefined && !(timeout > 0))
    throw new CassetteError('MCPC_USAGE', `--timeout must be a positive number of ms (got ${String(args.timeout)})`);
  const headers = parseHeaderOptions(strings(args.header));
  const shard = args.shard === undefined ? undefined : parseShard(String(args.shard));
  if (shard && client !== undefined)
    throw new CassetteError('MCPC_USAGE', '--shard splits the cassettes, and a --client run has none: drop --shard, or give --cassettes');
  const fuzzSeconds = args['fuzz-seconds'] === undefined ? undefined : Number(args['fuzz-seconds']);
  if (fuzzSeconds !== undefined && !(fuzzSeconds > 0))
    throw new CassetteError('MCPC_USAGE', `--fuzz-seconds must be a positive number of seconds (got ${String(args['fuzz-seconds'])})`);
  if (fuzzSeconds === undefined && (args['fuzz-out'] !== undefined || args['fuzz-seed'] !== undefined))
    throw new CassetteError('MCPC_USAGE', '--fuzz-out and --fuzz-seed go with --fuzz-seconds <N>: add it, or drop them');
  if (fuzzSeconds !== undefined && shard)
    throw new CassetteError(
      'MCPC_USAGE',
      '--fuzz-seconds and --shard do not mix (the parts must merge into what one run writes): fuzz in a job of its own, `check --fuzz-seconds N` without --shard',
    );
  const fuzzSeed = args['fuzz-seed'] === undefined ? undefined : Number(args['fuzz-seed']);
  if (fuzzSeed !== undefined && !(Number.isInteger(fuzzSeed) && fuzzSeed >= 0 && fuzzSeed <= 0xffffffff))
    throw new CassetteError('MCPC_USAGE', `--fuzz-seed must be a whole number from 0 to 4294967295 (got ${String(args['fuzz-seed'])})`);
  return {
    cassettes: strings(args.cassettes),
    target,
    ...(fuzzSeconds !== undefined ? { fuzzSeconds } : {}),
    ...(args['fuzz-out'] !== undefined ? { fuzzOut: String(args['fuzz-out']) } : {}),
    ...(fuzzSeed !== undefined ? { fuzzSeed } : {}),
    ...(Object.keys(headers).length ? { headers } : {}),
    ...(timeout !== undefined ? { timeoutMs: timeout } : {}),
    ignore: strings(args.ignore),
    ...(args.config !== undefined ? { config: String(args.config) } : {}),
    probe: Boolean(args.probe),
    allowSideEffects: Boolean(args['allow-side-effects']),
    failOn,
    ...(args['expected-failures'] !== undefined ? { expectedFailures: String(args['expected-failures']) } : {}),
    ...(baseline ? { baseline, baselineLabel: baseBuild ?? baseUrl! } : {}),
    ...(client !== undefined ? { client } : {}),
    ...(args['record-dir'] !== undefined ? { recordDir: String(args['record-dir']) } : {}),
    ...(shard ? { shard } : {}),
    err,
  };
}

/** Writes every report the run was asked for (merge-reports writes a merged run with it too:
 * `annotations: false`, the parts have annotated already). */
export function writeReports(run: CheckRun, args: CommandArgs, io: Required<CheckIo>, annotations = true): void {
  const summary = renderSummary(run);
  const stepSummary = io.env.GITHUB_STEP_SUMMARY;
  if (stepSummary) {
    try {
      appendFileSync(stepSummary, summary);
    } catch (err) {
      throw new CassetteError(
        'MCPC_FILE_UNWRITABLE',
        `cannot append the job summary to $GITHUB_STEP_SUMMARY (${stepSummary}): ${ioReason(err)}`,
      );
    }
  }
  if (args.summary !== undefined) writeReportText(String(args.summary), summary, io.out);
  if (args.junit !== undefined) writeReportText(String(args.junit), renderJunit(run), io.out);
  if (args.sarif !== undefined) writeReportText(String(args.sarif), renderSarif(run), io.out);
  if (args.json !== undefined) writeReportText(String(args.json), renderJson(run), io.out);
  if (!args.quiet) io.out.write(renderText(run));
  if (annotations && io.env.GITHUB_ACTIONS === 'true') io.out.write(renderAnnotations(run));
}

export async function checkCommand(args: CommandArgs, io: CheckIo = {}): Promise<number> {
  const full = { out: io.out ?? process.stdout, err: io.err ?? process.stderr, env: io.env ?? process.env };
  const run = await runCheck(checkOptionsFrom(args, full.err));
  writeReports(run, args, full);
  return EXIT[run.verdict];
}

/** The handler of CHECK_COMMAND (check-command.ts), loaded when the command runs. */
export const CHECK_HANDLER: CommandModule['handler'] = async (args) => checkCommand(args);
