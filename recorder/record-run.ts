import { CassetteError } from '../lib/errors.js';
import { checkCassetteTarget } from '../lib/cassette/target-check.js';
import { createLogger, type Logger } from '../lib/log.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import { liveValidationStats } from '../lib/live-stats.js';
import type { RecordedSession } from '../lib/cassette/cassette.js';
import { runStdioProxy, type ExitStatus } from './stdio-recorder.js';
import type { SpawnedServer } from './server-spawn.js';
import type { JournalFinish } from '../lib/cassette/journal.js';
import { ALERT_EXIT_WAIT_MS, LIVE_EXIT_WAIT_MS } from './live-tap.js';
import type { FinisherJob } from './finisher-job.js';
import { preloadExitWrite, writeAtExit, type ExitWrite } from './exit-write.js';
import { CaptureRuntime } from './capture/capture-runtime.js';
import { keepsSession } from './capture/sampling.js';
import type { RecordArgs } from './record-args.js';
import type { DirArgs } from './rotation/dir-args.js';
import type { DirRecording } from './rotation/dir-recording.js';
import { shellQuote } from '../lib/shell-quote.js';
export { recordArgsFrom, type RecordArgs, type HttpModeArgs } from './record-args.js';

/** Supplied by the composition root: the recorder itself knows nothing of validation. */
export interface RecordHooks {
  liveWorker?: (args: RecordArgs) => LiveWorkerSpec;
  /** The module of judgeAtWrite, for the fold workers of `--cassette-dir` (a file URL). */
  judgeAtWriteModule?: string;
  /** Judges at cassette write what live validation left undone (validators/judge-at-write.ts). */
  judgeAtWrite?: (
    sessions: RecordedSession[],
    scope: WriteScope,
    options: { logger: Logger; failOn?: 'error' | 'warning' },
  ) => Promise<{ judged: number; violations: number; failed: boolean }>;
}

/** What live validation left to the cassette write: every message (it shed), or the rules that
 * compare the sessions of an HTTP run (several workers each saw some of them). */
export type WriteScope = 'all' | 'cross-session';

/** `failed`: when verdicts were judged at write, whether they hold violations at --fail-on. */
export interface SaveResult {
  saved: boolean;
  failed?: boolean;
}

/** A `--cassette-dir` recording: its cassette directory, and its end, which is the save. */
interface DirRun {
  recording: DirRecording;
  finish: () => Promise<SaveResult>;
}

/** Where the logger is, once made: the directory's recording logs through it as cassettes close. */
interface LoggerSlot {
  logger?: Logger;
}

/** Runs a recording to its end and returns how the server ended. stdio: `server` is the server
 * when the bin spawned it already (recorder/server-spawn.ts). */
export async function runRecord(args: RecordArgs, hooks: RecordHooks = {}, server?: SpawnedServer): Promise<ExitStatus> {
  const capture = await CaptureRuntime.create(args.capture, args.http ? 'http' : 'stdio', args.http?.upstream);
  const slot: LoggerSlot = {};
  const dir = args.dir ? await startDir(args, args.dir, hooks, capture, slot) : undefined;
  // The cassette the sessions go into must take them: found now, on either transport, not once
  // the host is gone (a session recorded in full, then refused at its write).
  if (!dir && !args.overwrite) checkCassetteTarget(args.cassette);
  if (args.http) {
    const { runHttpRecord } = await import('./http-record-command.js');
    const live = args.validate && hooks.liveWorker ? hooks.liveWorker(args) : undefined;
    if (dir)
      slot.logger = await createLogger({ level: args.logLevel, format: args.logFormat, ...(args.logFile ? { file: args.logFile } : {}) });
    return runHttpRecord({
      args,
      http: args.http,
      save: dir ? dir.finish : (a, journal, log, atWrite) => saveSession({ args: a, journal, logger: log, atWrite, hooks, capture }),
      live,
      openJournal: dir?.recording.openJournal,
      logger: slot.logger,
      capture,
    });
  }
  return runStdioRecord(args, hooks, capture, slot, dir, server);
}

