import { wrapConfig, unwrapConfig, type WrapReport } from './wrap.js';
import type { CommandModule } from '../../lib/command.js';
import { DIR_OPTIONS, dirArgsFrom } from '../rotation/dir-args.js';
import { shellQuote } from '../../lib/shell-quote.js';

function print(verb: string, path: string, report: WrapReport): void {
  for (const c of report.changed) {
    if (c.command) {
      process.stdout.write(
        `${verb} ${JSON.stringify(c.name)} (HTTP): it now points at ${c.url}; start the recording proxy with\n  ${c.command.map(shellQuote).join(' ')}\n`,
      );
    } else {
      process.stdout.write(
        `${verb} ${JSON.stringify(c.name)}${c.cassette ? ` -> records into ${c.cassette}/ (a cassette per launch)` : ''}\n`,
      );
    }
  }
  for (const s of report.skipped) process.stdout.write(`left ${JSON.stringify(s.name)} alone: ${s.reason}\n`);
  if (report.changed.length === 0) process.stdout.write(`${path}: nothing to change\n`);
  else if (report.backup) process.stdout.write(`backup of the original: ${report.backup}\n`);
  if (report.changed.length > 0) process.stdout.write('restart the host (or reload its MCP servers) to apply\n');
  if (report.note) process.stderr.write(`mcp-cassette: note: ${report.note}\n`);
}

/** Rotation and retention options, passed on to every wrapped entry's `record`. */
const PASSED_ON = Object.fromEntries(
  Object.entries(DIR_OPTIONS)
    .filter(([k]) => k !== 'cassette-dir')
    .map(([k, o]) => [
      k,
      { ...o, describe: `${o.describe.replace(/^With --cassette-dir: /, '')} (passed on to each wrapped server's record)` },
    ]),
);

/** The PASSED_ON options given, checked now (a bad value fails here, not at the host's launch). */
function recordOptionsFrom(args: Record<string, unknown>): string[] {
  const given = Object.keys(PASSED_ON).filter((k) => args[k] !== undefined);
  dirArgsFrom({ 'cassette-dir': '.', ...Object.fromEntries(given.map((k) => [k, args[k]])), '--': [] });
  return given.flatMap((k) => [`--${k}`, String(args[k])]);
}

export async function wrapCommand(
  path: string,
  options: { servers: string[]; cassetteDir?: string; port?: number; recordOptions?: string[] },
): Promise<number> {
  print('wrapped', path, await wrapConfig(path, options));
  return 0;
}

export async function unwrapCommand(path: string, options: { servers: string[] }): Promise<number> {
  print('unwrapped', path, await unwrapConfig(path, options));
  return 0;
}

export const WRAP_COMMAND: CommandModule = {
  name: 'wrap',
  describe:
    'Rewrite a host config (Claude Desktop, VS Code, Cursor) so its servers run through `record` (stdio) or point at a recording proxy (HTTP)',
  positionals: [{ name: 'config' }],
  options: {
    server: { type: 'string', array: true, describe: 'Only these server entries (repeatable); default: every stdio entry' },
    'cassette-dir': {
      type: 'string',
      describe:
        'Each server records into <dir>/<server name>/, a cassette per launch (default: the per-user data folder, ~/.local/share/mcp-cassette/cassettes on Linux)',
    },
    ...PASSED_ON,
    port: { type: 'number', describe: "Listen port for the first HTTP entry's proxy, counting up for the next (default: free ports)" },
  },
  handler: async (args) =>
    wrapCommand(String(args.config), {
      servers: (args.server as string[] | undefined) ?? [],
      ...(args['cassette-dir'] ? { cassetteDir: String(args['cassette-dir']) } : {}),
      ...(typeof args.port === 'number' ? { port: args.port } : {}),
      recordOptions: recordOptionsFrom(args),
    }),
};

export const UNWRAP_COMMAND: CommandModule = {
  name: 'unwrap',
  describe: 'Restore the server entries that `wrap` changed, exactly as they were',
  positionals: [{ name: 'config' }],
  options: { server: { type: 'string', array: true, describe: 'Only these server entries (repeatable)' } },
  handler: async (args) => unwrapCommand(String(args.config), { servers: (args.server as string[] | undefined) ?? [] }),
};
