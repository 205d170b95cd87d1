import { wrapConfig, unwrapConfig, type WrapReport } from './wrap.js';
import type { CommandModule } from '../../lib/command.js';

function print(verb: string, path: string, report: WrapReport): void {
  for (const c of report.changed) {
    if (c.command) {
      process.stdout.write(
        `${verb} ${JSON.stringify(c.name)} (HTTP): it now points at ${c.url}; start the recording proxy with\n  ${c.command.map(shellQuote).join(' ')}\n`,
      );
    } else {
      process.stdout.write(`${verb} ${JSON.stringify(c.name)}${c.cassette ? ` -> records into ${c.cassette}` : ''}\n`);
    }
  }
  for (const s of report.skipped) process.stdout.write(`left ${JSON.stringify(s.name)} alone: ${s.reason}\n`);
  if (report.changed.length === 0) process.stdout.write(`${path}: nothing to change\n`);
  else if (report.backup) process.stdout.write(`backup of the original: ${report.backup}\n`);
  if (report.changed.length > 0) process.stdout.write('restart the host (or reload its MCP servers) to apply\n');
}

function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

export async function wrapCommand(path: string, options: { servers: string[]; cassetteDir?: string; port?: number }): Promise<number> {
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
    'cassette-dir': { type: 'string', describe: 'Where the cassettes go (default: ~/.mcp-cassette/cassettes)' },
    port: { type: 'number', describe: "Listen port for the first HTTP entry's proxy, counting up for the next (default: free ports)" },
  },
  handler: async (args) =>
    wrapCommand(String(args.config), {
      servers: (args.server as string[] | undefined) ?? [],
      ...(args['cassette-dir'] ? { cassetteDir: String(args['cassette-dir']) } : {}),
      ...(typeof args.port === 'number' ? { port: args.port } : {}),
    }),
};

export const UNWRAP_COMMAND: CommandModule = {
  name: 'unwrap',
  describe: 'Restore the server entries that `wrap` changed, exactly as they were',
  positionals: [{ name: 'config' }],
  options: { server: { type: 'string', array: true, describe: 'Only these server entries (repeatable)' } },
  handler: async (args) => unwrapCommand(String(args.config), { servers: (args.server as string[] | undefined) ?? [] }),
};
