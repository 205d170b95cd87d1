/**
 * The live validator's worker thread: frames the stdio traffic the proxy streams to it, judges
 * every frame with the session's validator, raises alerts, and sends the violations back for the
 * journal. Runs off the proxy's forwarding thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { StdioFramer } from '../lib/framing/stdio-framer.js';
import type { LiveRef, LiveWorkerInput, LiveWorkerOutput } from '../lib/live-observer.js';
import { readLiveJournal, type LiveJournalInput } from '../lib/live-journal.js';
import { createLogger, type LogFormat } from '../lib/log.js';
import type { Severity, Violation } from '../lib/violation.js';
import { createLiveValidator } from './live.js';
import { HttpLiveFramer } from './live-http.js';
import { SessionDigest } from './recording.js';
import type { TransportKind } from '../lib/cassette/cassette.js';

interface Settings {
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
});
const session = { id: settings.sessionId, transport: 'stdio' as const };
/** HTTP: where each message of each session key sits, to place session-end verdicts. */
const refs = new Map<string, Map<number, LiveRef>>();
let found: (Violation & { ref?: LiveRef })[] = [];
const tooLarge = (seq: number, bytes: number): void =>
  logger.warn(`message #${seq} (${bytes} bytes) is too large to validate live; it is recorded as is`);
const framer = new StdioFramer(
  (msg) => {
    found.push(...validator.message(session, msg));
  },
  LIVE_MAX_FRAME,
  tooLarge,
);

// HTTP: one validator per session key; seq counts per key until the fold renumbers via `ref`.
const seqs = new Map<string, number>();
const target = settings.target ? { target: settings.target } : {};
// HTTP: what the cross-session rules need of each session, judged when the run ends.
const digests = new Map<string, SessionDigest>();
const digestOf = (key: string): SessionDigest => {
  let d = digests.get(key);
  if (!d) digests.set(key, (d = new SessionDigest(key, 'streamable-http', settings.target, 0)));
  return d;
};
/** HTTP: the next seq of session `key`, as the cassette fold will number its messages. */
const nextSeq = (key: string, ref: LiveRef): number => {
  const seq = (seqs.get(key) ?? 0) + 1;
  seqs.set(key, seq);
  if (!refs.has(key)) refs.set(key, new Map());
  refs.get(key)!.set(seq, ref);
  return seq;
};
const httpFramer = new HttpLiveFramer(
  (key, exchange, msg, ref) => {
    msg.seq = nextSeq(key, ref);
    digestOf(key).add(msg, exchange, ref);
    for (const v of validator.message({ id: key, transport: 'streamable-http', ...target }, msg, exchange)) found.push({ ...v, ref });
  },
  {
    onExchangeEnd: (key, exchange, first) => {
      digestOf(key).exchange(exchange);
      // Exchange-level verdicts point at the exchange's first message (not judged live when that
      // one was too large to parse: the exchange rules read it).
      if (!first) return;
      for (const v of validator.exchangeEnd({ id: key }, exchange, first)) found.push({ ...v, ref: { x: exchange.id, k: 0 } });
    },
    onBareExchangeEnd: (key, exchange) => {
      digestOf(key).exchange(exchange);
      // An exchange without messages (OAuth discovery): its verdicts point at the exchange itself.
      for (const v of validator.bareExchangeEnd({ id: key, transport: 'streamable-http', ...target }, exchange))
        found.push({ ...v, ref: { x: exchange.id, k: -1 } });
    },
    maxFrame: LIVE_MAX_FRAME,
    onSkip: (key, _exchange, bytes, ref) => tooLarge(nextSeq(key, ref), bytes),
  },
);

const send = (out: LiveWorkerOutput): void => port.postMessage(out);
/** Settles when the proxy will wait no longer for the last alerts. */
let stopWaiting: () => void = () => {};
const deadline = new Promise<void>((r) => (stopWaiting = r));

port.on('message', (batch: (LiveWorkerInput | LiveJournalInput)[]) => {
  let processed = 0;
  for (const input of batch) {
    if (input.type === 'chunk') {
      framer.push(input.channel, Buffer.from(input.data.buffer, input.data.byteOffset, input.data.byteLength), input.t);
      processed += input.data.byteLength;
    } else if (input.type === 'skip') {
      framer.skip(input.channel, input.n, input.t);
    } else if (input.type === 'end') {
      framer.end(input.channel, input.t);
    } else if (input.type === 'journal') {
      processed += readLiveJournal(input.bytes, (record) => httpFramer.push(record));
    } else if (input.type === 'deadline') {
      stopWaiting();
      return;
    } else if (input.type === 'record') {
      httpFramer.push(input.record);
      if (input.record.data) processed += input.record.data.byteLength;
    } else {
      framer.endAll();
      // Session-end verdicts: stdio ones carry their seq; HTTP ones are placed by their message.
      for (const v of validator.endSessions({ reason: 'exit', ...input.end })) {
        const ref = settings.transport === 'streamable-http' ? refs.get(v.session)?.get(v.seq) : undefined;
        if (settings.transport !== 'streamable-http') found.push(v);
        else if (ref) found.push({ ...v, ref });
      }
      // HTTP: the rules that compare the sessions of this run (each carries its message's ref).
      if (settings.transport === 'streamable-http') found.push(...validator.endRecording([...digests.values()]));
      send({ type: 'violations', violations: found, processed });
      found = [];
      const { failed, delivered } = validator.close(deadline);
      send({ type: 'verdict', failed });
      void delivered.then(() => send({ type: 'done' }));
      return;
    }
  }
  send({ type: 'violations', violations: found, processed });
  found = [];
});
