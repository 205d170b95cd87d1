import yargs, { type Argv } from 'yargs';
import type { RecordContext } from '../recorder/record-run.js';
import type { SessionJudge } from '../replay/finding.js';
import { RECORD_COMMAND } from '../recorder/record-command.js';
import { RECOVER_COMMAND } from '../recorder/recover-command.js';
import { SHOW_COMMAND } from '../recorder/show-command.js';
import { WRAP_COMMAND, UNWRAP_COMMAND } from '../recorder/wrap/wrap-command.js';
import { RULES_COMMAND } from '../validators/rules-command.js';
import { VALIDATE_COMMAND } from '../validators/validate-command.js';
import { REPLAY_COMMAND } from '../replay/replay-command.js';
import { PROBE_COMMAND } from '../validators/probes/probe-command.js';
import { FUZZ_COMMAND } from '../validators/fuzz/fuzz-command.js';
import { SERVE_COMMAND } from '../replay/serve/serve-command.js';
import { CHECK_COMMAND } from '../check/check-command.js';
import { MERGE_REPORTS_COMMAND } from '../check/merge-reports-command.js';
import { EXPORT_COMMAND } from './export/export-command.js';
import { IMPORT_COMMAND } from './export/import-command.js';
import { VIEW_COMMAND } from './view/view-command.js';
import type { CommandArgs, CommandModule } from './command.js';
import { packageVersion } from './version.js';
import { COMMAND_HELP, helpEpilogue, helpWidth, rootEpilogue } from './cli-help.js';
import { usageError } from './cli-usage.js';

/** What the composition root hands the commands: `record` its live worker and its way to end
 * the process; `replay` the validator, for a fuzz finding's cassette whose finding is a rule. */
export type CliHooks = RecordContext & { judgeSession: SessionJudge };

/** Every command, in the order `--help` lists them. A new command is its module and a line here. */
const COMMANDS: readonly CommandModule<CliHooks>[] = [
  RECORD_COMMAND,
  RECOVER_COMMAND,
  SHOW_COMMAND,
  WRAP_COMMAND,
  UNWRAP_COMMAND,
  VALIDATE_COMMAND,
  PROBE_COMMAND,
  FUZZ_COMMAND,
  REPLAY_COMMAND,
  SERVE_COMMAND,
  CHECK_COMMAND,
  MERGE_REPORTS_COMMAND,
  EXPORT_COMMAND,
  IMPORT_COMMAND,
  VIEW_COMMAND,
  RULES_COMMAND,
];

/** `name <positional> <list...>`, the form yargs reads positionals from. */
function commandLine(c: CommandModule<CliHooks>): string {
  return [c.name, ...(c.positionals ?? []).map((p) => `<${p.name}${p.variadic ? '...' : ''}>`)].join(' ');
}

function builder(y: Argv, c: CommandModule<CliHooks>): Argv {
  // The examples, exit codes and docs line are laid out by runCli, after yargs's part of the help.
  if (c.usage !== undefined) y = y.usage(c.usage);
  for (const p of c.positionals ?? [])
    y = y.positional(p.name, { type: 'string', demandOption: true, ...(p.variadic ? { array: true } : {}) });
  for (const [name, s] of Object.entries(c.options)) {
    y = y.option(name, {
      type: s.type,
      ...(s.describe !== undefined ? { describe: s.describe } : {}),
      ...(s.alias ? { alias: s.alias } : {}),
      ...(s.array ? { array: true } : {}),
      ...(s.default !== undefined ? { default: s.default } : {}),
      // `--timeout` with nothing after it (or another option) is a usage error, not NaN.
      ...(s.type !== 'boolean' ? { requiresArg: true } : {}),
    });
  }
  return y;
}

/** `--calibrate` takes an optional number of runs: alone (followed by the cassette, another
 * option or `--`), it becomes `--calibrate=`, so the next word is not taken for its value. Words
 * after `--` are the server's and are left alone. */
function optionalRuns(argv: string[]): string[] {
  const end = argv.indexOf('--');
  return argv.map((a, i) => (a === '--calibrate' && (end === -1 || i < end) && !/^\d+$/.test(argv[i + 1] ?? '') ? '--calibrate=' : a));
}

