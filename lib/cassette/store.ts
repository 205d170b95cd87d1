import { mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Low, type Adapter } from 'lowdb';
import lockfile from 'proper-lockfile';
import { ioReason, CassetteError, isCassetteError } from '../errors.js';
import { shellQuote } from '../shell-quote.js';
import { CASSETTE_MINOR_VERSION, CASSETTE_VERSION, emptyCassette, type Cassette, type RecordedSession } from './cassette.js';
import { migrate } from './migrate.js';
import { markTooDeep } from './too-deep.js';
import { cassetteProblems, newerMinor } from './validate.js';
import { writeCassetteFile } from './write.js';

/**
 * Parses and checks cassette text; every failure names the file and the problem. `light` leaves
 * out the schema check, for the one writer that knows the file already: a recorder adding its
 * session at exit (lib/cassette/settle.ts), which checked the file when it started and must not
 * spend a host's shutdown budget compiling the schema. The text must still be JSON, a cassette
 * and not too new; what else it holds is left as it was.
 */
export function parseCassette(path: string, text: string, light = false): Cassette {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new CassetteError(
      'MCPC_CASSETTE_INVALID',
      `cassette ${path} is not valid JSON (${(err as Error).message}); fix or move the file, nothing was changed`,
      { cause: err },
    );
  }
  const migrated = migrate(path, value) as Partial<Cassette> | null;
  const problems = light
    ? migrated?.format === emptyCassette().format && Array.isArray(migrated.sessions)
      ? []
      : ['it is not a cassette']
    : cassetteProblems(migrated);
  if (problems.length > 0) {
    throw new CassetteError(
      'MCPC_CASSETTE_INVALID',
      `cassette ${path} is not a valid mcp-cassette file: ${problems.slice(0, 3).join('; ')}; fix or move the file, nothing was changed`,
    );
  }
  if (!light) noteNewerMinor(path, migrated);
  return markTooDeep(migrated as Cassette, text);
}

const noted = new Set<string>();

/** A cassette of a newer minor format is read, and said once per file and process (stderr is
 * never a protocol stream: stdio recorders and `serve` keep it for logs). */
function noteNewerMinor(path: string, cassette: unknown): void {
  const minor = newerMinor(cassette);
  if (minor === undefined || noted.has(path)) return;
  noted.add(path);
  process.stderr.write(
    `mcp-cassette: note: ${path} is cassette format ${CASSETTE_VERSION}.${minor}, newer than this release's ${CASSETTE_VERSION}.${CASSETTE_MINOR_VERSION}: read all the same, and the fields it does not know are kept as they are (upgrade mcp-cassette to use them)\n`,
  );
}

export function loadCassette(path: string): Cassette {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new CassetteError('MCPC_CASSETTE_NOT_FOUND', `cassette ${path} does not exist`, { cause: err });
    }
    throw unreadable(path, err);
  }
  return parseCassette(path, text);
}

function unreadable(path: string, err: unknown): CassetteError {
  return new CassetteError('MCPC_FILE_UNREADABLE', `cassette ${path} cannot be read (${ioReason(err)})`, { cause: err });
}

/** Stable, diff-friendly text: two-space indent and a final newline. Key order is the order in
 * which the recorder builds objects, which is fixed. */
export function stringifyCassette(cassette: Cassette): string {
  return JSON.stringify(cassette, null, 2) + '\n';
}

/**
 * lowdb's file adapter for cassettes: reads and checks the file; writes it atomically through
 * writeCassetteFile, which streams the text instead of building it as one string (lowdb's
 * DataFile does, and a cassette holding a 50 MB message then cost several copies of it).
 */
export class CassetteFile implements Adapter<Cassette> {
  /** `light`: read without the schema check (parseCassette). */
  constructor(
    readonly path: string,
    readonly light = false,
  ) {}

  async read(): Promise<Cassette | null> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw unreadable(this.path, err);
    }
    return parseCassette(this.path, text, this.light);
  }

  async write(data: Cassette): Promise<void> {
    try {
      writeCassetteFile(this.path, data);
    } catch (err) {
      throw new CassetteError('MCPC_FILE_UNWRITABLE', `cassette ${this.path} cannot be written (${ioReason(err)})`, { cause: err });
    }
  }
}

function database(path: string, light = false): Low<Cassette | null> {
  return new Low<Cassette | null>(new CassetteFile(path, light) as Adapter<Cassette | null>, null);
}

