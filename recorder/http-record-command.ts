import { createLogger, type Logger } from '../lib/log.js';
import { startHttpRecorder } from './http-recorder.js';
import type { HttpModeArgs, RecordArgs } from './record-args.js';
import type { SaveResult, WriteScope } from './record-run.js';
import type { ExitStatus } from './stdio-recorder.js';
import type { LiveWorkerSpec } from '../lib/live-observer.js';
import type { JournalSink } from '../lib/cassette/journal.js';
import type { CaptureRuntime } from './capture/capture-runtime.js';
import type { OpenJournal } from './rotation/dir-recording.js';

/** What an HTTP recording is run with: the parsed arguments, how its session is saved, and what
 * record-run.ts set up for it (one object: the parts are optional, and named at the call). */
export interface HttpRecordRun {
  args: RecordArgs;
  http: HttpModeArgs;
  save: (args: RecordArgs, journal: string, logger: Logger, atWrite?: WriteScope) => Promise<SaveResult>;
  live?: LiveWorkerSpec | undefined;
  openJournal?: OpenJournal | undefined;
  /** The logger record-run.ts made already (`--cassette-dir`); else one is made here. */
  logger?: Logger | undefined;
  capture?: CaptureRuntime | undefined;
}

/**
 * `record --upstream <url>`: runs the HTTP proxy until SIGINT or SIGTERM, then writes the
 * cassette. The first line on stdout is the URL to give clients instead of the upstream's.
 */
export async function runHttpRecord(run: HttpRecordRun): Promise<ExitStatus> {
  const { args, http, save, live, openJournal, logger: given, capture } = run;
  const logger =
    given ?? (await createLogger({ level: args.logLevel, format: args.logFormat, ...(args.logFile ? { file: args.logFile } : {}) }));
  await capture?.serve(); // before the proxy listens: a metrics address that fails is a usage error
  if (capture?.metricsUrl) logger.info({ metrics: capture.metricsUrl }, 'serving metrics');
  // Before the proxy listens too: a bad OTEL_EXPORTER_OTLP_PROTOCOL is a usage error.
  await capture?.startOtel((message) =>
    logger.warn({ err: message }, 'OpenTelemetry export failed; traffic goes on, spans are counted as lost'),
  );
  const recorder = await startHttpRecorder({
    cassette: args.cassette,
    upstream: http.upstream,
    listenHost: http.listenHost,
    listenPort: http.listenPort,
    redactHeaders: http.redactHeaders,
    maxBodyBytes: http.maxBodyBytes,
    allowHosts: http.allowHosts,
    allowOrigins: http.allowOrigins,
    logger,
    ...(args.label ? { label: args.label } : {}),
    ...(live ? { live } : {}),
    ...(capture ? { onJournal: (journal: JournalSink, sessionId: string) => capture.attach(journal, sessionId) } : {}),
    ...(openJournal ? { openJournal } : {}),
  });
  // Listen for the signals before printing the URL: a supervisor that stops us as soon as it reads
  // the URL would otherwise meet Node's default action (an exit by signal, nothing saved).
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (s: NodeJS.Signals): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(s);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stdout.write(`${recorder.url}\n`);
  logger.info({ url: recorder.url, upstream: http.upstream.href, cassette: args.cassette }, 'recording Streamable HTTP; stop with Ctrl-C');
  const signal = await stopped;
  logger.info({ signal }, 'stopping');
  const { validationFailed, live: outcome } = await recorder.close();
  // What live validation left to the cassette write: everything if it shed; with several workers,
  // the rules that compare the sessions of the run.
  const atWrite = !outcome ? undefined : !outcome.complete ? 'all' : outcome.workers > 1 ? 'cross-session' : undefined;
  const saved = await save(args, recorder.journal, logger, atWrite);
  await capture?.close();
  const otel = capture?.otelSummary();
  if (otel) logger.info({ otel }, 'OpenTelemetry spans sent');
  // --fail-on: violations at that level make the run fail (as stored, when judged at write).
  const failed = saved.failed ?? validationFailed;
  return { code: failed ? 1 : 0, signal: null, ...(saved.saved ? {} : { notSaved: true }) };
}