/** A directory's cassettes are folded as they close (recorder/rotation/); its end is the save. */
async function startDir(
  args: RecordArgs,
  dirArgs: DirArgs,
  hooks: RecordHooks,
  capture: CaptureRuntime,
  slot: LoggerSlot,
): Promise<DirRun> {
  const folds = (await import('./rotation/dir-fold.js')).dirFold({
    capture,
    ...(args.validate && hooks.judgeAtWriteModule ? { judgeModule: hooks.judgeAtWriteModule } : {}),
    http: Boolean(args.http),
    ...(args.failOn ? { failOn: args.failOn } : {}),
  });
  const recording = (await import('./rotation/dir-recording.js')).startDirRecording(dirArgs, () => slot.logger, {
    fold: folds.fold,
    summary: () => capture.summary(),
    metrics: capture.metrics,
  });
  const finish = async (): Promise<SaveResult> => {
    const saved = await recording.finish();
    const failed = folds.failed();
    return { saved, ...(failed !== undefined ? { failed } : {}) };
  };
  return { recording, finish };
}

/** The stdio recording: the proxy with its server, then the session's write. */
async function runStdioRecord(
  args: RecordArgs,
  hooks: RecordHooks,
  capture: CaptureRuntime,
  slot: LoggerSlot,
  dir: DirRun | undefined,
  server: SpawnedServer | undefined,
): Promise<ExitStatus> {
  // Under a host (stderr a pipe or a file), the proxy exits with its server and writes the
  // cassette only when that is cheap (recorder/exit-write.ts). It waits for every verdict and
  // writes the cassette itself when the exit status depends on the verdicts (--fail-on), when the
  // spans it sends carry them (--otel, which holds the exit for the export anyway), or when a
  // person watches at a terminal, where "session saved" is worth the wait.
  const patient = args.failOn !== undefined || args.capture.otel !== undefined || process.stderr.isTTY === true;
  const alertSinks = args.alertWebhook !== undefined || args.alertExec !== undefined;
  const proxy = runStdioProxy({
    cassette: args.cassette,
    command: args.command,
    ...(server ? { server } : {}),
    shutdownGraceMs: args.shutdownGraceMs,
    redactPatterns: args.redactPatterns,
    ...(args.validate && hooks.liveWorker ? { live: hooks.liveWorker(args) } : {}),
    warn: (message) => slot.logger?.warn(message),
    ...(args.label ? { label: args.label } : {}),
    onJournal: (journal, sessionId) => capture.attach(journal, sessionId),
    ...(dir ? { openJournal: dir.recording.openJournal } : {}),
    finish: journalFinish(args),
    ...(patient ? {} : { liveWaitMs: LIVE_EXIT_WAIT_MS, alertWaitMs: alertSinks ? ALERT_EXIT_WAIT_MS : 0 }),
  });
  // Everything below runs after the server was spawned and its pipes connected.
  const logger = await createLogger({ level: args.logLevel, format: args.logFormat, ...(args.logFile ? { file: args.logFile } : {}) });
  slot.logger = logger;
  logger.info({ cassette: args.cassette, session: proxy.sessionId }, 'recording stdio session');
  await startSidecars(capture, logger);
  if (!patient) preloadExitWrite();
  const status = await serverEnd(proxy.done, args.command);
  if (!patient) return exitWithFinisher(args, proxy, status, capture, logger, dir);
  return writeBeforeExit(args, hooks, proxy.journal, status, capture, logger, dir);
}

/** Metrics and the --ui view never stop the traffic: the server runs already, so a failure is
 * logged, not fatal. Nor does OpenTelemetry: spans heard before the SDK loads are held for it. */
async function startSidecars(capture: CaptureRuntime, logger: Logger): Promise<void> {
  await capture.serve().then(
    () => capture.metricsUrl && logger.info({ metrics: capture.metricsUrl }, 'serving metrics'),
    (err: Error) => logger.error({ err: err.message }, 'metrics or live view not served'),
  );
  await capture
    .startOtel((message) => logger.warn({ err: message }, 'OpenTelemetry export failed; traffic goes on, spans are counted as lost'))
    .then(
      () => capture.otel && logger.info({}, 'sending OpenTelemetry spans and metrics over OTLP'),
      (err: Error) => logger.error({ err: err.message }, 'OpenTelemetry not started'),
    );
}

