import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalSink, openSessionJournal } from '../lib/cassette/journal.js';
import type { OpenJournal } from './rotation/dir-recording.js';
import { redactArgv } from '../lib/redact.js';
import { packageVersion } from '../lib/version.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import { LiveTap } from './live-tap.js';

export interface StdioRecordOptions {
  cassette: string;
  /** Server argv: command then arguments, passed to spawn untouched. */
  command: string[];
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
  /** Called once the journal is open, before any record (the capture filter goes on here). */
  onJournal?: (journal: JournalSink) => void;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Live validation saw violations at the --fail-on level. */
  validationFailed?: boolean;
  /** Live validation did not judge every message (it shed): the cassette write judges them. */
  liveIncomplete?: boolean;
  /** The session could not be written to the cassette; it is kept in its journal. */
  notSaved?: boolean;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

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
  const [file, ...args] = options.command;

  // Spawn before anything else: real clients give a new server about a second to answer.
  const child = spawn(file!, args, { stdio: ['pipe', 'pipe', 'pipe'] });

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
        },
      },
      t0,
    );
  } catch (err) {
    child.kill(); // nothing can be recorded: the server started first must not outlive us
    throw err;
  }
  options.onJournal?.(journal);
  let live: LiveTap | undefined;
  if (options.live) {
    live = new LiveTap(journal, options.warn ?? (() => {}));
    // 1.2 s in: after the first second, in which clients such as @ai-sdk/mcp wait for the answer
    // to their server/discover probe, so the validator (a worker that loads the SDK schemas and
    // every rule) never competes with the server for the CPU then. Traffic waits in the batch.
    live.start({ ...options.live, data: { ...options.live.data, sessionId } }, 1200);
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
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        escalate(child, [grace, 'SIGKILL']);
      } else {
        escalate(child, [grace, 'SIGTERM'], [2 * grace, 'SIGKILL']);
      }
    };
    const escalate = (proc: ChildProcess, ...steps: [number, NodeJS.Signals][]): void => {
      for (const [ms, sig] of steps) {
        const timer = setTimeout(() => {
          if (proc.exitCode === null && proc.signalCode === null) proc.kill(sig);
        }, ms);
        timer.unref();
        killTimers.push(timer);
      }
    };

    // host → server
    // Each chunk is appended to the journal (one page-cache write, a few µs) just before it is
    // forwarded: then a SIGKILL can never lose bytes the other side already has. Everything else
    // (framing, parsing, validation) happens after forwarding, in a later turn of the loop.
    io.stdin.on('data', (chunk: Buffer) => {
      const t = journal.chunk('stdin', chunk);
      if (!child.stdin!.destroyed && !child.stdin!.write(chunk)) {
        io.stdin.pause();
        child.stdin!.once('drain', () => io.stdin.resume());
      }
      live?.chunk('stdin', chunk, t);
    });
    io.stdin.on('end', () => {
      journal.event('eof', { channel: 'stdin' });
      live?.end('stdin', journal.now());
      child.stdin!.end();
      beginShutdown('host-eof');
    });
    io.stdin.on('error', () => beginShutdown('host-gone'));
    child.stdin!.on('error', () => {
      // The server closed its stdin or died; what it did not read is still in the journal.
    });

    // server → host
    child.stdout!.on('data', (chunk: Buffer) => {
      const t = journal.chunk('stdout', chunk);
      if (!io.stdout.write(chunk)) {
        child.stdout!.pause();
        io.stdout.once('drain', () => child.stdout!.resume());
      }
      live?.chunk('stdout', chunk, t);
    });
    child.stdout!.on('end', () => {
      journal.event('eof', { channel: 'stdout' });
      live?.end('stdout', journal.now());
    });
    io.stdout.on('error', () => {
      // EPIPE: the host is gone. Stop forwarding but keep recording what the server says.
      child.stdout!.removeAllListeners('data');
      child.stdout!.on('data', (chunk: Buffer) => live?.chunk('stdout', chunk, journal.chunk('stdout', chunk)));
      child.stdout!.resume();
      beginShutdown('host-gone');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      const t = journal.chunk('stderr', chunk);
      io.stderr.write(chunk);
      live?.chunk('stderr', chunk, t);
    });
    child.stderr!.on('end', () => {
      journal.event('eof', { channel: 'stderr' });
      live?.end('stderr', journal.now());
    });

    const onSignal = (signal: NodeJS.Signals): void => beginShutdown('proxy-signal', signal);
    for (const s of FORWARDED_SIGNALS) process.on(s, onSignal);

    child.on('error', (err: NodeJS.ErrnoException) => {
      // Only spawn failures arrive here before 'exit'; the child never ran.
      if (child.pid === undefined) spawnError = err;
    });
    child.on('exit', () => {
      // 'close' waits for the pipes; a grandchild that inherited them must not keep us alive.
      const timer = setTimeout(() => {
        child.stdout!.destroy();
        child.stderr!.destroy();
      }, 2000);
      timer.unref();
      killTimers.push(timer);
    });

    child.on('close', (code, signal) => {
      for (const s of FORWARDED_SIGNALS) process.off(s, onSignal);
      for (const t of killTimers) clearTimeout(t);
      killTimers = [];
      io.stdin.removeAllListeners('data');
      io.stdin.pause();
      if (spawnError) {
        live?.abort();
        journal.close();
        safeUnlink(journal.path);
        reject(spawnError);
        return;
      }
      // The last frames are judged before the journal closes, so their violations are kept. A
      // host that signals us meanwhile (clients send SIGTERM a couple of seconds after closing
      // stdin, then SIGKILL) gets the cassette written now, without the verdicts still pending.
      const end = {
        exitCode: code,
        signal,
        ...(shutdownBy ? { initiatedBy: shutdownBy as 'host-eof' | 'proxy-signal' | 'host-gone' } : {}),
      };
      const hurry = (): void => live?.hurry();
      for (const s of FORWARDED_SIGNALS) process.on(s, hurry);
      void (live ? live.finish(end) : Promise.resolve({ failed: false, complete: true }))
        .catch(() => ({ failed: false, complete: false }))
        .then((verdict) => {
          for (const s of FORWARDED_SIGNALS) process.off(s, hurry);
          journal.event('exit', { code, signal });
          journal.close();
          resolve({
            code,
            signal,
            ...(verdict.failed ? { validationFailed: true } : {}),
            ...(verdict.complete ? {} : { liveIncomplete: true }),
          });
        });
    });
  });
  return { sessionId, journal: journal.path, done };
}

function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // already gone
  }
}
