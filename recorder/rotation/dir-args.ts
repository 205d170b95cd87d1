import { resolve } from 'node:path';
import { CassetteError } from '../../lib/errors.js';
import type { OptionSpec, ParsedOptions } from '../../lib/fast-args.js';
import { parseBytes, parseCount, parseDuration } from '../../lib/units.js';
import type { RetentionPolicy } from './retention.js';

/** The options of `record` for a directory of cassettes (rotation and retention). */
export interface RotationPolicy {
  /** Close the file once it holds this many bytes. */
  bytes?: number;
  /** Close the file this long after it was opened. */
  intervalMs?: number;
  /** Close the file before the session after this many begins (HTTP: Mcp-Session-Id values and
   * stateless exchanges). */
  sessions?: number;
}

export const DIR_OPTIONS: Record<string, OptionSpec> = {
  'cassette-dir': {
    type: 'string',
    describe: 'Record into a series of cassettes in this directory instead of one file (each readable as soon as it is closed)',
  },
  'rotate-size': {
    type: 'string',
    describe: 'With --cassette-dir: start a new cassette once the current one holds this much (10MB, 512KiB)',
  },
  'rotate-interval': { type: 'string', describe: 'With --cassette-dir: start a new cassette this often (30m, 1h, 1d)' },
  'rotate-sessions': { type: 'string', describe: 'With --cassette-dir: at most this many sessions begin in one cassette' },
  'keep-files': { type: 'string', describe: 'With --cassette-dir: keep at most this many closed cassettes, deleting the oldest' },
  'keep-age': { type: 'string', describe: 'With --cassette-dir: delete closed cassettes older than this (7d, 12h)' },
  'keep-bytes': {
    type: 'string',
    describe: 'With --cassette-dir: keep the closed cassettes within this total size, deleting the oldest (1GB)',
  },
};

export interface DirArgs {
  dir: string;
  rotate: RotationPolicy;
  retention: RetentionPolicy;
}

/** Reads the directory options; undefined without --cassette-dir (and then none of the others
 * may be given). */
export function dirArgsFrom(parsed: ParsedOptions): DirArgs | undefined {
  const given = Object.keys(DIR_OPTIONS).filter((k) => k !== 'cassette-dir' && parsed[k] !== undefined);
  if (parsed['cassette-dir'] === undefined) {
    if (given.length > 0)
      throw new CassetteError(
        'MCPC_USAGE',
        `--${given[0]} needs --cassette-dir <dir>: rotation and retention work on a directory of cassettes`,
      );
    return undefined;
  }
  if (parsed.cassette !== undefined)
    throw new CassetteError(
      'MCPC_USAGE',
      'give either --cassette <file> (one cassette) or --cassette-dir <dir> (a series of cassettes), not both',
    );
  if (parsed.overwrite === true)
    throw new CassetteError('MCPC_USAGE', '--overwrite works on one --cassette file; a --cassette-dir only ever gets new cassettes');
  const rotate: RotationPolicy = {};
  if (parsed['rotate-size'] !== undefined) rotate.bytes = parseBytes(parsed['rotate-size'], '--rotate-size');
  if (parsed['rotate-interval'] !== undefined) rotate.intervalMs = parseDuration(parsed['rotate-interval'], '--rotate-interval');
  if (parsed['rotate-sessions'] !== undefined) rotate.sessions = parseCount(parsed['rotate-sessions'], '--rotate-sessions');
  const retention: RetentionPolicy = {};
  if (parsed['keep-files'] !== undefined) retention.files = parseCount(parsed['keep-files'], '--keep-files');
  if (parsed['keep-age'] !== undefined) retention.ageMs = parseDuration(parsed['keep-age'], '--keep-age');
  if (parsed['keep-bytes'] !== undefined) retention.bytes = parseBytes(parsed['keep-bytes'], '--keep-bytes');
  return { dir: resolve(String(parsed['cassette-dir'])), rotate, retention };
}
