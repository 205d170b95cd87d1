import type { ChildProcess } from 'node:child_process';
import { spawnRecordedServer, type SpawnedServer } from './server-spawn.js';
import { randomUUID } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import {
  heldBytes,
  JOURNAL_FORMAT,
  JOURNAL_VERSION,
  LIVE_EVENT,
  type JournalFinish,
  type JournalSink,
  openSessionJournal,
} from '../lib/cassette/journal.js';
import { HeldBack } from './held-back.js';
import type { OpenJournal } from './rotation/dir-recording.js';
import { redactArgv } from '../lib/redact.js';
import { packageVersion } from '../lib/version.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import type { Severity } from '../lib/violation.js';
import { killGroup } from '../lib/server-process.js';
import { LiveTap, type LiveOutcome } from './live-tap.js';

export interface StdioRecordOptions {
  cassette: string;
  /** Server argv: command then arguments, passed to spawn untouched. */
  command: string[];
  /** The server, when the caller spawned it already (spawnRecordedServer). */
  server?: SpawnedServer;
  overwrite?: boolean;
  label?: string;
  /** After the host closes stdin, how long the server gets to exit before SIGTERM, and again
   * before SIGKILL. */
  shutdownGraceMs?: number;
  redactPatterns?: RegExp[];
  /** Validate live in a worker thread (started after the spawn). */
  live?: LiveWorkerSpec;
  warn?: (message: string) => void;
  /** Where the journal goes (default: one file beside the cassette; `--cassette-dir`: a series). */
  openJournal?: OpenJournal;
  io?: { stdin: Readable; stdout: Writable; stderr: Writable };
  /** Called once the journal is open, before any record (the capture filter goes on here), with
   * the journal's session id (what the sessions of the cassette are named by). */
  onJournal?: (journal: JournalSink, sessionId: string) => void;
  /** How the journal goes into the cassette, whoever settles it (its header keeps this). */
  finish?: JournalFinish;
  /** At the end, how long to wait for the live validator's last verdicts (LiveTap.finish), and
   * for its last alerts once they are in. */
  liveWaitMs?: number;
  alertWaitMs?: number;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Live validation saw violations at the --fail-on level. */
  validationFailed?: boolean;
  /** Live validation did not judge every message (it shed): the cassette write judges them. */
  liveIncomplete?: boolean;
  /** The worst verdict live validation gave (when it judged every message, the session's). */
  liveWorst?: Severity;
  /** Frames the session holds (lines of the three streams, and what each ended with unterminated),
   * as the fold will number them. */
  frames?: number;
  /** The session could not be written to the cassette; it is kept in its journal. */
  notSaved?: boolean;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** When the server's first process has exited, how long what it started gets after SIGTERM
 * before SIGKILL: a session ends with every process of the server's group (`npx -y <package>`
 * runs the real server as its child). */
const GROUP_GRACE_MS = 200;
/** After the server exited, how long a process outside its group (a daemon that called setsid)
 * may hold the pipes open before the proxy stops reading them. */
const PIPE_HOLD_MS = 300;
/** The live validator starts this long after the server's first answer is forwarded, or
 * LIVE_START_DELAY_MS after the spawn (a server that says nothing first): LiveTap.start. Loaded
 * some 100-250 ms later, it judges while the session runs: an offending message 500 ms before the
 * close is alerted live. */
const LIVE_AFTER_ANSWER_MS = 100;
const LIVE_START_DELAY_MS = 500;

/**
 * The stdio recording proxy: spawn the server, forward bytes both ways untouched, pass stderr
 * through, and fold the journal into the cassette once the server is gone. Resolves with the
 * server's exit status.
 */
