/**
 * The live validator's worker thread: frames the stdio traffic the proxy streams to it, judges
 * every frame with the session's validator, raises alerts, and sends the violations back for the
 * journal. Runs off the proxy's forwarding thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StdioFramer } from '../lib/framing/stdio-framer.js';
import type { LiveRef, LiveWorkerInput, LiveWorkerOutput } from '../lib/live-observer.js';
import { readLiveJournal, type LiveJournalInput } from '../lib/live-journal.js';
import { readLiveStdio, type StdioChannel, type StdioOp } from '../lib/live-stdio.js';
import { createLogger, type LogFormat } from '../lib/log.js';
import { textRedactor } from '../lib/payload-redact.js';
import type { Severity, Violation } from '../lib/violation.js';
import { createLiveValidator } from './live.js';
import { HttpLiveFramer } from './live-http.js';
import { SessionDigest } from './session-digest.js';
import { LiveRefs, REFS_KEPT } from './live-refs.js';
import type { TransportKind } from '../lib/cassette/cassette.js';
import type { HttpSessionName } from '../lib/cassette/http-session-ids.js';

interface Settings {
  /** The journal's session id: the stdio session's id; over HTTP, what the ids of the sessions
   * begin with (lib/cassette/http-session-ids.ts). */
  sessionId: string;
  transport?: TransportKind;
  logLevel: string;
  logFormat?: LogFormat;
  /** Whether pretty lines are coloured, decided by the proxy (this thread's stderr is no TTY). */
  colour?: boolean;
  logFile?: string;
  failOn?: Severity;
  webhook?: string;
  exec?: string;
  /** HTTP: the recorded server (its URL), for the rules that depend on where it runs. */
  target?: { url: string; listen: string };
  /** Frames (stdio lines, HTTP bodies and SSE events) above this size are recorded but not
   * validated live (set by the proxy's LiveTap, which sends only the size of such HTTP bytes). */
  maxFrame: number;
  /** The recorder's payload redaction, for the alerts (`--redact-value` sources, secret shapes). */
  redact?: { values: string[]; secrets: boolean };
  /** This worker's place among `lanes` workers (`--validate-workers`): with more than one, the
   * cross-session rules are judged when the cassette is written, where every session is known. */
  lane?: number;
  lanes?: number;
  /** `record --cassette-dir`: the cross-session rules are judged as each cassette is written
   * (each file of a run that never ends is judged on its own), so this worker keeps no digests. */
  crossSessionAtWrite?: boolean;
}

const settings = workerData as Settings;
const LIVE_MAX_FRAME = settings.maxFrame;
const port = parentPort!;
const logger = await createLogger({
  level: settings.logLevel,
  format: settings.logFormat ?? 'json',
  ...(settings.colour !== undefined ? { colour: settings.colour } : {}),
  ...(settings.logFile ? { file: settings.logFile } : {}),
});
const validator = createLiveValidator({
  logger,
  ...(settings.failOn ? { failOn: settings.failOn } : {}),
  ...(settings.webhook ? { webhook: settings.webhook } : {}),
  ...(settings.exec ? { exec: settings.exec } : {}),
  ...(settings.redact ? { redact: textRedactor(settings.redact) } : {}),
  ...(settings.transport === 'streamable-http' ? { namesSession: true } : {}),
});
const session = { id: settings.sessionId, transport: 'stdio' as const };
/** HTTP: where each message of each session sits, to place session-end verdicts. */
const refs = new Map<string, LiveRefs>();
/** Session-end verdicts about a message older than the places kept (LiveRefs): said once at the end. */
let unplaced = 0;
let found: (Violation & { ref?: LiveRef })[] = [];
/** Messages judged since the last report. */
let judged = 0;
const tooLarge = (seq: number, bytes: number): void =>
  logger.warn(`message #${seq} (${bytes} bytes) is too large to validate live; it is recorded as is`);
const framer = new StdioFramer(
  (msg) => {
    judged++;
    const v = validator.message(session, msg);
    if (v.length > 0) found.push(...v);
  },
  LIVE_MAX_FRAME,
  tooLarge,
);

// HTTP: one validator per session, by its cassette id; seq counts per session as the fold will.
const seqs = new Map<string, number>();
const target = settings.target ? { target: settings.target } : {};
// HTTP: what the cross-session rules need of each session, judged when the run ends (by the
// cassette write instead when several workers each see only some of the sessions).
const crossSession = (settings.lanes ?? 1) <= 1 && !settings.crossSessionAtWrite;
const digests = new Map<string, SessionDigest>();
const digestOf = (key: string): SessionDigest => {
  let d = digests.get(key);
  if (!d) digests.set(key, (d = new SessionDigest(key, 'streamable-http', settings.target, 0)));
  return d;
};
/** HTTP: the id each Mcp-Session-Id's session has now (a new --cassette-dir file names it anew:
 * what was kept to place the verdicts on its messages in the cassette before is let go). */
const current = new Map<string, string>();
const follow = (session: HttpSessionName): void => {
  const sid = session.mcpSessionId;
  const before = sid === undefined ? undefined : current.get(sid);
  if (sid === undefined || before === session.id) return;
  if (before !== undefined) {
    refs.delete(before);
    seqs.delete(before);
  }
  current.set(sid, session.id);
};
/** HTTP: the next seq of session `key` (its id), as the cassette fold will number its messages. */
const nextSeq = (key: string, ref: LiveRef): number => {
  const seq = (seqs.get(key) ?? 0) + 1;
  seqs.set(key, seq);
  let keyRefs = refs.get(key);
  if (!keyRefs) refs.set(key, (keyRefs = new LiveRefs()));
  keyRefs.set(seq, ref);
  return seq;
};
/**
 * HTTP: a stateless exchange is a session of its own, over when the exchange is: its session-end
 * verdicts are judged now, as the end of the recording would judge them (`reason: 'exit'`, all an
 * HTTP run tells), and what the worker kept for it is let go. Keeping a validator per exchange
 * until the end grew the worker's memory with every request, and its garbage collection with it.
 */
