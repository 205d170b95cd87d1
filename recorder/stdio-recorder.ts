import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { JOURNAL_FORMAT, JOURNAL_VERSION, JournalWriter, journalPath } from '../lib/cassette/journal.js';
import { redactArgv } from '../lib/redact.js';
import { packageVersion } from '../lib/version.js';

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
  io?: { stdin: Readable; stdout: Writable; stderr: Writable };
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

const FORWARDED_SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * The stdio recording proxy: spawn the server, forward bytes both ways untouched (forward first,
 * journal after), pass stderr through, and fold the journal into the cassette once the server is
 * gone. Resolves with the server's exit status.
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
  mkdirSync(dirname(options.cassette), { recursive: true });
  const journal = new JournalWriter(journalPath(options.cassette, sessionId), {
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
  }, t0);

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
    io.stdin.on('data', (chunk: Buffer) => {
      if (!child.stdin!.destroyed && !child.stdin!.write(chunk)) {
        io.stdin.pause();
        child.stdin!.once('drain', () => io.stdin.resume());
      }
      journal.chunk('stdin', chunk);
    });
    io.stdin.on('end', () => {
      journal.event('eof', { channel: 'stdin' });
      child.stdin!.end();
      beginShutdown('host-eof');
    });
    io.stdin.on('error', () => beginShutdown('host-gone'));
    child.stdin!.on('error', () => {
      // The server closed its stdin or died; what it did not read is still in the journal.
    });

    // server → host
    child.stdout!.on('data', (chunk: Buffer) => {
      if (!io.stdout.write(chunk)) {
        child.stdout!.pause();
        io.stdout.once('drain', () => child.stdout!.resume());
      }
      journal.chunk('stdout', chunk);
    });
    child.stdout!.on('end', () => journal.event('eof', { channel: 'stdout' }));
    io.stdout.on('error', () => {
      // EPIPE: the host is gone. Stop forwarding but keep recording what the server says.
      child.stdout!.removeAllListeners('data');
      child.stdout!.on('data', (chunk: Buffer) => journal.chunk('stdout', chunk));
      child.stdout!.resume();
      beginShutdown('host-gone');
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      io.stderr.write(chunk);
      journal.chunk('stderr', chunk);
    });
    child.stderr!.on('end', () => journal.event('eof', { channel: 'stderr' }));

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
        journal.close();
        safeUnlink(journal.path);
        reject(spawnError);
        return;
      }
      journal.event('exit', { code, signal });
      journal.close();
      resolve({ code, signal });
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
