import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { CassetteError } from '../../lib/errors.js';
import type { ParsedOptions } from '../../lib/fast-args.js';
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

import { DIR_OPTIONS } from './dir-option-table.js';

export { DIR_OPTIONS };

export interface DirArgs {
  dir: string;
  /** This recorder's name among the replicas writing the directory (ownership.ts). */
  replica: string;
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
  const replica = parsed.replica === undefined ? hostname() : String(parsed.replica).trim();
  if (!replica) throw new CassetteError('MCPC_USAGE', '--replica needs a name, e.g. --replica "$HOSTNAME" (the default is the host name)');
  const scope = parsed['keep-scope'] === undefined ? 'fleet' : String(parsed['keep-scope']);
  if (scope !== 'fleet' && scope !== 'replica')
    throw new CassetteError('MCPC_USAGE', `--keep-scope must be fleet or replica (got ${JSON.stringify(scope)})`);
  if (scope === 'replica') retention.replica = replica;
  return { dir: resolve(String(parsed['cassette-dir'])), replica, rotate, retention };
}
