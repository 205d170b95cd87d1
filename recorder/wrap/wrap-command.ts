import { wrapConfig, unwrapConfig, type WrapReport } from './wrap.js';

function print(verb: string, path: string, report: WrapReport): void {
  for (const c of report.changed) {
    if (c.command) {
      process.stdout.write(`${verb} ${JSON.stringify(c.name)} (HTTP): it now points at ${c.url}; start the recording proxy with\n  ${c.command.map(shellQuote).join(' ')}\n`);
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
