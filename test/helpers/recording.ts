import { spawnSync } from 'node:child_process';
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync, statSync, watch } from 'node:fs';
import { join } from 'node:path';
import type { ExecutionContext } from 'ava';
import type { Cassette, RecordedSession } from '../../lib/cassette/cassette.js';
import { LOCK_STALE_MS, loadCassette } from '../../lib/cassette/store.js';
import { listJournals } from '../../lib/cassette/settle.js';
import { messageBytes } from '../../lib/message.js';
import { processesNaming, spawnTracked } from './proc.js';
import { cli, node } from './paths.js';

export function recordArgs(
  cassette: string,
  server: string[],
  extra: string[] = [],
  into: '--cassette' | '--cassette-dir' = '--cassette',
): string[] {
  return [cli, 'record', into, cassette, '--log-level', 'warn', ...extra, '--', ...server];
}

/** Starts `mcp-cassette record` as a host would: our process is the host, its pipes the host's. */
export function startRecorder(
  t: ExecutionContext,
  cassette: string,
  server: string[],
  options: { extra?: string[]; env?: NodeJS.ProcessEnv; cwd?: string; into?: '--cassette' | '--cassette-dir' } = {},
) {
  return spawnTracked(t, node, recordArgs(cassette, server, options.extra, options.into), {
    ...(options.env ? { env: options.env } : {}),
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
}

export function line(obj: unknown): string {
  return JSON.stringify(obj) + '\n';
}

/** The exact bytes a recorded session holds for one channel, newlines restored. */
export function channelBytes(session: RecordedSession, channel: 'stdin' | 'stdout' | 'stderr'): Buffer {
  return Buffer.concat(
    session.messages
      .filter((m) => m.channel === channel)
      .flatMap((m) => [messageBytes(m), m.unterminated ? Buffer.alloc(0) : Buffer.from('\n')]),
  );
}

/**
 * How long a test waits for a recorder's finisher: a guard against a finisher that never ends,
 * not a performance bound. The finisher runs at low priority, and on a busy machine writing a
 * 100 MB cassette at low priority takes many seconds; the guard stays under ava's 120 s.
 */
const FINISHER_WAIT_MS = 90_000;

/**
 * The cassette once the recorders that wrote into it are done: a stdio recorder under a host
 * exits with its server and leaves the cassette write to its background finisher, so this waits
 * (synchronously, bounded) until no journal is left beside the cassette, then reads it. A journal
 * that stays (a killed recorder, a finisher that failed) fails the read with its name: the test
 * then means to settle it some other way (a reader command, `recover`).
 */
export function readCassette(path: string, timeoutMs = FINISHER_WAIT_MS): Cassette {
  waitForFinishers(path, timeoutMs);
  return loadCassette(path);
}

/**
 * A journal whose recorder is gone (SIGKILLed: a host that gave it too little time, as the v2
 * SDK does to the probe process it spawns, one second after SIGTERM) stays beside the cassette
 * until a reader settles it, as every reader command does first. The tests wait like a user
 * would read: when every journal left has no recorder alive and no writer holds the lock, one
 * reader (`show`) settles them. A journal whose recorder exited is not an orphan while a finisher
 * that names it on its command line runs: the finisher settles it.
 */
function settleOrphans(cassette: string): boolean {
  const journals = listJournals(cassette);
  if (journals.length === 0 || lockHeld(cassette)) return false;
  if (!journals.every((j) => !recorderAlive(j) && processesNaming(j).length === 0)) return false;
  spawnSync(node, [cli, 'show', cassette], { stdio: 'ignore' });
  return true;
}

/**
 * A writer holds the cassette's lock: the lock exists and was refreshed within LOCK_STALE_MS. A
 * recorder killed while holding it (under load, the v2 SDK's SIGKILL of a probe process one second
 * after SIGTERM can land mid-write) leaves it behind; mcp-cassette's next writer takes such a lock
 * over, and so does the reader that settles the orphans here (once seen, a CI run waited 90 s on
 * one).
 */
function lockHeld(cassette: string): boolean {
  return lockFresh(`${cassette}.lock`);
}

/** A lock refreshed within LOCK_STALE_MS (see lockHeld). */
function lockFresh(lock: string): boolean {
  try {
    return Date.now() - statSync(lock).mtimeMs < LOCK_STALE_MS;
  } catch {
    return false;
  }
}

/**
 * settleOrphans for a `--cassette-dir` directory: when every journal left in it has no recorder
 * alive and no finisher naming it, and no writer holds a lock there, one reader (`show <dir>`)
 * settles them, as a user's first read would. Under load the v2 SDK's SIGKILL of its probe
 * process (one second after SIGTERM) leaves that run's journal behind.
 */
export function settleDirOrphans(dir: string): boolean {
  const names = readdirSync(dir);
  const journals = names.filter((f) => f.endsWith('.journal')).map((f) => join(dir, f));
  if (journals.length === 0 || names.some((f) => f.endsWith('.lock') && lockFresh(join(dir, f)))) return false;
  if (!journals.every((j) => !recorderAlive(j) && processesNaming(j).length === 0)) return false;
  spawnSync(node, [cli, 'show', dir], { stdio: 'ignore' });
  return true;
}

/** The recorder that writes `journal` (its header's pid) is running. */
function recorderAlive(journal: string): boolean {
  const fd = openSync(journal, 'r');
  const head = Buffer.alloc(4096);
  const n = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  const pid = /"pid":(\d+)/.exec(head.subarray(0, n).toString('utf8'))?.[1];
  if (!pid) return true; // its header is not written yet: its recorder has just started
  try {
    process.kill(Number(pid), 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until no journal is left in a `--cassette-dir` directory (its finishers are done). */
export function waitForDirFinishers(dir: string, timeoutMs = FINISHER_WAIT_MS): void {
  const deadline = Date.now() + timeoutMs;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    const left = readdirSync(dir).filter((f) => f.endsWith('.journal') || f.endsWith('.lock'));
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`journals still in ${dir} after ${timeoutMs} ms: ${left.join(', ')}`);
    Atomics.wait(tick, 0, 0, 20);
  }
}

/** Waits until no journal is left beside `cassette` (its recorders' finishers are done). */
export function waitForFinishers(cassette: string, timeoutMs = FINISHER_WAIT_MS): void {
  const deadline = Date.now() + timeoutMs;
  const tick = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    // The journal goes once its sessions are in the cassette; the lock once the writer is done.
    const left = [...listJournals(cassette), ...(lockHeld(cassette) ? [`${cassette}.lock`] : [])];
    if (left.length === 0) return;
    if (settleOrphans(cassette)) continue;
    if (Date.now() > deadline) throw new Error(`journals still beside ${cassette} after ${timeoutMs} ms: ${left.join(', ')}`);
    Atomics.wait(tick, 0, 0, 20);
  }
}

export interface TapPair {
  proxyPid: number;
  clientIn: Buffer;
  clientOut: Buffer;
  serverIn: Buffer;
  serverOut: Buffer;
}

/** Pairs what the client-side and server-side byte taps saw, per proxy process. */
export function tapPairs(dir: string): TapPair[] {
  const read = (d: string, f: string): Buffer => (existsSync(join(dir, d, f)) ? readFileSync(join(dir, d, f)) : Buffer.alloc(0));
  return readdirSync(dir)
    .filter((d) => d.startsWith('client-'))
    .map((d) => {
      const pid = d.slice('client-'.length);
      return {
        proxyPid: Number(pid),
        clientIn: read(d, 'in.bin'),
        clientOut: read(d, 'out.bin'),
        serverIn: read(`server-${pid}`, 'in.bin'),
        serverOut: read(`server-${pid}`, 'out.bin'),
      };
    });
}

/**
 * The transparency check: per proxy process, the client received exactly what the server wrote
 * and the server received exactly what the client wrote; the cassette holds those same bytes,
 * frame by frame, in order.
 */
export function assertTransparent(t: ExecutionContext, tapDir: string, cassette: Cassette): void {
  const pairs = tapPairs(tapDir);
  t.true(pairs.length > 0, 'the byte taps saw at least one proxy process');
  for (const p of pairs) {
    t.true(p.clientIn.length > 0, `client sent bytes through proxy ${p.proxyPid}`);
    t.true(p.serverOut.length > 0, `server answered through proxy ${p.proxyPid}`);
    t.true(p.serverIn.equals(p.clientIn), `proxy ${p.proxyPid}: server received exactly what the client sent`);
    t.true(p.clientOut.equals(p.serverOut), `proxy ${p.proxyPid}: client received exactly what the server wrote`);
    const session = cassette.sessions.find((s) => s.proxy.pid === p.proxyPid);
    t.truthy(session, `a session for proxy ${p.proxyPid} is in the cassette`);
    if (!session) continue;
    t.true(channelBytes(session, 'stdin').equals(p.clientIn), `proxy ${p.proxyPid}: cassette holds every client frame in order`);
    t.true(channelBytes(session, 'stdout').equals(p.serverOut), `proxy ${p.proxyPid}: cassette holds every server frame in order`);
    t.deepEqual(
      session.messages.map((m) => m.seq),
      session.messages.map((_, i) => i + 1),
    );
  }
}

/** Recorders write the cassette after their server exits; a client may return before that. The
 * limit is generous: on a loaded 2-core machine a recorder may take many seconds to fold. */
export async function waitForSessions(path: string, count: number, timeoutMs = FINISHER_WAIT_MS): Promise<Cassette> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const c = loadCassette(path);
      settleOrphans(path);
      const journals = readdirSync(join(path, '..')).filter((f) => f.endsWith('.journal'));
      // The lock goes last: a writer still holding it may not have let go of the directory.
      const locked = lockHeld(path);
      if (c.sessions.length >= count && journals.length === 0 && !locked) return c;
      last = `${c.sessions.length} sessions, ${journals.length} journals${locked ? ', locked' : ''}`;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`cassette ${path} did not reach ${count} sessions: ${last}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resolves once a journal in `dir` (a recorder's, still running) holds `text`: an event the
 * recorder has written, waited for as it happens (fs.watch) rather than after a sleep. */
export function journalHolds(dir: string, text: string): Promise<void> {
  return new Promise((resolve) => {
    const holds = (): boolean => readdirSync(dir).some((f) => f.endsWith('.journal') && readFileSync(join(dir, f), 'utf8').includes(text));
    const watcher = watch(dir, () => {
      if (!holds()) return;
      watcher.close();
      resolve();
    });
    if (holds()) {
      watcher.close();
      resolve();
    }
  });
}
