/**
 * The forwarding of one stdio recording, once its server runs and its journal is open: bytes
 * both ways untouched (each journaled before it is forwarded), stderr passed through, the
 * shutdown of the server's whole group, and the session's end (the last live verdicts, then the
 * journal closed). recorder/stdio-recorder.ts spawns the server and opens the journal.
 */
import type { ChildProcess } from 'node:child_process';
import { unlinkSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { heldBytes, LIVE_EVENT, type JournalSink } from '../lib/cassette/journal.js';
import { killGroup } from '../lib/server-process.js';
import { HeldBack } from './held-back.js';
import type { LiveOutcome, LiveTap } from './live-tap.js';
import type { SpawnedServer } from './server-spawn.js';
import type { ExitStatus } from './stdio-recorder.js';

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** When the server's first process has exited, how long what it started gets after SIGTERM
 * before SIGKILL: a session ends with every process of the server's group (`npx -y <package>`
 * runs the real server as its child). */
const GROUP_GRACE_MS = 200;
/** After the server exited, how long a process outside its group (a daemon that called setsid)
 * may hold the pipes open before the proxy stops reading them. */
const PIPE_HOLD_MS = 300;

type Channel = 'stdin' | 'stdout' | 'stderr';
type ShutdownBy = 'host-eof' | 'proxy-signal' | 'host-gone';

export interface StdioForwardingParts {
  server: SpawnedServer;
  journal: JournalSink;
  live: LiveTap | undefined;
  io: { stdin: Readable; stdout: Writable; stderr: Writable };
  /** After the host closes stdin, how long the server gets to exit before SIGTERM, and again
   * before SIGKILL. */
  grace: number;
  liveWaitMs?: number;
  alertWaitMs?: number;
}

/** Frames, counted as they pass (the fold numbers the same): the summary's count, whether or not
 * live validation judged them. A channel's last line without its newline counts once it ends. */
class FrameCount {
  frames = 0;
  readonly #open: Record<Channel, boolean> = { stdin: false, stdout: false, stderr: false };

  count(channel: Channel, chunk: Buffer): void {
    for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, nl + 1)) this.frames++;
    if (chunk.length > 0) this.#open[channel] = chunk[chunk.length - 1] !== 0x0a;
  }

  close(channel: Channel): void {
    if (this.#open[channel]) this.frames++;
    this.#open[channel] = false;
  }
}

export class StdioForwarding {
  readonly #p: StdioForwardingParts;
  readonly #child: ChildProcess;
  #spawnError: NodeJS.ErrnoException | undefined;
  #killTimers: NodeJS.Timeout[] = [];
  #shutdownBy: ShutdownBy | undefined;
  readonly #frames = new FrameCount();
  #hostGone = false;
  /** When the server's last output came (performance.now()): its pipes are let go once idle. */
  #lastServerData = 0;
  #ended = false;
  readonly #onSignal = (signal: NodeJS.Signals): void => this.#beginShutdown('proxy-signal', signal);

  constructor(parts: StdioForwardingParts) {
    this.#p = parts;
    this.#child = parts.server.child;
  }