/** How the server ended; a server that could not be started is our typed error. */
async function serverEnd(done: Promise<ExitStatus>, command: string[]): Promise<ExitStatus> {
  try {
    return await done;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'command not found' : e.code === 'EACCES' ? 'permission denied' : e.message;
    throw new CassetteError(
      'MCPC_SPAWN_FAILED',
      `cannot start the server ${JSON.stringify(command[0])} (${why}); check the command after \`--\` and the PATH it is run with`,
      { cause: err },
    );
  }
}

/** Under a host: the cassette is written now when that is cheap, else by the finisher. */
async function exitWithFinisher(
  args: RecordArgs,
  proxy: { sessionId: string; journal: string },
  status: ExitStatus,
  capture: CaptureRuntime,
  logger: Logger,
  dir: DirRun | undefined,
): Promise<ExitStatus> {
  // --sample decided first: the summary of a directory's recording counts it.
  sampleAtExit(args, proxy.sessionId, status, capture);
  // The journal holds every byte forwarded, and how to fold it: written now when that is cheap,
  // else by the finisher (recorder/exit-write.ts).
  const job: FinisherJob = dir
    ? { dir: args.dir!.dir, journals: dir.recording.handOff(), retention: args.dir!.retention }
    : { cassette: args.cassette, journals: [proxy.journal] };
  const hold = (): void => {};
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, hold);
  const exit = await writeAtExit(job, args.logFile, !args.validate || !status.liveIncomplete).finally(() => {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, hold);
  });
  logExitWrite(logger, exit, capture, Boolean(dir));
  // Saved: every byte is in the journal, whatever happens to this process or the finisher.
  logger.info(
    {
      cassette: args.cassette,
      sessions: [proxy.sessionId],
      ...(exit.finisher !== undefined ? { finisher: exit.finisher } : {}),
      ...capture.summary(),
    },
    'session saved',
  );
  void capture.close();
  return status.validationFailed && status.code === 0 && status.signal === null ? { ...status, code: 1 } : status;
}

/** Patient (--fail-on, --otel, a terminal): the cassette is written before the exit, and its
 * verdicts decide the exit code. */
