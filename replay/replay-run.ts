/**
 * `mcp-cassette replay <cassette> -- <server command…>` / `--url <endpoint>`: thin handler that
 * parses, calls replayCassette, writes the reports and returns the exit status (0 no breaking
 * change and no changed output, 1 breaking or changed output or, with --strict, warnings, 2 the
 * replay could not run).
 */
import { CassetteError } from '../lib/errors.js';
import { isStdout, useColour, writeReportText } from '../lib/cli-output.js';
import { parseHeaderOptions } from '../lib/http-headers.js';
import { DEFAULT_CALIBRATION_RUNS } from './calibrate.js';
import { renderCalibration } from './calibrate-render.js';
import { ProgressBar, shouldShowProgress, type ProgressStream } from './progress.js';
import { exitCodeFor, replayCassette } from './replay.js';
import { REPORT_FORMATS, renderConsole, renderReport, type ReportFormat } from './reports.js';
import type { CommandModule } from '../lib/command.js';
import { settleBeforeRead } from '../lib/cassette/settle-read.js';
import type { SessionJudge } from './finding.js';

export interface ReplayArgs {
  /** A cassette file, several, or a directory of them. */
  cassette: string | string[];
  command: string[];
  url?: string;
  timeout?: number;
  ignore: string[];
  report: string[];
  strict: boolean;
  config?: string;
  header: string[];
  quiet?: boolean;
  /** Re-record the cassette from the live server (sessions that changed). */
  update?: boolean;
  /** With --update: HTTP response headers to mask, besides the recorder's defaults. */
  redactHeader?: string[];
  /** `--no-progress` gives false. */
  progress?: boolean;
  /** `--calibrate [N]`: the runs as given (`''` for the default), or absent. */
  calibrate?: string;
  /** `--reset <command>`: run before the replay and each calibration run. */
  reset?: string;
  /** `--force`: calibrate against another server or version all the same. */
  force?: boolean;
  /** `--content fail|warn`. */
  content?: 'fail' | 'warn';
}

/** Where the handler writes: the report to `out`, the progress bar to `err`. */
export interface ReplayIo {
  out?: { write(text: string): unknown; isTTY?: boolean };
  err?: ProgressStream & { isTTY?: boolean };
  env?: NodeJS.ProcessEnv;
  /** The validator, from the composition root (a fuzz finding's cassette whose finding is a rule). */
  judgeSession?: SessionJudge;
}

interface ReportTarget {
  format: ReportFormat;
  file?: string;
}

export function parseReports(specs: readonly string[]): ReportTarget[] {
  return specs
    .map((spec) => {
      const eq = spec.indexOf('=');
      const format = (eq === -1 ? spec : spec.slice(0, eq)) as ReportFormat;
      const file = eq === -1 ? undefined : spec.slice(eq + 1);
      if (!REPORT_FORMATS.includes(format)) {
        throw new CassetteError('MCPC_USAGE', `unknown --report format "${format}"; use json=FILE, junit=FILE, markdown=FILE or github`);
      }
      if (format !== 'github' && !file)
        throw new CassetteError('MCPC_USAGE', `--report ${format} needs a file: --report ${format}=FILE (- for stdout)`);
      return { format, ...(file ? { file } : {}) };
    })
    .map((r, _, all) => {
      if (r.file === '-' && all.filter((o) => o.file === '-').length > 1) {
        throw new CassetteError('MCPC_USAGE', 'only one --report can go to stdout (FILE -); give the others a file');
      }
      return r;
    });
}

/** `--calibrate` alone is the default number of runs. */
function parseRuns(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (value === '') return DEFAULT_CALIBRATION_RUNS;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new CassetteError(
      'MCPC_USAGE',
      `--calibrate takes a number of runs, at least 1 (default ${DEFAULT_CALIBRATION_RUNS}), got "${value}": replay --calibrate [N] <cassette> -- <server command>`,
    );
  return Number(value);
}