/** yargs takes a lone `-` for a positional, so `--output -` (stdout) would lose its value: it is
 * joined to its option, before `--` only. */
function stdoutValues(argv: string[]): string[] {
  const end = argv.indexOf('--');
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((end === -1 || i < end) && ['--output', '-o', '--report', '--summary', '--junit', '--sarif'].includes(a) && argv[i + 1] === '-') {
      out.push(`${a}=-`);
      i++;
    } else out.push(a);
  }
  return out;
}

/** The commands, for tests that check every one (help, docs). */
export const commandList: readonly CommandModule<CliHooks>[] = COMMANDS;

/** What yargs is handed: `argv` with the two rewrites above. */
function prepared(argv: string[]): string[] {
  return stdoutValues(optionalRuns(argv));
}

/** `run: false` parses and checks, and runs no handler (parseCommandLine). */
export function buildCli(argv: string[], hooks: CliHooks, run = true): Argv {
  const words = prepared(argv);
  let cli = yargs()
    .scriptName('mcp-cassette')
    // Its messages are matched (lib/cli-usage.ts) and its help is ours: English whatever LANG says.
    .locale('en')
    // Repeatable options take one value each (`--report json=FILE cassette.json` leaves the
    // cassette a positional); repeat the option for more.
    .parserConfiguration({ 'populate--': true, 'greedy-arrays': false })
    .version(packageVersion())
    .wrap(helpWidth());
  for (const c of COMMANDS) {
    cli = cli.command(
      commandLine(c),
      c.describe,
      (y) => builder(y, c),
      async (args) => {
        if (!run) return;
        // Handlers return an exit code; only this module and cli.ts turn it into process state.
        const code = await c.handler(args as CommandArgs, hooks);
        if (code !== undefined) process.exitCode = code;
        if (c.releasesStdin) process.stdin.destroy();
      },
    );
  }
  return (
    cli
      // The message is not shown (cli-usage.ts names the commands), but yargs needs one.
      .demandCommand(1, 'no command')
      .recommendCommands()
      .strict()
      .help()
      .fail((msg, err) => {
        // Throwing stops yargs from running a handler; cli-main.ts prints the message and exits 2.
        throw err ?? usageError(words, COMMANDS, msg);
      })
  );
}

/** Parses with a callback, which gets what yargs would print instead of yargs printing it. */
async function parse(cli: Argv, argv: string[], done: (parsed: CommandArgs | undefined, output: string) => void): Promise<void> {
  try {
    await cli.parseAsync(prepared(argv), {}, (_err, parsed, output) => done(parsed as CommandArgs | undefined, output));
  } catch (err) {
    // A value missing inside a command (`replay x --timeout`) is thrown by yargs, not failed.
    if ((err as Error)?.name === 'YError') throw usageError(prepared(argv), COMMANDS, (err as Error).message);
    throw err;
  }
}

/**
 * Runs the command line. yargs hands back what it would print (help, the version) instead of
 * printing it, so that the help ends with the command's examples, exit codes and docs page laid
 * out here: yargs would break an example across lines, and a command line is copied, not read.
 */
export async function runCli(argv: string[], hooks: CliHooks): Promise<void> {
  let output = '';
  let help = false;
  await parse(buildCli(argv, hooks), argv, (parsed, text) => {
    output = text;
    help = parsed?.help === true;
  });
  if (!output) return;
  if (help) {
    const width = helpWidth();
    const c = COMMANDS.find((x) => x.name === argv[0]);
    const own = c && (c.help ?? COMMAND_HELP[c.name]);
    output += `\n\n${c ? (own ? helpEpilogue(own, width) : '') : rootEpilogue(width)}`;
  }
  process.stdout.write(`${output.trimEnd()}\n`);
}

/**
 * Parses `argv` exactly as the CLI does and runs nothing: the arguments a handler would get, or
 * the usage error (a CassetteError) the CLI would print. For the tests that put every example of
 * the help and the docs through the parser.
 */
export async function parseCommandLine(argv: string[]): Promise<CommandArgs> {
  let parsed: CommandArgs | undefined;
  await parse(buildCli(argv, {} as CliHooks, false), argv, (args) => {
    parsed = args as CommandArgs;
  });
  return parsed!;
}
