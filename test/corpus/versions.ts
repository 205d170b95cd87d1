/**
 * The corpus of published reference-server versions (package.json devDependencies, pinned under
 * aliases; 2026.8.31 is the unaliased package). Consecutive versions really differ: see the
 * ground truth in version-pairs.test.ts.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../helpers/paths.js';

export type CorpusServer = 'everything' | 'filesystem';

export interface CorpusVersion {
  /** Short id used in test titles and cassette names, e.g. `everything@2025.7.29`. */
  id: string;
  server: CorpusServer;
  version: string;
  /** The node_modules directory it is installed in (the package.json alias). */
  module: string;
}

const v = (server: CorpusServer, version: string, module: string): CorpusVersion => ({
  id: `${server}@${version}`,
  server,
  version,
  module,
});

/** Oldest first: each version against the next is one real upgrade. */
export const EVERYTHING: readonly CorpusVersion[] = [
  v('everything', '2025.7.29', 'everything-2025-7-29'),
  v('everything', '2025.11.25', 'everything-2025-11-25'),
  v('everything', '2026.1.26', 'everything-2026-1-26'),
  v('everything', '2026.8.31', '@modelcontextprotocol/server-everything'),
];

export const FILESYSTEM: readonly CorpusVersion[] = [
  v('filesystem', '2025.7.1', 'filesystem-2025-7-1'),
  v('filesystem', '2025.11.25', 'filesystem-2025-11-25'),
  v('filesystem', '2026.7.4', 'filesystem-2026-7-4'),
  v('filesystem', '2026.7.10', 'filesystem-2026-7-10'),
  v('filesystem', '2026.8.31', '@modelcontextprotocol/server-filesystem'),
];

export function entryPoint(version: CorpusVersion): string {
  return join(root, 'node_modules', version.module, 'dist', 'index.js');
}

/** The server's argv after `node`: everything over stdio; filesystem allowed `workspace` only. */
export function serverArgs(version: CorpusVersion, workspace: string): string[] {
  return [entryPoint(version), ...(version.server === 'everything' ? ['stdio'] : [workspace])];
}

/** A tiny valid PNG (1x1, red), so read_media_file has real media to read. */
const PIXEL_PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

/**
 * (Re)creates the filesystem fixture in `dir`: the same files with the same bytes every time.
 * The filesystem tools write, edit and move files, so every recording and every replay starts
 * from this state.
 */
export function resetWorkspace(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'docs', 'guides'), { recursive: true });
  writeFileSync(join(dir, 'notes.txt'), 'line one\nline two\nline three\nline four\n');
  writeFileSync(join(dir, 'docs', 'readme.md'), '# Corpus\n\nA fixture for the replay corpus.\n');
  writeFileSync(join(dir, 'docs', 'guides', 'setup.md'), '# Setup\n\nRun the tests.\n');
  writeFileSync(join(dir, 'pixel.png'), PIXEL_PNG);
}
