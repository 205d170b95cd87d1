import { spawnRecordedServer, type SpawnedServer } from './server-spawn.js';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalFinish, type JournalSink, openSessionJournal } from '../lib/cassette/journal.js';
import type { OpenJournal } from './rotation/dir-recording.js';
import { redactArgv } from '../lib/redact.js';
import { packageVersion } from '../lib/version.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import type { Severity } from '../lib/violation.js';
import { killGroup } from '../lib/server-process.js';
import { LiveTap } from './live-tap.js';
import { StdioForwarding } from './stdio-forwarding.js';

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

/** The live validator starts this long after the server's first answer is forwarded, or
 * LIVE_START_DELAY_MS after the spawn (a server that says nothing first): LiveTap.start. Loaded
 * some 100-250 ms later, it judges while the session runs: an offending message 500 ms before the
 * close is alerted live. */
const LIVE_AFTER_ANSWER_MS = 100;
const LIVE_START_DELAY_MS = 500;

/**
 * The stdio recording proxy: spawn the server, forward bytes both ways untouched, pass stderr
 * through, and fold the journal into the cassette once the server is gone. Resolves with the
 * server's exit status. The forwarding itself is recorder/stdio-forwarding.ts.
 */
export function runStdioProxy(options: StdioRecordOptions): { sessionId: string; journal: string; done: Promise<ExitStatus> } {
  const io = options.io ?? { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
  const grace = options.shutdownGraceMs ?? 2000;
  const t0 = performance.now();
  const startedAt = new Date().toISOString();

  // Spawned before anything else (by the bin, usually, before the recorder loaded).
  const server = options.server ?? spawnRecordedServer(options.command);

  const sessionId = randomUUID();
  let journal: JournalSink;
  try {
    journal = openStdioJournal(options, sessionId, startedAt, t0);
  } catch (err) {
    killGroup(server.child, 'SIGTERM'); // nothing can be recorded: the server started first must not outlive us
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

  const done = new StdioForwarding({
    server,
    journal,
    live,
    io,
    grace,
    ...(options.liveWaitMs !== undefined ? { liveWaitMs: options.liveWaitMs } : {}),
    ...(options.alertWaitMs !== undefined ? { alertWaitMs: options.alertWaitMs } : {}),
  }).run();
  // A spawn failure may settle `done` before the caller awaits it (the recorder loads its logger
  // first): it is the caller's to report, never an unhandled rejection.
  done.catch(() => {});
  return { sessionId, journal: journal.path, done };
}

/** The session's journal, with its header: the server's command (secrets masked) and where the
 * proxy runs. */
function openStdioJournal(options: StdioRecordOptions, sessionId: string, startedAt: string, t0: number): JournalSink {
  return (options.openJournal ?? openSessionJournal)(
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
}
