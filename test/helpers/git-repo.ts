import type { ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './paths.js';
import { tempDir } from './tmp.js';

/**
 * @cyanheads/git-mcp-server 2.15.3 (a real git server on the v1 SDK, bundled) and a repository for
 * it to read, shared by the tests that record it and the one that fuzzes it.
 */
export const gitServer = join(root, 'node_modules', '@cyanheads', 'git-mcp-server', 'dist', 'index.js');

/** A repository with one commit, one staged and one untracked file; git and the server read no
 * user configuration (HOME is the temp dir) and sign nothing. */
export function gitRepo(t: ExecutionContext): { dir: string; env: Record<string, string> } {
  const home = tempDir(t);
  const dir = join(home, 'repo');
  const env = {
    ...(process.env as Record<string, string>),
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'Ada',
    GIT_AUTHOR_EMAIL: 'ada@example.test',
    GIT_COMMITTER_NAME: 'Ada',
    GIT_COMMITTER_EMAIL: 'ada@example.test',
    GIT_SIGN_COMMITS: 'false',
    MCP_LOG_LEVEL: 'error',
    // ava sets NODE_ENV=test, in which the server logs nothing; run it as users do.
    NODE_ENV: 'development',
  };
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
  execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'init'], { cwd: dir, env });
  writeFileSync(join(dir, 'a.txt'), 'a\n');
  execFileSync('git', ['add', 'a.txt'], { cwd: dir, env });
  writeFileSync(join(dir, 'b.txt'), 'b\n');
  return { dir, env };
}
