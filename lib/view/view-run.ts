/**
 * `view <cassette|dir|replay-report.json...> [--listen 127.0.0.1:PORT] [--open]`: serves the page
 * and prints its URL (with the token) as the first line on stdout, then runs until SIGINT or
 * SIGTERM (exit 0).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CommandModule } from '../command.js';
import { parseHostPort } from '../listen.js';
import { startViewServer } from './view-server.js';
import { loadViewSource } from './view-source.js';
import { settleBeforeRead } from '../cassette/settle-read.js';

/** The page could not be opened: its URL (also on stdout) and why, so it can be opened by hand. */
function cannotOpen(url: string, why: string): void {
  process.stderr.write(`mcp-cassette view: --open: the browser could not be opened (${why}); open ${url} yourself\n`);
}

/**
 * Opens `url` in the system's browser (xdg-open, open, start): best effort, never an error, but a
 * failure is said with its reason. The opener's stderr goes to a file, not a pipe: a browser it
 * starts inherits it and may write long after this process is gone.
 */
export function openBrowser(url: string): void {
  const [cmd, args] =
    process.platform === 'darwin'
      ? ['open', [url]]
      : process.platform === 'win32'
        ? ['cmd', ['/c', 'start', '', url]]
        : ['xdg-open', [url]];
  const log = join(tmpdir(), `mcp-cassette-open-${process.pid}-${Date.now()}.log`);
  let fd: number | undefined;
  try {
    fd = openSync(log, 'w', 0o600);
  } catch {
    // no log: the reason is the exit status alone
  }
  const said = (): string => {
    if (fd === undefined) return '';
    try {
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      unlinkSync(log);
      return lines[lines.length - 1]!.trim().slice(0, 300);
    } catch {
      return '';
    }
  };
  try {
    const child = spawn(cmd, args as string[], { stdio: ['ignore', 'ignore', fd ?? 'ignore'], detached: true });
    // 'exit' may follow 'error' (a command not found): one line, whichever comes first.
    let told = false;
    const tell = (why: string | undefined): void => {
      const text = said();
      if (told || why === undefined) return;
      told = true;
      cannotOpen(url, `${why}${text ? `: ${text}` : ''}`);
    };
    child.on('error', (err) => tell(`${cmd} could not be started: ${err.message}`));
    child.on('exit', (code, signal) =>
      tell(code === 0 ? undefined : `${cmd} ${code !== null ? `exited with status ${code}` : `was killed by ${signal}`}`),
    );
    child.unref();
  } catch (err) {
    said();
    cannotOpen(url, `${cmd} could not be started: ${(err as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
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
