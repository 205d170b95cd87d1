import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { CassetteError } from '../errors.js';
import { CASSETTE_FORMAT, CASSETTE_VERSION } from './cassette.js';
import { shellQuote } from '../shell-quote.js';

/** Up to this size the cassette is parsed whole (a few milliseconds); above, only its ends are read. */
const PARSE_UP_TO = 4 * 1024 * 1024;
const ENDS = 4096;

/**
 * Before a recording starts (`record --cassette`): the file its session will be added to must be a
 * cassette, or absent. Otherwise the session would run in full and only its cassette write would
 * fail, after the host is gone. Kept light: `record` runs it while its server starts, so a small
 * file is parsed and its format checked, and a large one is judged by its ends (JSON starts with
 * `{` and ends with `}`); the full check, against the schema, is the write's.
 */
export function checkCassetteTarget(path: string): void {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return; // absent, or its folder is unusable: opening the journal beside it says which
  }
  try {
    const st = fstatSync(fd);
    if (st.isDirectory())
      throw new CassetteError(
        'MCPC_USAGE',
        `--cassette ${path} is a folder; give a file path (x.cassette.json), or --cassette-dir ${shellQuote(path)} to record a series of cassettes into it; nothing was recorded`,
      );
    const size = st.size;
    if (size === 0) throw refuse(path, 'it is empty');
    if (size <= PARSE_UP_TO) {
      const text = read(fd, 0, size).toString('utf8');
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (err) {
        throw refuse(path, `it is not valid JSON (${(err as Error).message})`);
      }
      const d = doc as { format?: unknown; version?: unknown; sessions?: unknown } | null;
      if (d === null || typeof d !== 'object' || d.format !== CASSETTE_FORMAT)
        throw refuse(path, `it is not an mcp-cassette file (no "format": "${CASSETTE_FORMAT}")`);
      // What the session's write at exit needs (parseCassette's light check): a list to add to.
      if (!Array.isArray(d.sessions)) throw refuse(path, `its "sessions" is ${d.sessions === undefined ? 'missing' : 'not a list'}`);
      if (typeof d.version === 'number' && d.version > CASSETTE_VERSION)
        throw new CassetteError(
          'MCPC_CASSETTE_TOO_NEW',
          `cassette ${path} has format version ${d.version}, newer than this mcp-cassette reads (${CASSETTE_VERSION}); upgrade mcp-cassette, or record into another --cassette; nothing was recorded`,
        );
      return;
    }
    const head = read(fd, 0, ENDS).toString('latin1').trimStart();
    const tail = read(fd, size - ENDS, ENDS)
      .toString('latin1')
      .trimEnd();
    if (!head.startsWith('{') || !tail.endsWith('}')) throw refuse(path, 'it is not valid JSON (it does not start with { and end with })');
  } finally {
    closeSync(fd);
  }
}

function read(fd: number, position: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  const n = readSync(fd, buf, 0, length, position);
  return buf.subarray(0, n);
}

function refuse(path: string, why: string): CassetteError {
  return new CassetteError(
    'MCPC_CASSETTE_INVALID',
    `cassette ${path} cannot take a new session: ${why}. Move it aside (mv ${shellQuote(path)} ${shellQuote(`${path}.broken`)}) or record into another --cassette; nothing was recorded`,
  );
}