export interface AppendOptions {
  /** Drop the sessions already in the file. */
  overwrite?: boolean;
  /** Read the file without the schema check (parseCassette). */
  light?: boolean;
}

/**
 * Adds sessions to a cassette under an exclusive lock, so concurrent recorders (the v2 client's
 * probe process and its real process) never lose each other's sessions. The file is replaced
 * atomically: lowdb only calls CassetteFile.write, and writeCassetteFile (write.ts) writes a
 * temporary file beside it, syncs it and renames it over the cassette; it streams the text
 * rather than use lowdb's DataFile, which builds it as one string. A corrupt file is left untouched.
 */
export async function appendSessions(path: string, sessions: RecordedSession[], options: AppendOptions = {}): Promise<Cassette> {
  return withCassetteLock(path, () => appendLocked(path, sessions, options));
}

/** `appendSessions` for a caller that holds the cassette's lock already (lib/cassette/settle.ts). */
export async function appendLocked(path: string, sessions: RecordedSession[], options: AppendOptions = {}): Promise<Cassette> {
  const db = database(path, options.light);
  await db.read();
  const cassette = options.overwrite || db.data === null ? emptyCassette() : db.data;
  const known = new Set(cassette.sessions.map((s) => s.id));
  for (const session of sessions) {
    if (!known.has(session.id)) cassette.sessions.push(session);
  }
  cassette.sessions.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  db.data = cassette;
  await db.write();
  return cassette;
}

/** A cassette lock not refreshed for this long is stale: its holder was killed holding it, and the
 * next writer takes it over (a holder refreshes it every half of this). */
export const LOCK_STALE_MS = 5_000;

/** `retries`: how many times a lock held by another process is tried again (0: fail at once). */
export async function withCassetteLock<T>(path: string, fn: () => Promise<T>, retries = 100): Promise<T> {
  try {
    mkdirSync(dirname(path), { recursive: true });
  } catch (err) {
    throw folderUnwritable(path, err, 'cannot be created');
  }
  const lock = (tries: number): Promise<() => Promise<void>> =>
    lockfile.lock(path, {
      realpath: false,
      stale: LOCK_STALE_MS,
      retries: { retries: tries, minTimeout: 10, maxTimeout: 250, factor: 1.5 },
    });
  let release: () => Promise<void>;
  try {
    // proper-lockfile retries whatever the error: only a lock held by another process (ELOCKED)
    // is worth waiting for. Any other failure to make the lock (a folder beside the cassette) is
    // the folder's, said at once.
    release = await lock(0).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ELOCKED') throw folderUnwritable(path, err, 'is not writable');
      if (retries === 0) throw err;
      return lock(retries);
    });
  } catch (err) {
    if (isCassetteError(err)) throw err;
    throw new CassetteError(
      'MCPC_CASSETTE_LOCKED',
      `cassette ${path} stayed locked by another mcp-cassette process (${(err as Error).message}); if none is running, remove ${path}.lock`,
      { cause: err },
    );
  }
  try {
    return await fn();
  } finally {
    await release();
  }
}

/** The cassette's folder cannot be created or written (a lock, the cassette itself). */
function folderUnwritable(path: string, err: unknown, what: string): CassetteError {
  const folder = dirname(path);
  const code = (err as NodeJS.ErrnoException).code;
  const fix =
    (code === 'EACCES' || code === 'EPERM') && what === 'is not writable'
      ? `give a path in a folder you can write, or make this one writable (chmod u+w ${shellQuote(folder)})`
      : 'give a path in a folder you can write';
  return new CassetteError(
    'MCPC_FILE_UNWRITABLE',
    `cannot write cassette ${path}: its folder ${folder} ${what} (${ioReason(err)}); ${fix}`,
    { cause: err },
  );
}

/**
 * Drops the sessions with these ids from a cassette, under the same lock as `appendSessions`
 * (`serve --mode all` replaces a cassette this way once a new run has recorded into it). A
 * missing cassette is left missing; the number of sessions removed is returned.
 */
export async function removeSessions(path: string, ids: Iterable<string>): Promise<number> {
  const drop = new Set(ids);
  if (drop.size === 0) return 0;
  return withCassetteLock(path, async () => {
    const db = database(path);
    await db.read();
    if (db.data === null) return 0;
    const before = db.data.sessions.length;
    db.data.sessions = db.data.sessions.filter((s) => !drop.has(s.id));
    const removed = before - db.data.sessions.length;
    if (removed > 0) await db.write();
    return removed;
  });
}
