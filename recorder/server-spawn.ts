import { spawn, type ChildProcess } from 'node:child_process';

/**
 * Starts the server a stdio recording wraps. The bin (lib/cli.ts) calls it before anything else
 * loads: real clients give a new server about a second to answer, and a Node process takes some
 * 50 ms to reach its first line of code, so every millisecond before the spawn is added to the
 * host's wait. The server leads a process group of its own (POSIX), so that signals and the end
 * of the session reach everything it starts (`npx -y <package>` runs the real server as its
 * child), and nothing it started outlives the session.
 */
export interface SpawnedServer {
  child: ChildProcess;
  command: readonly string[];
  /** A failed spawn (ENOENT, EACCES), kept until the recorder is there to hear it. */
  error?: NodeJS.ErrnoException;
}

export function spawnRecordedServer(command: readonly string[]): SpawnedServer {
  const [file, ...args] = command;
  const child = spawn(file!, args, { stdio: ['pipe', 'pipe', 'pipe'], detached: process.platform !== 'win32' });
  const server: SpawnedServer = { child, command };
  child.once('error', (err: NodeJS.ErrnoException) => (server.error ??= err));
  return server;
}

/** Ends a server the recording will not go ahead with (a usage error found after the spawn, our
 * own failure): its group gets SIGTERM, and its pipes are let go, so they do not keep us alive. */
export function abandonServer(server: SpawnedServer): void {
  const { child } = server;
  if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      if (process.platform !== 'win32') process.kill(-child.pid, 'SIGTERM');
      else child.kill('SIGTERM');
    } catch {
      // gone already
    }
  }
  for (const s of [child.stdin, child.stdout, child.stderr]) s?.destroy();
  child.unref();
}

/** Where the bin leaves the server it spawned for the recorder it loads next. */
const EARLY = Symbol.for('mcp-cassette.early-server');

export function leaveEarlyServer(server: SpawnedServer): void {
  (globalThis as Record<symbol, unknown>)[EARLY] = server;
}

/** The server the bin spawned, if any, once. */
export function takeEarlyServer(): SpawnedServer | undefined {
  const g = globalThis as Record<symbol, unknown>;
  const server = g[EARLY] as SpawnedServer | undefined;
  delete g[EARLY];
  return server;
}
