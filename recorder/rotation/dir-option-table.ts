import type { OptionSpec } from '../../lib/fast-args.js';

/** The options of `record` for a directory of cassettes (rotation and retention). Data only (their
 * checks are in dir-args.ts): the bin reads the table before it spawns. */
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
  'keep-scope': {
    type: 'string',
    describe:
      "With --cassette-dir shared by many recorders: whose cassettes --keep-* counts and deletes, the whole fleet's (fleet, the default) or this replica's only (replica)",
  },
  replica: {
    type: 'string',
    describe:
      "With --cassette-dir: this recorder's name among the replicas writing one directory (default: the host name), in its cassettes' names and for --keep-scope replica",
  },
};
