import { randomBytes } from 'node:crypto';
import { readFileSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { JournalHeader } from '../../lib/cassette/journal.js';
import { readOrCreate } from '../../lib/file-once.js';
import { isObject } from '../../lib/plain-object.js';
import { firstSessionProxy } from './cassette-head.js';
import { ROTATION_NAME } from './journal-file.js';

/**
 * Which cassettes of a directory its recorders wrote: the only ones retention may delete. A
 * person may keep other cassettes there (`weather.cassette.json`, one copied from elsewhere), and
 * retention must never count or delete them. A cassette is ours when both hold:
 *
 * - its name is one `record --cassette-dir` gives (journal-file.ts, `ROTATION_NAME`);
 * - its first session's `proxy.writer` says `record --cassette-dir` wrote it for an owner this
 *   recorder answers for. The owner is the directory's identity, a random id kept in
 *   `.mcp-cassette-dir.json` in the directory (created by the first recorder), so every recorder
 *   of the directory (one after another, `wrap` launching a server many times, or a fleet of
 *   replicas sharing the directory) prunes what any of them wrote, and nothing else.
 *
 * Each session also names the replica that wrote it (`record --replica`, by default the host
 * name): with `--keep-scope replica` a recorder counts and prunes only its own replica's
 * cassettes, and passes over the rest of the fleet's without a word (they are neither a person's
 * nor a stranger's). Everything else is left alone and counted.
 */
export const DIR_IDENTITY_FILE = '.mcp-cassette-dir.json';
export const WRITER = 'record --cassette-dir';

/** What each session of a directory's cassette says of its writer, in `proxy.writer`. */
export interface WriterStamp {
  recorder: typeof WRITER;
  owner: string;
  /** The replica (`record --replica`, the host name by default); absent in earlier versions. */
  replica?: string;
}

interface DirIdentity {
  format: 'mcp-cassette-dir';
  version: 1;
  owner: string;
}

/** The directory's owner id, created with its identity file the first time (race-safe: recorders
 * starting at once agree on one). fs errors are thrown. */
export function ensureDirOwner(dir: string): string {
  const made: DirIdentity = { format: 'mcp-cassette-dir', version: 1, owner: randomBytes(8).toString('hex') };
  const owner = ownerIn(readOrCreate(join(dir, DIR_IDENTITY_FILE), `${JSON.stringify(made)}\n`, 0o644));
  if (!owner) throw new Error(`${join(dir, DIR_IDENTITY_FILE)} is not a cassette directory's identity; move it away and a new one is made`);
  return owner;
}

/** The owners whose cassettes retention in `dir` may delete (none when the directory has no
 * identity yet: then nothing in it was written by a recorder of this version). */
export function ownersOf(dir: string): ReadonlySet<string> {
  try {
    const owner = ownerIn(readFileSync(join(dir, DIR_IDENTITY_FILE), 'utf8'));
    return new Set(owner ? [owner] : []);
  } catch {
    return new Set();
  }
}

function ownerIn(text: string): string | undefined {
  try {
    const id = JSON.parse(text) as Partial<DirIdentity>;
    return id.format === 'mcp-cassette-dir' && typeof id.owner === 'string' && id.owner.length > 0 ? id.owner : undefined;
  } catch {
    return undefined;
  }
}

/** A journal header whose sessions will say that this directory's recorder wrote them. */
export function stampWriter(header: JournalHeader, owner: string, replica?: string): JournalHeader {
  const proxy = isObject(header.session.proxy) ? header.session.proxy : {};
  const writer: WriterStamp = { recorder: WRITER, owner, ...(replica !== undefined ? { replica } : {}) };
  return { ...header, session: { ...header.session, proxy: { ...proxy, writer } } };
}

/** The owner stamped in each file already read, by path: a file is read again only once it
 * changed (undefined: no stamp of ours). */
const known = new Map<string, { mtimeMs: number; size: number; owner: string | undefined; replica: string | undefined }>();

/**
 * Whose the cassette at `path` is (see above): `ours`, retention may count and delete it;
 * `replica`, another replica's of the same fleet, passed over under `--keep-scope replica`;
 * `foreign`, not the directory's recorders', left alone and counted.
 */
export function writerOf(path: string, st: Stats, owners: ReadonlySet<string>, replica?: string): 'ours' | 'replica' | 'foreign' {
  if (owners.size === 0 || !ROTATION_NAME.test(basename(path))) return 'foreign';
  let seen = known.get(path);
  if (!seen || seen.mtimeMs !== st.mtimeMs || seen.size !== st.size) {
    const proxy = firstSessionProxy(path);
    const writer = isObject(proxy) && isObject(proxy.writer) ? proxy.writer : undefined;
    const ours = writer?.recorder === WRITER && typeof writer.owner === 'string';
    const owner = ours ? (writer.owner as string) : undefined;
    const by = ours && typeof writer.replica === 'string' ? writer.replica : undefined;
    known.set(path, (seen = { mtimeMs: st.mtimeMs, size: st.size, owner, replica: by }));
  }
  if (seen.owner === undefined || !owners.has(seen.owner)) return 'foreign';
  return replica === undefined || seen.replica === replica ? 'ours' : 'replica';
}

/** Drops what was read of files of `dir` that are gone (the cache stays the directory's size). */
export function forget(dir: string, present: ReadonlySet<string>): void {
  for (const path of known.keys()) if (dirname(path) === dir && !present.has(path)) known.delete(path);
}
