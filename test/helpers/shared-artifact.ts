/**
 * What many test files start from (the replay target's cassettes, the v1 sessionful scenario,
 * the packed tarball), made once per test run instead of once per file: the runner
 * (test/setup/run-tests.mjs) names a folder for the run in MCP_CASSETTE_TEST_SHARED, the first
 * file that needs one makes it there (under a lock, so two files running at once never
 * record it twice), and every file gets its own copy. Without the variable (`npx ava <file>`)
 * the folder is this process's own, so a file run alone records what it needs, as before.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { removeDir } from './tmp.js';

let own: string | undefined;

function sharedDir(): string {
  const given = process.env.MCP_CASSETTE_TEST_SHARED;
  if (given) {
    mkdirSync(given, { recursive: true });
    return given;
  }
  if (!own) {
    own = mkdtempSync(join(tmpdir(), 'mcp-cassette-shared-'));
    const dir = own;
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  return own;
}

/** How long a file waits for another to finish a recording before it calls that a failure. */
const WAIT_MS = 180_000;

/**
 * Copies the shared file (or folder) `key` to `dest`, making it first with `make(path)` when no
 * test file of this run has yet. One that failed is not kept: the next file tries again, and the failure is
 * reported by the file that saw it.
 */
export async function sharedArtifact(key: string, dest: string, make: (path: string) => Promise<void>): Promise<void> {
  const dir = sharedDir();
  const done = join(dir, key);
  const lock = join(dir, `${key}.lock`);
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (existsSync(done)) {
      mkdirSync(dirname(dest), { recursive: true });
      cpSync(done, dest, { recursive: true });
      return;
    }
    let mine = false;
    try {
      mkdirSync(lock);
      mine = true;
    } catch {
      // another file is recording it: wait for it below
    }
    if (mine) {
      const work = mkdtempSync(join(dir, `${key}-`));
      try {
        const path = join(work, basename(dest));
        await make(path);
        renameSync(path, done);
      } finally {
        await removeDir(work); // once the recorder's finisher is done in it
        rmSync(lock, { recursive: true, force: true });
      }
      continue;
    }
    if (Date.now() > deadline) {
      const since = existsSync(lock) ? ` (its lock is ${Math.round((Date.now() - statSync(lock).mtimeMs) / 1000)} s old)` : '';
      throw new Error(`the shared file ${key} in ${dir} was not finished by another test file within ${WAIT_MS} ms${since}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