async function writeBeforeExit(
  args: RecordArgs,
  hooks: RecordHooks,
  journal: string,
  status: ExitStatus,
  capture: CaptureRuntime,
  logger: Logger,
  dir: DirRun | undefined,
): Promise<ExitStatus> {
  // A host that signals us now must not stop the cassette write halfway: we exit right after it.
  const hold = (): void => {};
  for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(s, hold);
  let saved: SaveResult;
  try {
    saved = dir
      ? await dir.finish()
      : await saveSession({ args, journal, logger, atWrite: status.liveIncomplete ? 'all' : undefined, hooks, capture });
  } finally {
    for (const s of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.off(s, hold);
    await capture.close();
    const otel = capture.otelSummary();
    if (otel) logger.info({ otel }, 'OpenTelemetry spans sent');
  }
  if (!saved.saved) return { ...status, notSaved: true };
  // --fail-on turns a clean server exit into a failure when violations were seen (as stored,
  // when they were judged at write).
  const failed = saved.failed ?? status.validationFailed;
  if (failed && status.code === 0 && status.signal === null) return { ...status, code: 1 };
  return status;
}

/** What the write at exit did, in the lines a directory's recording gives as each cassette closes. */
function logExitWrite(logger: Logger, exit: ExitWrite, capture: CaptureRuntime, dir: boolean): void {
  if (!dir) return;
  for (const r of exit.results) {
    if (r.sessions.length === 0) logger.info({ cassette: r.cassette }, 'cassette not written: --sample left every session out');
    else
      logger.info(
        { cassette: r.cassette, sessions: r.sessions.length, messages: r.sessions.reduce((n, x) => n + x.messages.length, 0) },
        'cassette closed',
      );
  }
  for (const p of exit.pruned) {
    capture.metrics.count('mcp_cassette_cassettes_pruned_total', { rule: p.why });
    logger.info({ cassette: p.path, bytes: p.bytes, by: p.why }, 'cassette deleted by the retention policy');
  }
  if (exit.leftAlone) logger.warn({ files: exit.leftAlone.files }, exit.leftAlone.message);
}

/**
 * --sample, decided at the proxy's exit as the cassette write will decide it (by the hash of the
 * session id, and the worst verdict: known here when live validation judged every message), so
 * that the end-of-session summary and the metrics count it. When live validation did not judge
 * everything, the finisher decides once it has judged the session.
 */
function sampleAtExit(args: RecordArgs, sessionId: string, status: ExitStatus, capture: CaptureRuntime): void {
  const s = args.capture.sampling;
  if (!s) return;
  // Decided now when the verdicts still to come cannot change it: kept by the hash, kept for a
  // verdict seen already (more verdicts never leave a session out), or no verdict keeps any.
  const judgedAll = !args.validate || !status.liveIncomplete;
  const kept = keepsSession(sessionId, status.liveWorst, s);
  if (!kept && !judgedAll && s.keepViolations !== 'none') return;
  const messages = status.frames ?? liveValidationStats().judgedLive;
  capture.addSampling({
    kept: kept ? 1 : 0,
    keptForViolations: kept === 'violation' ? 1 : 0,
    sessionsOut: kept ? 0 : 1,
    messagesOut: kept ? 0 : messages,
  });
}

/** What the journal header keeps for whoever settles it (lib/cassette/settle.ts). */
function journalFinish(args: RecordArgs): JournalFinish {
  return {
    ...(args.overwrite ? { overwrite: true } : {}),
    validate: args.validate,
    ...(args.failOn ? { failOn: args.failOn } : {}),
    ...(args.capture.sampling ? { sampling: args.capture.sampling } : {}),
  };
}

/** Folds the journal into the cassette; false (and the recover command on stderr) when that
 * failed, so the caller can end with SESSION_NOT_SAVED_EXIT. */
export async function saveSession(save: {
  args: RecordArgs;
  journal: string;
  logger: Logger;
  atWrite?: WriteScope | undefined;
  hooks?: RecordHooks;
  capture?: CaptureRuntime;
}): Promise<SaveResult> {
  const { args, journal, logger, atWrite, hooks = {}, capture } = save;
  const { finishJournal } = await import('./finish-session.js');
  const stats = liveValidationStats();
  let failed: boolean | undefined;
  const judge = hooks.judgeAtWrite;
  try {
    const select = capture ? (s: RecordedSession[]) => capture.select(s) : undefined;
    const sessions = await finishJournal(args.cassette, journal, {
      overwrite: args.overwrite,
      ...(select ? { select } : {}),
      ...(atWrite && judge
        ? {
            judge: async (sessions: RecordedSession[]) => {
              const messages = sessions.reduce((n, s) => n + s.messages.length, 0);
              const r = await judge(sessions, atWrite, { logger, ...(args.failOn ? { failOn: args.failOn } : {}) });
              failed = r.failed;
              stats.judgedAtWrite += r.judged;
              stats.violationsAtWrite += r.violations;
              if (atWrite === 'all') {
                // What the live validator did not judge: counted now that the messages are known.
                const shed = Math.max(0, messages - stats.judgedLive);
                stats.shedMessages += shed;
                capture?.metrics.count('mcp_cassette_work_shed_total', { what: 'messages' }, shed);
                logger.warn(
                  {
                    shedMessages: shed,
                    judgedLive: Math.min(messages, stats.judgedLive),
                    judgedAtWrite: r.judged,
                    shedBytes: stats.shedBytes,
                  },
                  `live validation shed ${shed} of ${messages} messages; all ${r.judged} were judged when the cassette was written (${r.violations} violations stored)`,
                );
              }
            },
          }
        : {}),
    });
    logger.info(
      {
        cassette: args.cassette,
        sessions: sessions.map((s) => s.id),
        messages: sessions.reduce((n, s) => n + s.messages.length, 0),
        ...capture?.summary(),
      },
      'session saved',
    );
    return { saved: true, ...(failed !== undefined ? { failed } : {}) };
  } catch (err) {
    logger.error({ err, journal }, 'session not saved');
    process.stderr.write(
      `mcp-cassette: the session was not saved: ${(err as Error).message}. ` +
        `Every message is kept in ${journal}; once the cassette is fixed (or moved away), run:\n` +
        `  mcp-cassette recover ${shellQuote(args.cassette)}\n`,
    );
    return { saved: false };
  }
}

/** What `record` needs from the composition root: the live worker to start, and how to end the
 * process the way the server ended (exit code, signal, or 73 when the session was not saved). */
export interface RecordContext {
  finishRecord(status: ExitStatus): Promise<void>;
  recordHooks: RecordHooks;
}
