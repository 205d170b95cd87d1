import yargs, { type Argv } from 'yargs';
import type { RecordContext } from '../recorder/record-run.js';
import { RECORD_COMMAND } from '../recorder/record-command.js';
import { RECOVER_COMMAND } from '../recorder/recover-command.js';
import { SHOW_COMMAND } from '../recorder/show-command.js';
import { WRAP_COMMAND, UNWRAP_COMMAND } from '../recorder/wrap/wrap-command.js';
import { RULES_COMMAND } from '../validators/rules-command.js';
import { VALIDATE_COMMAND } from '../validators/validate-command.js';
import { REPLAY_COMMAND } from '../replay/replay-command.js';
import { PROBE_COMMAND } from '../validators/probes/probe-command.js';
import { SERVE_COMMAND } from '../replay/serve/run-serve.js';
import { CHECK_COMMAND } from '../check/check-command.js';
import { EXPORT_COMMAND } from './export/export-command.js';
import { IMPORT_COMMAND } from './export/import-command.js';
import { VIEW_COMMAND } from './view/view-command.js';
import type { CommandArgs, CommandModule } from './command.js';
import { packageVersion } from './version.js';
import { CassetteError } from './errors.js';
import { COMMAND_HELP, docsPage, helpEpilogue } from './cli-help.js';

/** What cli.ts hands the commands (only `record` needs it). */
export type CliHooks = RecordContext;

/** Every command, in the order `--help` lists them. A new command is its module and a line here. */
const COMMANDS: readonly CommandModule<CliHooks>[] = [
  RECORD_COMMAND,
  RECOVER_COMMAND,
  SHOW_COMMAND,
  WRAP_COMMAND,
  UNWRAP_COMMAND,
  VALIDATE_COMMAND,
  PROBE_COMMAND,
  REPLAY_COMMAND,
  SERVE_COMMAND,
  CHECK_COMMAND,
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
  if (c.usage !== undefined) y = y.usage(c.usage);
  const help = c.help ?? COMMAND_HELP[c.name];
  if (help) {
    for (const [line, what] of help.examples) y = y.example(line, what);
    // Wide enough that the docs path stays whole (yargs breaks a word longer than a line).
    const epilogue = helpEpilogue(help);
    const longest = Math.max(...epilogue.split('\n').map((l) => (l.startsWith('Docs:') ? l.length + 1 : 0)));
    y = y.epilogue(epilogue).wrap(Math.max(Math.min(y.terminalWidth() || 80, 80), longest));
  }
  for (const p of c.positionals ?? [])
    y = y.positional(p.name, { type: 'string', demandOption: true, ...(p.variadic ? { array: true } : {}) });
  for (const [name, s] of Object.entries(c.options)) {
    y = y.option(name, {
      type: s.type,
      ...(s.describe !== undefined ? { describe: s.describe } : {}),
      ...(s.alias ? { alias: s.alias } : {}),
      ...(s.array ? { array: true } : {}),
      ...(s.default !== undefined ? { default: s.default } : {}),
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

export function buildCli(argv: string[], hooks: CliHooks): Argv {
  let cli = yargs(stdoutValues(optionalRuns(argv)))
    .scriptName('mcp-cassette')
    // Repeatable options take one value each (`--report json=FILE cassette.json` leaves the
    // cassette a positional); repeat the option for more.
    .parserConfiguration({ 'populate--': true, 'greedy-arrays': false })
    .version(packageVersion());
  for (const c of COMMANDS) {
    cli = cli.command(
      commandLine(c),
      c.describe,
      (y) => builder(y, c),
      async (args) => {
        // Handlers return an exit code; only this module and cli.ts turn it into process state.
        const code = await c.handler(args as CommandArgs, hooks);
        if (code !== undefined) process.exitCode = code;
        if (c.releasesStdin) process.stdin.destroy();
      },
    );
  }
  return (
    cli
      // Names the commands in its own order, kept word for word: a new command belongs here too.
      .demandCommand(
        1,
        'Name a command: record, recover, show, validate, replay, serve, probe, check, export, import, view, rules, wrap or unwrap',
      )
      .recommendCommands()
      .example('$0 record -c weather.cassette.json -- node weather-server.js', 'record a stdio server, validating live')
      .example('$0 replay weather.cassette.json -- node weather-server.js', 'replay it against a new build')
      .epilogue(`Each command's --help has its examples and exit codes.\nDocs: ${docsPage('')}`)
      .strict()
      .help()
      .fail((msg, err) => {
        // Throwing stops yargs from running a handler; cli.ts prints the message and exits 2.
        throw err ?? new CassetteError('MCPC_USAGE', `${msg}\nRun \`mcp-cassette --help\` for usage.`);
      })
  );
}