export function runStdioProxy(options: StdioRecordOptions): { sessionId: string; journal: string; done: Promise<ExitStatus> } {
  const io = options.io ?? { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  const grace = options.shutdownGraceMs ?? 2000;
  const t0 = performance.now();
  const startedAt = new Date().toISOString();

  // Spawned before anything else (by the bin, usually, before the recorder loaded).
  const server = options.server ?? spawnRecordedServer(options.command);
  const child = server.child;
  const signalServer = (signal: NodeJS.Signals): void => killGroup(child, signal);

  const sessionId = randomUUID();
  let journal: JournalSink;
  try {
    journal = (options.openJournal ?? openSessionJournal)(
      options.cassette,
      {
        format: JOURNAL_FORMAT,
        version: JOURNAL_VERSION,
        sessionId,
        startedAt,
        pid: process.pid,
        hostname: hostname(),
        session: {
          ...(options.label ? { label: options.label } : {}),
          target: { command: redactArgv(options.command, { patterns: options.redactPatterns }), cwd: process.cwd() },
          proxy: { pid: process.pid, version: packageVersion() },
          // Judged live: the session keeps a (maybe empty) list of violations, so a clean session
          // reads "none", not "validation was off".
          ...(options.live ? { violations: [] } : {}),
        },
        ...(options.finish ? { finish: { ...options.finish } } : {}),
      },
      t0,
    );
  } catch (err) {
    signalServer('SIGTERM'); // nothing can be recorded: the server started first must not outlive us
    throw err;
  }
  options.onJournal?.(journal, sessionId);
  let live: LiveTap | undefined;
  if (options.live) {
    live = new LiveTap(journal, options.warn ?? (() => {}));
    // After the server's first answer is out (clients such as @ai-sdk/mcp give server/discover
    // about a second), so that loading the validator never competes with the server for the CPU
    // before then. Traffic waits in the batch meanwhile, and is judged while the session runs.
    live.start({ ...options.live, data: { ...options.live.data, sessionId } }, LIVE_START_DELAY_MS, LIVE_AFTER_ANSWER_MS);
  }

  const done = new Promise<ExitStatus>((resolve, reject) => {
    let spawnError: NodeJS.ErrnoException | undefined;
    let killTimers: NodeJS.Timeout[] = [];
    let shutdownBy: string | undefined;

    const beginShutdown = (by: 'host-eof' | 'proxy-signal' | 'host-gone', signal?: NodeJS.Signals): void => {
      if (shutdownBy === undefined) {
        shutdownBy = by;
        journal.event('shutdown', { by, ...(signal ? { signal } : {}) });
      }
      if (signal) {
        if (child.exitCode === null && child.signalCode === null) signalServer(signal);
        escalate(child, [grace, 'SIGKILL']);
      } else {
        escalate(child, [grace, 'SIGTERM'], [2 * grace, 'SIGKILL']);
      }
    };
    const escalate = (proc: ChildProcess, ...steps: [number, NodeJS.Signals][]): void => {
      for (const [ms, sig] of steps) {
        const timer = setTimeout(() => {
          if (proc.exitCode === null && proc.signalCode === null) signalServer(sig);
        }, ms);
        timer.unref();
        killTimers.push(timer);
      }
    };

    // host → server
    // Each chunk is appended to the journal (one page-cache write, a few µs) before it is
    // forwarded, and only what the journal holds is forwarded (held-back.ts): then a SIGKILL can
    // never lose bytes the other side already has. Everything else (framing, parsing,
    // validation) happens after forwarding, in a later turn of the loop.
    // Frames, counted as they pass (the fold numbers the same): the summary's count, whether or
    // not live validation judged them.
    let frames = 0;
    const open: Record<'stdin' | 'stdout' | 'stderr', boolean> = { stdin: false, stdout: false, stderr: false };
    const count = (channel: 'stdin' | 'stdout' | 'stderr', chunk: Buffer): void => {
      for (let nl = chunk.indexOf(0x0a); nl !== -1; nl = chunk.indexOf(0x0a, nl + 1)) frames++;
      if (chunk.length > 0) open[channel] = chunk[chunk.length - 1] !== 0x0a;
    };
    const closeFrame = (channel: 'stdin' | 'stdout' | 'stderr'): void => {
      if (open[channel]) frames++;
      open[channel] = false;
    };
    const toServer = new HeldBack();
    const toHost = new HeldBack();
    const toHostErr = new HeldBack();
    const writeServer = (bytes: Buffer | undefined): void => {
      if (!bytes || child.stdin!.destroyed || child.stdin!.write(bytes)) return;
      io.stdin.pause();
      child.stdin!.once('drain', () => io.stdin.resume());
    };
    io.stdin.on('data', (chunk: Buffer) => {
      const t = journal.chunk('stdin', chunk);
      count('stdin', chunk);
      writeServer(toServer.take(chunk, heldBytes(journal, 'stdin')));
      live?.chunk('stdin', chunk, t);
    });
    io.stdin.on('end', () => {
      journal.event('eof', { channel: 'stdin' });
      closeFrame('stdin');
      writeServer(toServer.rest());
      live?.end('stdin', journal.now());
      child.stdin!.end();
      beginShutdown('host-eof');
    });
    io.stdin.on('error', () => beginShutdown('host-gone'));
    child.stdin!.on('error', () => {
      // The server closed its stdin or died; what it did not read is still in the journal.
    });

    // server → host
    let hostGone = false;
    /** When the server's last output came (performance.now()): its pipes are let go once idle. */
    let lastServerData = 0;
    const writeHost = (bytes: Buffer | undefined): void => {
      if (!bytes || hostGone || io.stdout.write(bytes)) return;
      child.stdout!.pause();
      io.stdout.once('drain', () => child.stdout!.resume());
    };
    child.stdout!.on('data', (chunk: Buffer) => {
      lastServerData = performance.now();
      const t = journal.chunk('stdout', chunk);
      count('stdout', chunk);
      writeHost(toHost.take(chunk, heldBytes(journal, 'stdout')));
      live?.chunk('stdout', chunk, t);
    });
    child.stdout!.on('end', () => {
      journal.event('eof', { channel: 'stdout' });
      closeFrame('stdout');
      writeHost(toHost.rest());
      live?.end('stdout', journal.now());
    });
    io.stdout.on('error', () => {
      // EPIPE: the host is gone. Stop forwarding but keep recording what the server says.
      hostGone = true;
      child.stdout!.resume();
      beginShutdown('host-gone');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      lastServerData = performance.now();
      const t = journal.chunk('stderr', chunk);
      count('stderr', chunk);
      const bytes = toHostErr.take(chunk, heldBytes(journal, 'stderr'));
      if (bytes) io.stderr.write(bytes);
      live?.chunk('stderr', chunk, t);
    });
    child.stderr!.on('end', () => {
      journal.event('eof', { channel: 'stderr' });
      closeFrame('stderr');
      const bytes = toHostErr.rest();
      if (bytes) io.stderr.write(bytes);
      live?.end('stderr', journal.now());
    });

    const onSignal = (signal: NodeJS.Signals): void => beginShutdown('proxy-signal', signal);
    for (const s of FORWARDED_SIGNALS) process.on(s, onSignal);

    child.on('error', (err: NodeJS.ErrnoException) => {
      // Only spawn failures arrive here before 'exit'; the child never ran.
      if (child.pid === undefined) spawnError = err;
    });
    const onExit = (): void => {
      if (child.pid === undefined) return;
      // The session ends with the server's whole group: what its first process started and left
      // running (the real server under `npx`, a shell's children) gets SIGTERM, then SIGKILL.
      if (groupAlive(child.pid)) {
        signalServer('SIGTERM');
        const kill = setTimeout(() => groupAlive(child.pid!) && signalServer('SIGKILL'), GROUP_GRACE_MS);
        kill.unref();
        killTimers.push(kill);
      }
      // 'close' waits for the pipes; a process outside the group that holds them must not keep
      // us alive. But what the server wrote before it exited is still in the pipe while a slow
      // host holds the forwarding back (or while this process waits for the CPU): the pipes are
      // let go only once nothing came for PIPE_HOLD_MS and nothing waits for the host.
      const release = (): void => {
        const waiting = !hostGone && (child.stdout!.isPaused() || io.stdout.writableNeedDrain);
        if (waiting || performance.now() - lastServerData < PIPE_HOLD_MS) {
          timer.refresh();
          return;
        }
        child.stdout!.destroy();
        child.stderr!.destroy();
      };
      const timer = setTimeout(release, PIPE_HOLD_MS);
      timer.unref();
      killTimers.push(timer);
    };
    // The bin spawned the server before this code loaded: its exit may be past already.
    if (child.exitCode !== null || child.signalCode !== null) onExit();
    else child.on('exit', onExit);

    let ended = false;
    const end = (): boolean => {
      if (ended) return false;
      ended = true;
      for (const s of FORWARDED_SIGNALS) process.off(s, onSignal);
      for (const t of killTimers) clearTimeout(t);
      killTimers = [];
      io.stdin.removeAllListeners('data');
      io.stdin.pause();
      return true;
    };
    const failSpawn = (err: NodeJS.ErrnoException): void => {
      if (!end()) return;
      live?.abort();
      journal.close();
      safeUnlink(journal.path);
      reject(err);
    };
    // A spawn that failed before this code loaded (its 'error' and 'close' may be past).
    if (child.pid === undefined && server.error) setImmediate(() => failSpawn(server.error!));

    child.on('close', (code, signal) => {
      if (spawnError) return failSpawn(spawnError);
      if (!end()) return;
      // The last frames are judged before the journal closes, so their violations are kept
      // (LiveTap.finish bounds the wait; what it cuts off is judged when the cassette is written).
      const how = {
        exitCode: code,
        signal,
        ...(shutdownBy ? { initiatedBy: shutdownBy as 'host-eof' | 'proxy-signal' | 'host-gone' } : {}),
      };
      // A host's first signal meanwhile is its usual way to close (the v2 client's probe sends
      // SIGTERM with the end of stdin): the wait is short anyway. A second one cuts it short.
      let signals = 0;
      const hurry = (): void => {
        if (++signals > 1) live?.hurry();
      };
      for (const s of FORWARDED_SIGNALS) process.on(s, hurry);
      void (
        live ? live.finish(how, options.liveWaitMs, options.alertWaitMs) : Promise.resolve<LiveOutcome>({ failed: false, complete: true })
      )
        .catch((): LiveOutcome => ({ failed: false, complete: false }))
        .then((verdict) => {
          for (const s of FORWARDED_SIGNALS) process.off(s, hurry);
          // Whether the verdicts journaled are the session's: the settler judges the rest.
          if (live) journal.event(LIVE_EVENT, { complete: verdict.complete });
          journal.event('exit', { code, signal });
          journal.close();
          for (const c of ['stdin', 'stdout', 'stderr'] as const) closeFrame(c);
          resolve({
            code,
            signal,
            frames,
            ...(verdict.failed ? { validationFailed: true } : {}),
            ...(verdict.complete ? {} : { liveIncomplete: true }),
            ...(verdict.worst ? { liveWorst: verdict.worst } : {}),
          });
        });
    });
  });
  // A spawn failure may settle `done` before the caller awaits it (the recorder loads its logger
  // first): it is the caller's to report, never an unhandled rejection.
  done.catch(() => {});
  return { sessionId, journal: journal.path, done };
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
