import { readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CassetteError, ioReason } from '../errors.js';
import { settleJournals, type SettleOptions, type SettleResult } from './settle.js';

/** What a cassette's file name ends with; a directory of cassettes holds files named so. */
export const CASSETTE_SUFFIX = '.cassette.json';

export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** The cassettes of a directory (`*.cassette.json`, not hidden), sorted by name: the names that
 * `record --cassette-dir` gives sort by time. */
export function cassettesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    throw new CassetteError('MCPC_FILE_UNREADABLE', `directory ${dir} cannot be read (${ioReason(err)})`, { cause: err });
  }
  return names
    .filter((n) => n.endsWith(CASSETTE_SUFFIX) && !n.startsWith('.'))
    .sort()
    .map((n) => join(dir, n));
}

/**
 * The cassette files named on a command line: a file stands for itself, a directory for the
 * cassettes in it. A directory without any is an error that says so (a typo, or nothing closed yet).
 */
export function expandCassettePaths(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const p of paths) {
    const path = resolve(p);
    if (!isDirectory(path)) {
      out.push(path);
      continue;
    }
    const found = cassettesIn(path);
    if (found.length === 0)
      throw new CassetteError(
        'MCPC_CASSETTE_NOT_FOUND',
        `directory ${path} holds no cassettes (*${CASSETTE_SUFFIX}); a recorder writes one there each time it closes a file (see \`record --cassette-dir\`)`,
      );
    out.push(...found);
  }
  return out;
}

/** The cassette a journal of this directory belongs to: `.<cassette>.<session id>.journal`. */
function journalOwner(name: string): string | undefined {
  const m = /^\.(.+\.cassette\.json)\.[^.]+\.journal$/.exec(name);
  return m?.[1];
}

/** Journals in `dir` left by recorders that died, grouped by the cassette they belong to. */
export function orphanCassettes(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const owners = new Set<string>();
  for (const n of names) {
    const owner = journalOwner(n);
    if (owner) owners.add(owner);
  }
  return [...owners].sort().map((n) => join(dir, n));
}

/** Every journal of the directory whose recorder is gone, each into its own cassette
 * (`recover <dir>`, readers of a directory, the finisher of `record --cassette-dir`). */
export async function settleDirectory(dir: string, options: SettleOptions = {}): Promise<SettleResult[]> {
  const out: SettleResult[] = [];
  for (const cassette of orphanCassettes(dir)) out.push(await settleJournals(cassette, options));
  return out;
}
