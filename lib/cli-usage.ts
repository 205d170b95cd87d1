/**
 * A command line the parser refused, said in this tool's words: which option is unknown (as it
 * was typed: yargs also names its camelCase twin, `bogus-flag, bogusFlag`), which one lacks its
 * value, which argument is missing or extra, and the command's usage line. One line on stderr;
 * the exit status is 2, as for every usage error (docs/exit-codes.md).
 */
import type { CommandModule, CommandOption } from './command.js';
import { CassetteError } from './errors.js';

const PROGRAM = 'mcp-cassette';

/** What a scan of the words before `--` found wrong. */
interface Scan {
  unknown: string[];
  missing: string[];
}

/** The first usage line of a command (its `usage`, else its name, positionals and options). */
export function usageLine(c: CommandModule<never>): string {
  const own = c.usage?.split('\n')[0];
  if (own) return own.replace(/\$0/g, PROGRAM);
  const positionals = (c.positionals ?? []).map((p) => ` <${p.name}${p.variadic ? '...' : ''}>`).join('');
  return `${PROGRAM} ${c.name}${positionals}${Object.keys(c.options).length > 0 ? ' [options]' : ''}`;
}

const BUILT_IN: CommandOption = { type: 'boolean' };

/** A word that is an option (not a value: `-` is stdout, `-5` a number). */
function isOption(word: string): boolean {
  return word.startsWith('-') && word !== '-' && !/^-\d/.test(word);
}

/**
 * The options of `words` (a command's, before `--`) that the command does not know, and those
 * given without their value. A command without positionals (`record`) takes the first word that
 * is not an option as the start of the server command, as its fast parser does: the rest is not
 * its own.
 */
function scan(words: readonly string[], c: CommandModule<never>): Scan {
  const known = new Map<string, CommandOption>([
    ['help', BUILT_IN],
    ['version', BUILT_IN],
  ]);
  for (const [name, spec] of Object.entries(c.options)) {
    known.set(name, spec);
    known.set(
      name.replace(/-([a-z])/g, (_, l: string) => l.toUpperCase()),
      spec,
    );
    if (spec.alias) known.set(spec.alias, spec);
  }
  const out: Scan = { unknown: [], missing: [] };
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    if (!isOption(word)) {
      if ((c.positionals ?? []).length === 0) break;
      continue;
    }
    const eq = word.indexOf('=');
    const typed = eq === -1 ? word : word.slice(0, eq);
    const key = typed.replace(/^--?/, '');
    const spec = known.get(key);
    if (!spec) {
      if (key.startsWith('no-') && known.get(key.slice(3))?.type === 'boolean') continue;
      if (!out.unknown.includes(typed)) out.unknown.push(typed);
      continue;
    }
    if (spec.type === 'boolean' || eq !== -1) continue;
    const next = words[i + 1];
    if (next === undefined || isOption(next)) out.missing.push(typed);
    else i++;
  }
  return out;
}

function list(words: readonly string[]): string {
  return words.join(', ');
}

/** What is wrong with the words given to command `c`, from our scan first, else from yargs's message. */
function problem(words: readonly string[], c: CommandModule<never>, message: string): string {
  const { unknown, missing } = scan(words, c);
  if (unknown.length > 0) return `unknown option${unknown.length === 1 ? '' : 's'} ${list(unknown)}`;
  if (missing.length > 0) return `${list(missing)} need${missing.length === 1 ? 's' : ''} a value`;
  if (/^Not enough non-option arguments/.test(message)) return `missing ${list((c.positionals ?? []).map((p) => `<${p.name}>`))}`;
  // No unknown option: what yargs calls an unknown argument is a word the command takes no place for.
  const extra = /^Unknown arguments?: (.*)$/.exec(message)?.[1]?.split(', ');
  if (extra) return `unexpected argument${extra.length === 1 ? '' : 's'} ${list(extra)}`;
  return message.charAt(0).toLowerCase() + message.slice(1).replace(/\n\s*/g, ' ');
}

/**
 * The usage error for `argv` (as handed to yargs) that yargs refused with `message`: one line,
 * `mcp-cassette <command>: <what is wrong>. Usage: <usage line>`.
 */
export function usageError(argv: readonly string[], commands: readonly CommandModule<never>[], message: string): CassetteError {
  const end = argv.indexOf('--');
  const words = end === -1 ? argv : argv.slice(0, end);
  const c = commands.find((x) => x.name === words[0]);
  if (c) return new CassetteError('MCPC_ARGUMENTS', `${PROGRAM} ${c.name}: ${problem(words.slice(1), c, message)}. Usage: ${usageLine(c)}`);
  const names = commands.map((x) => x.name).join(', ');
  const first = words[0];
  if (first === undefined || isOption(first)) {
    const unknown = words.filter((w) => isOption(w) && !['--help', '--version'].includes(w));
    return new CassetteError(
      'MCPC_ARGUMENTS',
      `${PROGRAM}: ${unknown.length > 0 ? `unknown option${unknown.length === 1 ? '' : 's'} ${list(unknown)}; ` : ''}name a command first: ${names}. Usage: ${PROGRAM} <command> [options] (each command's --help has its options)`,
    );
  }
  const guess = /Did you mean (\S+)\?/.exec(message)?.[1];
  return new CassetteError(
    'MCPC_ARGUMENTS',
    `${PROGRAM}: unknown command ${first}.${guess ? ` Did you mean ${guess}?` : ''} The commands: ${names}`,
  );
}