function endStateless(session: HttpSessionName): void {
  if (session.mcpSessionId !== undefined) return;
  const key = session.id;
  const keyRefs = refs.get(key);
  for (const v of validator.endSession(key, { reason: 'exit' })) {
    const ref = keyRefs?.get(v.seq);
    if (ref) found.push({ ...v, ref });
  }
  refs.delete(key);
  seqs.delete(key);
}

/** HTTP: the session as the live validator takes it. */
const httpSession = (s: HttpSessionName) =>
  ({
    id: s.id,
    transport: 'streamable-http',
    ...(s.mcpSessionId !== undefined ? { mcpSessionId: s.mcpSessionId } : {}),
    ...target,
  }) as const;

const httpFramer = new HttpLiveFramer(
  (session, exchange, msg, ref) => {
    follow(session);
    msg.seq = nextSeq(session.id, ref);
    judged++;
    if (crossSession) digestOf(session.id).add(msg, exchange, ref);
    for (const v of validator.message(httpSession(session), msg, exchange)) found.push({ ...v, ref });
  },
  {
    sessionId: settings.sessionId,
    onExchangeEnd: (session, exchange, first) => {
      if (crossSession) digestOf(session.id).exchange(exchange);
      // Exchange-level verdicts point at the exchange's first message (not judged live when that
      // one was too large to parse: the exchange rules read it).
      if (first)
        for (const v of validator.exchangeEnd({ id: session.id }, exchange, first)) found.push({ ...v, ref: { x: exchange.id, k: 0 } });
      endStateless(session);
    },
    onBareExchangeEnd: (session, exchange) => {
      if (crossSession) digestOf(session.id).exchange(exchange);
      // An exchange without messages (OAuth discovery): its verdicts point at the exchange itself.
      for (const v of validator.bareExchangeEnd(httpSession(session), exchange)) found.push({ ...v, ref: { x: exchange.id, k: -1 } });
      endStateless(session);
    },
    maxFrame: LIVE_MAX_FRAME,
    onSkip: (session, _exchange, bytes, ref) => {
      follow(session);
      tooLarge(nextSeq(session.id, ref), bytes);
    },
    onContinued: (before) => {
      // A stateless exchange's session in the old file ends there; its verdicts can no longer be
      // stored (that cassette is closed), they are alerted.
      if (before.mcpSessionId !== undefined) return;
      validator.endSession(before.id, { reason: 'exit' });
      refs.delete(before.id);
      seqs.delete(before.id);
    },
    onAgain: (session, _exchange, ref, msg) => {
      follow(session);
      const seq = nextSeq(session.id, ref);
      if (msg) msg.seq = seq;
    },
  },
);

/** stdio: one operation of a batch (lib/live-stdio.ts). */
const onStdio = (op: StdioOp, channel: StdioChannel, t: number, n: number, data: Buffer | undefined): void => {
  if (op === 'chunk') framer.push(channel, data!, t);
  else if (op === 'skip') framer.skip(channel, n, t);
  else framer.end(channel, t);
};

const send = (out: LiveWorkerOutput): void => port.postMessage(out);
/** Settles when the proxy will wait no longer for the last alerts. */
let stopWaiting: () => void = () => {};
const deadline = new Promise<void>((r) => (stopWaiting = r));

port.on('message', (batch: (LiveWorkerInput | LiveJournalInput)[]) => {
  let processed = 0;
  for (const input of batch) {
    if (input.type === 'stdio') {
      processed += readLiveStdio(input.bytes, onStdio);
    } else if (input.type === 'journal') {
      processed += readLiveJournal(input.bytes, (record) => httpFramer.push(record));
    } else if (input.type === 'deadline') {
      stopWaiting();
      return;
    } else {
      framer.endAll();
      // Session-end verdicts: stdio ones carry their seq; HTTP ones are placed by their message.
      for (const v of validator.endSessions({ reason: 'exit', ...input.end })) {
        const ref = settings.transport === 'streamable-http' ? refs.get(v.session)?.get(v.seq) : undefined;
        if (settings.transport !== 'streamable-http') found.push(v);
        else if (ref) found.push({ ...v, ref });
        else unplaced++;
      }
      if (unplaced > 0)
        logger.warn(
          { unplaced },
          `${unplaced} session-end verdicts point at messages older than the latest ${REFS_KEPT} of their session and are not in the cassette; run validate on the cassette to judge the session whole`,
        );
      // HTTP: the rules that compare the sessions of this run (each carries its message's ref).
      if (settings.transport === 'streamable-http' && crossSession) found.push(...validator.endRecording([...digests.values()]));
      send({ type: 'violations', violations: found, processed, judged });
      judged = 0;
      found = [];
      const { failed, delivered } = validator.close(deadline);
      send({ type: 'verdict', failed });
      void delivered.then(() => send({ type: 'done' }));
      return;
    }
  }
  send({ type: 'violations', violations: found, processed, judged });
  found = [];
  judged = 0;
});

// Loaded: the proxy knows from now on that what it hands over is judged while the session runs.
logger.debug({}, 'live validation ready');
send({ type: 'ready' });
