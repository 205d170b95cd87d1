import { CassetteError } from '../errors.js';
import type { Cassette } from './cassette.js';
import { expandCassettePaths } from './directory.js';
import { loadCassette } from './store.js';

export interface CassetteInput {
  /** One cassette holding the sessions of every file, in the order they started. */
  cassette: Cassette;
  files: string[];
  /** The file, when the input was one file (commands that write back need one). */
  single?: string;
}

/**
 * What `show`, `replay` and `serve` read: one cassette file, several, or a directory of them
 * (`record --cassette-dir`). Several are read as one: their sessions (ids are unique per
 * recording), and their calibrations, merged.
 */
export function loadCassetteInput(paths: string | readonly string[]): CassetteInput {
  const files = expandCassettePaths(typeof paths === 'string' ? [paths] : paths);
  if (files.length === 1) return { cassette: loadCassette(files[0]!), files, single: files[0]! };
  const all = files.map(loadCassette);
  const merged: Cassette = { ...all[0]!, sessions: all.flatMap((c) => c.sessions) };
  merged.sessions.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  const calibrated = all.filter((c) => c.calibration);
  if (calibrated.length > 0) {
    merged.calibration = { ...calibrated[0]!.calibration!, sessions: Object.assign({}, ...calibrated.map((c) => c.calibration!.sessions)) };
  }
  return { cassette: merged, files };
}

/** For a command that writes into its cassette: the one file, or an error naming the fix. */
export function oneCassetteFile(input: CassetteInput, what: string): string {
  if (input.single) return input.single;
  throw new CassetteError(
    'MCPC_USAGE',
    `${what} writes into one cassette file, and ${input.files.length} were given (a directory or several files); name one of them`,
  );
}
