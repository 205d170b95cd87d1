/**
 * One CLI command as data: its name, its help text, its positionals, its options and its handler.
 * Each feature folder exports the modules of its commands (next to the handlers they call); the
 * composition root (cli-commands.ts) lists them and builds the yargs parser from the list, so a
 * new command is one module and one line in that list. Nothing here loads yargs: `record` and
 * `serve` read their option tables with the fast parser (fast-args.ts) before yargs is imported.
 */
import type { OptionType } from './fast-args.js';
import type { CommandHelp } from './cli-help.js';

export interface CommandOption {
  type: OptionType;
  /** Shown in `--help`; an option without one is listed bare. */
  describe?: string;
  alias?: string;
  default?: unknown;
  /** Repeatable, each value kept as given (a string option that collects a list). `type: 'array'`
   * lets yargs turn numeric-looking values into numbers; this does not. */
  array?: boolean;
}

export interface CommandPositional {
  name: string;
  /** Takes one or more values (`<name...>`). */
  variadic?: boolean;
}

/** What a handler gets: the parsed options by their long name (and alias), the positionals by
 * name, `_` for the words yargs did not place, and `--` for the words after a `--`. */
export type CommandArgs = Record<string, unknown> & { _: (string | number)[]; '--'?: unknown[] };

export interface CommandModule<Context = unknown> {
  name: string;
  describe: string;
  /** The usage lines of the command's `--help` (`$0` is the program's name); yargs's own when
   * absent. */
  usage?: string;
  /** Always required, in this order. */
  positionals?: readonly CommandPositional[];
  /** In the order `--help` lists them. */
  options: Readonly<Record<string, CommandOption>>;
  /** Returns the exit status; undefined when the handler has set the process's end itself
   * (`record` ends the way its server ended). The context is what the composition root hands
   * the commands that need it. */
  handler(args: CommandArgs, context: Context): Promise<number | undefined>;
  /** The command may leave stdin open (HTTP mode, or a host that keeps it): it is destroyed once
   * the handler returns, so that it does not keep the process alive. */
  releasesStdin?: boolean;
  /** Examples, exit codes and docs page for `--help`; lib/cli-help.ts holds them for the commands
   * that leave this out. */
  help?: CommandHelp;
}