export async function replayCommand(args: ReplayArgs, io: ReplayIo = {}): Promise<number> {
  const out = io.out ?? process.stdout;
  const err = io.err ?? process.stderr;
  const env = io.env ?? process.env;
  const reports = parseReports(args.report);
  const headers = parseHeaderOptions(args.header);
  const calibrate = parseRuns(args.calibrate);
  if (args.content !== undefined && args.content !== 'fail' && args.content !== 'warn')
    throw new CassetteError(
      'MCPC_USAGE',
      `--content takes fail or warn, got "${String(args.content)}": what a changed output does (fail: exit 1, the default)`,
    );
  const progress = { isTTY: err.isTTY, env, quiet: Boolean(args.quiet), ...(args.progress === false ? { enabled: false } : {}) };
  let bar: ProgressBar | undefined;
  let decided = false;
  let result;
  await settleBeforeRead(typeof args.cassette === 'string' ? [args.cassette] : args.cassette);
  try {
    result = await replayCassette(args.cassette, {
      ...(args.url !== undefined ? { url: args.url } : { command: args.command }),
      ignore: args.ignore,
      ...(args.timeout !== undefined ? { timeoutMs: args.timeout } : {}),
      ...(args.config !== undefined ? { config: args.config } : {}),
      ...(Object.keys(headers).length ? { headers } : {}),
      ...(args.update ? { update: true, redactHeaders: args.redactHeader ?? [] } : {}),
      ...(calibrate !== undefined ? { calibrate } : {}),
      ...(args.reset !== undefined ? { reset: args.reset } : {}),
      ...(args.force ? { force: true } : {}),
      ...(args.content !== undefined ? { content: args.content } : {}),
      ...(io.judgeSession ? { judgeSession: io.judgeSession } : {}),
      onSessionStart: (index, total, session) => {
        if (!decided) {
          decided = true;
          if (shouldShowProgress({ ...progress, sessions: total })) bar = new ProgressBar(err, total);
        }
        bar?.start(index, session);
      },
      onSession: (session) => bar?.done(session),
    });
  } finally {
    bar?.finish();
  }
  // A report sent to stdout (FILE -) has stdout to itself; the console report moves to stderr.
  const consoleOut = reports.some((r) => r.file === '-') ? err : out;
  if (!args.quiet) consoleOut.write(result.calibration ? renderCalibration(result) : renderConsole(result, useColour(consoleOut, env)));
  for (const r of reports) {
    const text = renderReport(r.format, result, args.strict);
    if (isStdout(r.file)) out.write(text);
    else writeReportText(r.file, text);
  }
  return exitCodeFor(result, args.strict);
}

/** The handler of REPLAY_COMMAND (replay-command.ts), loaded when the command runs. */
export const REPLAY_HANDLER: CommandModule['handler'] = async (args, context) =>
  replayCommand(
    {
      cassette: (Array.isArray(args.cassette) ? args.cassette : [args.cassette]).map(String),
      command: (args['--'] ?? []).map(String),
      ...(args.url !== undefined ? { url: String(args.url) } : {}),
      ...(args.timeout !== undefined ? { timeout: Number(args.timeout) } : {}),
      ignore: (args.ignore as unknown[]).map(String),
      report: (args.report as unknown[]).map(String),
      strict: Boolean(args.strict),
      ...(args.config !== undefined ? { config: String(args.config) } : {}),
      header: (args.header as unknown[]).map(String),
      quiet: Boolean(args.quiet),
      update: Boolean(args.update),
      redactHeader: (args['redact-header'] as unknown[]).map(String),
      progress: Boolean(args.progress),
      ...(args.calibrate !== undefined ? { calibrate: String(args.calibrate) } : {}),
      ...(args.reset !== undefined ? { reset: String(args.reset) } : {}),
      ...(args.force ? { force: true } : {}),
      ...(args.content !== undefined ? { content: args.content as 'fail' | 'warn' } : {}),
    },
    judgeFrom(context),
  );

/** The validator the composition root hands the commands (lib/cli-commands.ts CliHooks). */
function judgeFrom(context: unknown): ReplayIo {
  const judge = (context as { judgeSession?: SessionJudge } | undefined)?.judgeSession;
  return judge ? { judgeSession: judge } : {};
}
