/**
 * Recording runs of `serve` over stdio. A client may start several server processes for what is
 * one run to its user: the v2 SDK's `auto` negotiation probes `server/discover` in a process of
 * its own, ends it, then starts the real one. Deciding each process alone loses the probe: in
 * mode `all` the second process replaced the cassette the first had just written, and in mode
 * `once` it found the cassette (holding only the probe) and replayed it, failing every request.
 *
 * So a process that records begins a run, noted in a small file outside the cassette's folder,
 * and a process of the same mode that starts while a process of the run is still alive, or less
 * than RUN_GAP_MS after the last one ended (PROBE_GAP_MS while all the run recorded is a version
 * probe, which is never a whole run), joins it: it records too, adding its session. With a run id
 * (`--run`, or MCP_CASSETTE_RUN: any string, e.g. a CI job id; `withCassette` passes one per
 * call), runs are told apart by that id instead of by time. In mode `all` the sessions the cassette held when
 * the run began are removed once the run's processes recorded, so the cassette ends up holding
 * the run, all of it and nothing older.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { loadCassette, removeSessions, withCassetteLock } from '../../lib/cassette/store.js';
import { journalSessions } from '../../lib/cassette/settle.js';
import type { Action, RecordMode } from './modes.js';

export const RUN_ENV = 'MCP_CASSETTE_RUN';
/** How long after a run's last process ended a new process still joins it. */
export const RUN_GAP_MS = 1500;
/** The same, while everything the run recorded is a `server/discover` probe. */
export const PROBE_GAP_MS = 10_000;

interface RunFile {
  runId?: string;
  mode: RecordMode;
  /** Sessions to remove once the run recorded (mode `all`: what the cassette held before). */
  stale: string[];
  procs: Array<{ pid: number; start: number; end?: number }>;
  /** Every session the run recorded so far only probed the revision (`server/discover`). */
  probeOnly?: boolean;
}

export interface Run {
  /** This process joined a run another process began. */
  joined: boolean;
  /** Marks this process's end and, in mode `all`, removes the sessions the run replaces. */
  end(): Promise<void>;
}

const runsDir = (): string => join(tmpdir(), `mcp-cassette-runs-${process.getuid?.() ?? 'user'}`);

function runFile(cassette: string): string {
  const dir = runsDir();
  mkdirSync(dir, { recursive: true });
  return join(dir, `${createHash('sha256').update(resolve(cassette)).digest('hex').slice(0, 32)}.json`);
}

/** Run files are a few hundred bytes; those untouched for a day are of runs long over. */
function pruneOld(keep: string): void {
  const dir = runsDir();
  const old = Date.now() - 24 * 3600_000;
  try {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (path !== keep && name.endsWith('.json') && statSync(path).mtimeMs < old) rmSync(path, { force: true });
    }
  } catch {
    /* another process pruned first */
  }
}

function read(path: string): RunFile | undefined {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as RunFile;
    return Array.isArray(v.procs) && Array.isArray(v.stale) ? v : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** What the cassette holds, and what the journals beside it hold: `record`, run in serve's place,
 * may exit before its cassette is written (recorder/exit-write.ts). */
async function sessions(cassette: string): Promise<RecordedSession[]> {
  let held: RecordedSession[] = [];
  try {
    held = existsSync(cassette) ? loadCassette(cassette).sessions : [];
  } catch {
    // unreadable: as if empty
  }
  return [...held, ...(await journalSessions(cassette))];
}

/** The ids of the sessions a cassette holds now (none when it does not exist). */
export function sessionIds(cassette: string): string[] {
  return existsSync(cassette) ? loadCassette(cassette).sessions.map((s) => s.id) : [];
}

/** A session in which the client only asked `server/discover`. */
function isProbe(session: RecordedSession): boolean {
  const asked = session.messages
    .filter((m) => m.direction === 'client-to-server' && m.kind === 'request')
    .map((m) => (m.json as { method?: unknown }).method);
  return asked.length > 0 && asked.every((m) => m === 'server/discover');
}

function active(run: RunFile, mode: RecordMode, runId: string | undefined, now: number): boolean {
  if (run.mode !== mode) return false;
  if (runId !== undefined || run.runId !== undefined) return run.runId === runId;
  if (run.procs.some((p) => p.end === undefined && alive(p.pid))) return true;
  const last = Math.max(...run.procs.map((p) => p.end ?? p.start));
  return now - last < (run.probeOnly ? PROBE_GAP_MS : RUN_GAP_MS);
}

/**
 * Decides what a stdio `serve` process does with its cassette: `decide` unless a recording run
 * of the same mode is going on, which it then joins (action `record`). Record modes `once` and
 * `all` take part in runs; the others decide alone.
 */
export async function beginRun(
  cassette: string,
  mode: RecordMode,
  decide: () => Action,
  env: NodeJS.ProcessEnv,
): Promise<{ action: Action; run?: Run }> {
  if (mode !== 'once' && mode !== 'all') return { action: decide() };
  const path = runFile(cassette);
  const runId = env[RUN_ENV] || undefined;
  return withCassetteLock(path, async () => {
    const now = Date.now();
    const current = read(path);
    if (current && active(current, mode, runId, now)) {
      current.procs.push({ pid: process.pid, start: now });
      writeFileSync(path, JSON.stringify(current));
      return { action: 'record' as const, run: handle(cassette, path, current.stale, true, sessionIds(cassette)) };
    }
    const action = decide();
    if (action !== 'record') return { action };
    const before = sessionIds(cassette);
    const stale = mode === 'all' ? before : [];
    const run: RunFile = { ...(runId ? { runId } : {}), mode, stale, procs: [{ pid: process.pid, start: now }] };
    writeFileSync(path, JSON.stringify(run));
    pruneOld(path);
    return { action, run: handle(cassette, path, stale, false, before) };
  });
}

/** A run of one process (`serve --listen`): in mode `all`, what the cassette held is replaced. */
export function soloRun(cassette: string, mode: RecordMode): Run {
  const stale = mode === 'all' ? sessionIds(cassette) : [];
  return { joined: false, end: async () => void (await removeSessions(cassette, stale)) };
}

function handle(cassette: string, path: string, stale: string[], joined: boolean, before: string[]): Run {
  return {
    joined,
    end: async () => {
      const known = new Set(before);
      const recorded = (await sessions(cassette)).filter((s) => !known.has(s.id));
      await withCassetteLock(path, async () => {
        const current = read(path);
        const me = current?.procs.find((p) => p.pid === process.pid && p.end === undefined);
        if (!current || !me) return;
        me.end = Date.now();
        if (recorded.length > 0) current.probeOnly = (current.probeOnly ?? true) && recorded.every(isProbe);
        writeFileSync(path, JSON.stringify(current));
      });
      await removeSessions(cassette, stale);
    },
  };
}
