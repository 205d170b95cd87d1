import { wrapConfig, unwrapConfig, type WrapReport } from './wrap.js';
import type { CommandModule } from '../../lib/command.js';
import { dirArgsFrom } from '../rotation/dir-args.js';
import { PASSED_ON } from './wrap-command.js';
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

/** The PASSED_ON options given, checked now (a bad value fails here, not at the host's launch). */
function recordOptionsFrom(args: Record<string, unknown>): string[] {
  const given = Object.keys(PASSED_ON).filter((k) => args[k] !== undefined);
  dirArgsFrom({ 'cassette-dir': '.', ...Object.fromEntries(given.map((k) => [k, args[k]])), '--': [] });
  return given.flatMap((k) => [`--${k}`, String(args[k])]);
}

export async function wrapCommand(
  path: string,
  options: { servers: string[]; http?: boolean; cassetteDir?: string; port?: number; recordOptions?: string[] },
): Promise<number> {
  print('wrapped', path, await wrapConfig(path, options));
  return 0;
}

export async function unwrapCommand(path: string, options: { servers: string[] }): Promise<number> {
  print('unwrapped', path, await unwrapConfig(path, options));
  return 0;
}

/** The handler of WRAP_COMMAND (wrap-command.ts), loaded when the command runs. */
export const WRAP_HANDLER: CommandModule['handler'] = async (args) =>
  wrapCommand(String(args.config), {
    servers: (args.server as string[] | undefined) ?? [],
    http: Boolean(args.http),
    ...(args['cassette-dir'] ? { cassetteDir: String(args['cassette-dir']) } : {}),
    ...(typeof args.port === 'number' ? { port: args.port } : {}),
    recordOptions: recordOptionsFrom(args),
  });

/** The handler of UNWRAP_COMMAND (wrap-command.ts), loaded when the command runs. */
export const UNWRAP_HANDLER: CommandModule['handler'] = async (args) =>
  unwrapCommand(String(args.config), { servers: (args.server as string[] | undefined) ?? [] });
