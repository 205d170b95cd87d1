/**
 * `view <cassette|dir|replay-report.json...> [--listen 127.0.0.1:PORT] [--open]`: serves the page
 * and prints its URL (with the token) as the first line on stdout, then runs until SIGINT or
 * SIGTERM (exit 0).
 */
import { spawn } from 'node:child_process';
import type { CommandModule } from '../command.js';
import { parseHostPort } from '../listen.js';
import { startViewServer } from './view-server.js';
import { loadViewSource } from './view-source.js';
import { settleBeforeRead } from '../cassette/settle-read.js';

function warnOpen(cmd: string, err: unknown): void {
  process.stderr.write(`--open: could not start ${cmd} (${(err as Error).message}); open the URL yourself\n`);
}

/** Opens `url` in the system's browser: best effort (xdg-open, open, start), never an error. */
export function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  try {
    const child = spawn(cmd, args as string[], { stdio: 'ignore', detached: true });
    child.on('error', (err) => warnOpen(cmd, err));
    child.unref();
  } catch (err) {
    warnOpen(cmd, err);
  }
}

export async function viewCommand(paths: string[], options: { listen: string; open: boolean }): Promise<number> {
  const { host, port } = parseHostPort(options.listen, '--listen');
  await settleBeforeRead(paths);
  const source = loadViewSource(paths);
  const view = await startViewServer(source, { host, port });
  process.stdout.write(view.url + '\n');
  if (options.open) openBrowser(view.url);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await view.close();
  return 0;
}

/** The handler of VIEW_COMMAND (view-command.ts), loaded when the command runs. */
export const VIEW_HANDLER: CommandModule['handler'] = async (args) =>
  viewCommand((Array.isArray(args.input) ? args.input : [args.input]).map(String), {
    listen: String(args.listen ?? '127.0.0.1:0'),
    open: Boolean(args.open),
  });
