import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * The per-user folder where `wrap` puts each server's cassettes by default, as each platform
 * names its place for an application's own data:
 *
 * - Linux and other Unix: `$XDG_DATA_HOME/mcp-cassette`, else `~/.local/share/mcp-cassette`
 *   (the XDG Base Directory specification);
 * - macOS: `~/Library/Application Support/mcp-cassette`;
 * - Windows: `%LOCALAPPDATA%\mcp-cassette`, else `~\AppData\Local\mcp-cassette`.
 *
 * Cassettes go in `cassettes/<server name>/` below it.
 */
export function userDataDir(env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform, home = homedir()): string {
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), 'mcp-cassette');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'mcp-cassette');
  const xdg = env.XDG_DATA_HOME;
  // The specification says a relative XDG_DATA_HOME is invalid and must be ignored.
  return join(xdg && xdg.startsWith('/') ? xdg : join(home, '.local', 'share'), 'mcp-cassette');
}

/** Where `wrap` puts cassettes when no --cassette-dir is given: one folder per server below it. */
export function defaultCassetteDir(): string {
  return join(userDataDir(), 'cassettes');
}

/**
 * The CLI path a host config should hold: the real file behind any symlink (a global install's
 * bin link, a linked checkout), so the entry does not depend on the PATH or the working folder
 * the host starts servers with. `null` and a note when it lies in npx's cache, which npm may
 * clean at any time.
 */
export function stableCliPath(cli: string): { path: string; note?: string } {
  let path = cli;
  try {
    path = realpathSync(cli);
  } catch {
    // not there (a test passing its own path): keep it as given
  }
  if (/[\\/]_npx[\\/]/.test(path))
    return {
      path,
      note: `the host config now points into npx's cache (${path}), which npm may clean; install mcp-cassette (npm install -g mcp-cassette) and run wrap again from the installed command`,
    };
  return { path };
}
