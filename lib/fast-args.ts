/**
 * A minimal option parser for the two commands that must start fast: `record -- <server>` and
 * `serve <cassette>` (lib/cli-main.ts). yargs costs about 80 ms to import here, and a host's
 * client may give the server only a second to answer its first message, so each parses its small,
 * fixed option set with this and only falls back to yargs (for help and error messages) when it
 * meets something it does not know.
 * Options end at `--` or at the first argument that is not an option; the rest is returned in
 * `'--'` untouched.
 */
export type OptionType = 'string' | 'boolean' | 'number' | 'array';

export interface OptionSpec {
  type: OptionType;
  alias?: string;
  describe: string;
  default?: unknown;
}

export type ParsedOptions = Record<string, unknown> & { '--': string[] };

export function parseFast(argv: readonly string[], spec: Record<string, OptionSpec>): ParsedOptions | undefined {
  const byName = new Map<string, [string, OptionSpec]>();
  for (const [name, s] of Object.entries(spec)) {
    byName.set(`--${name}`, [name, s]);
    if (s.alias) byName.set(s.alias.length === 1 ? `-${s.alias}` : `--${s.alias}`, [name, s]);
  }
  const out: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(spec)) {
    if (s.default !== undefined) out[name] = s.default;
    else if (s.type === 'array') out[name] = [];
    else if (s.type === 'boolean') out[name] = false;
  }
  let i = 0;
  let rest: string[] = [];
  for (; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest = argv.slice(i + 1);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      // The first argument that is not an option starts the command (as with env, sudo,
      // timeout): some hosts and tools drop a `--` separator before handing the argv on.
      rest = argv.slice(i);
      break;
    }
    const eq = arg.indexOf('=');
    const key = eq > 0 ? arg.slice(0, eq) : arg;
    const negated = key.startsWith('--no-') ? byName.get(`--${key.slice(5)}`) : undefined;
    if (negated && negated[1].type === 'boolean' && eq < 0) {
      out[negated[0]] = false;
      continue;
    }
    const entry = byName.get(key);
    if (!entry) return undefined;
    const [name, s] = entry;
    let value: string | undefined = eq > 0 ? arg.slice(eq + 1) : undefined;
    if (s.type === 'boolean') {
      if (value !== undefined && value !== 'true' && value !== 'false') return undefined;
      out[name] = value !== 'false';
      continue;
    }
    if (value === undefined) {
      value = argv[++i];
      if (value === undefined || value === '--') return undefined;
    }
    if (s.type === 'number') {
      const n = Number(value);
      if (!Number.isFinite(n)) return undefined;
      out[name] = n;
    } else if (s.type === 'array') {
      (out[name] as string[]).push(value);
    } else {
      out[name] = value;
    }
  }
  return { ...out, '--': rest };
}