  /** Wires everything up; settles with the server's exit status once the session is written, or
   * rejects when the server could not be spawned. */
  run(): Promise<ExitStatus> {
    return new Promise<ExitStatus>((resolve, reject) => {
      const child = this.#child;
      this.#hostToServer();
      this.#serverToHost();
      for (const s of FORWARDED_SIGNALS) process.on(s, this.#onSignal);
      child.on('error', (err: NodeJS.ErrnoException) => {
        // Only spawn failures arrive here before 'exit'; the child never ran.
        if (child.pid === undefined) this.#spawnError = err;
      });
      // The bin spawned the server before this code loaded: its exit may be past already.
      if (child.exitCode !== null || child.signalCode !== null) this.#onExit();
      else child.on('exit', () => this.#onExit());
      // A spawn that failed before this code loaded (its 'error' and 'close' may be past).
      const server = this.#p.server;
      if (child.pid === undefined && server.error) setImmediate(() => this.#failSpawn(server.error!, reject));
      child.on('close', (code, signal) => {
        if (this.#spawnError) return this.#failSpawn(this.#spawnError, reject);
        if (!this.#end()) return;
        this.#finish(code, signal).then(resolve);
      });
    });
  }

  #signalServer(signal: NodeJS.Signals): void {
    killGroup(this.#child, signal);
  }

  #beginShutdown(by: ShutdownBy, signal?: NodeJS.Signals): void {
    const child = this.#child;
    const grace = this.#p.grace;
    if (this.#shutdownBy === undefined) {
      this.#shutdownBy = by;
      this.#p.journal.event('shutdown', { by, ...(signal ? { signal } : {}) });
    }
    if (signal) {
      if (child.exitCode === null && child.signalCode === null) this.#signalServer(signal);
      this.#escalate(child, [grace, 'SIGKILL']);
    } else {
      this.#escalate(child, [grace, 'SIGTERM'], [2 * grace, 'SIGKILL']);
    }
  }

  #escalate(proc: ChildProcess, ...steps: [number, NodeJS.Signals][]): void {
    for (const [ms, sig] of steps) {
      const timer = setTimeout(() => {
        if (proc.exitCode === null && proc.signalCode === null) this.#signalServer(sig);
      }, ms);
      timer.unref();
      this.#killTimers.push(timer);
    }
  }

  // host → server
  // Each chunk is appended to the journal (one page-cache write, a few µs) before it is
  // forwarded, and only what the journal holds is forwarded (held-back.ts): then a SIGKILL can
  // never lose bytes the other side already has. Everything else (framing, parsing,
  // validation) happens after forwarding, in a later turn of the loop.
  #hostToServer(): void {
    const { journal, live, io } = this.#p;
    const child = this.#child;
    const toServer = new HeldBack();
    const writeServer = (bytes: Buffer | undefined): void => {
      if (!bytes || child.stdin!.destroyed || child.stdin!.write(bytes)) return;
      io.stdin.pause();
      child.stdin!.once('drain', () => io.stdin.resume());
    };
    io.stdin.on('data', (chunk: Buffer) => {
      const t = journal.chunk('stdin', chunk);
      this.#frames.count('stdin', chunk);
      writeServer(toServer.take(chunk, heldBytes(journal, 'stdin')));
      live?.chunk('stdin', chunk, t);
    });
    io.stdin.on('end', () => {
      journal.event('eof', { channel: 'stdin' });
      this.#frames.close('stdin');
      writeServer(toServer.rest());
      live?.end('stdin', journal.now());
      child.stdin!.end();
      this.#beginShutdown('host-eof');
    });
    io.stdin.on('error', () => this.#beginShutdown('host-gone'));
    child.stdin!.on('error', () => {
      // The server closed its stdin or died; what it did not read is still in the journal.
    });
  }

  // server → host, the same way; stderr passes through to ours.
  #serverToHost(): void {
    const { journal, live, io } = this.#p;
    const child = this.#child;
    const toHost = new HeldBack();
    const toHostErr = new HeldBack();
    const writeHost = (bytes: Buffer | undefined): void => {
      if (!bytes || this.#hostGone || io.stdout.write(bytes)) return;
      child.stdout!.pause();
      io.stdout.once('drain', () => child.stdout!.resume());
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      this.#lastServerData = performance.now();
      const t = journal.chunk('stdout', chunk);
      this.#frames.count('stdout', chunk);
      writeHost(toHost.take(chunk, heldBytes(journal, 'stdout')));
      live?.chunk('stdout', chunk, t);
    });
    child.stdout!.on('end', () => {
      journal.event('eof', { channel: 'stdout' });
      this.#frames.close('stdout');
      writeHost(toHost.rest());
      live?.end('stdout', journal.now());
    });
    io.stdout.on('error', () => {
      // EPIPE: the host is gone. Stop forwarding but keep recording what the server says.
      this.#hostGone = true;
      child.stdout!.resume();
      this.#beginShutdown('host-gone');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#lastServerData = performance.now();
      const t = journal.chunk('stderr', chunk);
      this.#frames.count('stderr', chunk);
      const bytes = toHostErr.take(chunk, heldBytes(journal, 'stderr'));
      if (bytes) io.stderr.write(bytes);
      live?.chunk('stderr', chunk, t);
    });
    child.stderr!.on('end', () => {
      journal.event('eof', { channel: 'stderr' });
      this.#frames.close('stderr');
      const bytes = toHostErr.rest();
      if (bytes) io.stderr.write(bytes);
      live?.end('stderr', journal.now());
    });
  }

  #onExit(): void {
    const child = this.#child;
    if (child.pid === undefined) return;
    // The session ends with the server's whole group: what its first process started and left
    // running (the real server under `npx`, a shell's children) gets SIGTERM, then SIGKILL.
    if (groupAlive(child.pid)) {
      this.#signalServer('SIGTERM');
      const kill = setTimeout(() => groupAlive(child.pid!) && this.#signalServer('SIGKILL'), GROUP_GRACE_MS);
      kill.unref();
      this.#killTimers.push(kill);
    }
    // 'close' waits for the pipes; a process outside the group that holds them must not keep
    // us alive. But what the server wrote before it exited is still in the pipe while a slow
    // host holds the forwarding back (or while this process waits for the CPU): the pipes are
    // let go only once nothing came for PIPE_HOLD_MS and nothing waits for the host.
    const release = (): void => {
      const waiting = !this.#hostGone && (child.stdout!.isPaused() || this.#p.io.stdout.writableNeedDrain);
      if (waiting || performance.now() - this.#lastServerData < PIPE_HOLD_MS) {
        timer.refresh();
        return;
      }
      child.stdout!.destroy();
      child.stderr!.destroy();
    };
    const timer = setTimeout(release, PIPE_HOLD_MS);
    timer.unref();
    this.#killTimers.push(timer);
  }

  /** Stops listening to the host and the signals, once; false when it was done already. */
  #end(): boolean {
    if (this.#ended) return false;
    this.#ended = true;
    for (const s of FORWARDED_SIGNALS) process.off(s, this.#onSignal);
    for (const t of this.#killTimers) clearTimeout(t);
    this.#killTimers = [];
    this.#p.io.stdin.removeAllListeners('data');
    this.#p.io.stdin.pause();
    return true;
  }

  #failSpawn(err: NodeJS.ErrnoException, reject: (err: unknown) => void): void {
    if (!this.#end()) return;
    this.#p.live?.abort();
    this.#p.journal.close();
    safeUnlink(this.#p.journal.path);
    reject(err);
  }

  /** The session's end: the last frames are judged before the journal closes, so their
   * violations are kept (LiveTap.finish bounds the wait; what it cuts off is judged when the
   * cassette is written). */
  async #finish(code: number | null, signal: NodeJS.Signals | null): Promise<ExitStatus> {
    const { journal, live } = this.#p;
    const how = { exitCode: code, signal, ...(this.#shutdownBy ? { initiatedBy: this.#shutdownBy } : {}) };
    // A host's first signal meanwhile is its usual way to close (the v2 client's probe sends
    // SIGTERM with the end of stdin): the wait is short anyway. A second one cuts it short.
    let signals = 0;
    const hurry = (): void => {
      if (++signals > 1) live?.hurry();
    };
    for (const s of FORWARDED_SIGNALS) process.on(s, hurry);
    const verdict = await (live
      ? live.finish(how, this.#p.liveWaitMs, this.#p.alertWaitMs)
      : Promise.resolve<LiveOutcome>({ failed: false, complete: true })
    ).catch((): LiveOutcome => ({ failed: false, complete: false }));
    for (const s of FORWARDED_SIGNALS) process.off(s, hurry);
    // Whether the verdicts journaled are the session's: the settler judges the rest.
    if (live) journal.event(LIVE_EVENT, { complete: verdict.complete });
    journal.event('exit', { code, signal });
    journal.close();
    for (const c of ['stdin', 'stdout', 'stderr'] as const) this.#frames.close(c);
    return {
      code,
      signal,
      frames: this.#frames.frames,
      ...(verdict.failed ? { validationFailed: true } : {}),
      ...(verdict.complete ? {} : { liveIncomplete: true }),
      ...(verdict.worst ? { liveWorst: verdict.worst } : {}),
    };
  }
}

/** Whether any process of the group `pgid` is still there (POSIX; elsewhere the server's own
 * process is all there is to know). */
function groupAlive(pgid: number): boolean {
  if (process.platform === 'win32') return false;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
