import type { HttpExchange } from '../lib/cassette/cassette.js';
import type { LiveObserver, LiveRef } from '../lib/live-observer.js';
import type { Logger } from '../lib/log.js';
import type { RecordedMessage } from '../lib/message.js';
import { SEVERITY_ORDER, type Severity, type Violation } from '../lib/violation.js';
import { AlertHub, summaryLines } from './alerts.js';
import type { SessionEndInfo, SessionValidator } from './engine.js';
import { LiveSessions, type LiveSession } from './live-sessions.js';
import { judgeRecording } from './recording.js';
import type { SessionDigest } from './session-digest.js';
import { RULES } from './rules/index.js';

export interface LiveValidatorOptions {
  logger: Logger;
  webhook?: string;
  exec?: string;
  failOn?: Severity;
  redact?: (text: string) => string;
  /** Alerts name their session (Streamable HTTP: many sessions a recording). */
  namesSession?: boolean;
}

/** The live validator's face: LiveObserver, with the HTTP exchange and session ends. */
export interface LiveValidator extends Omit<LiveObserver, 'message'> {
  /** Judges one frame of a session (LiveObserver.message). */
  message(session: LiveSession, msg: RecordedMessage, exchange?: HttpExchange): Violation[];
  /** HTTP: an exchange of this session is over; its exchange-level verdicts. */
  exchangeEnd(session: { id: string }, exchange: HttpExchange, first: RecordedMessage): Violation[];
  /** HTTP: an exchange that carried no message (OAuth discovery) is over; its verdicts (seq 0). */
  bareExchangeEnd(session: LiveSession & { transport: 'streamable-http' }, exchange: HttpExchange): Violation[];
  /** One session is over (a stateless HTTP exchange): its session-end verdicts; it is forgotten. */
  endSession(id: string, end?: SessionEndInfo): Violation[];
  /** The recording is over: the session-end verdicts of every session still open. */
  endSessions(end?: SessionEndInfo): Violation[];
  /** HTTP: the proxy run is over; the cross-session verdicts on its sessions (validators/recording.ts). */
  endRecording(sessions: readonly SessionDigest[]): (Violation & { ref?: LiveRef })[];
  /** What an open session holds per HTTP exchange (SessionValidator.retained), for diagnostics. */
  retained(id: string): SessionValidator['retained'] | undefined;
}

/** The validator as the proxy runs it: one SessionValidator per session, alerts as they occur,
 * a summary table at the end. A rule that throws is logged and the proxy goes on. */
export function createLiveValidator(options: LiveValidatorOptions): LiveValidator {
  const sessions = new LiveSessions(options.logger);
  const hub = new AlertHub({
    logger: options.logger,
    ...(options.webhook ? { webhook: options.webhook } : {}),
    ...(options.exec ? { exec: options.exec } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.namesSession ? { namesSession: true } : {}),
  });
  let worst: Severity | undefined;
  const emit = (found: Violation[], subject?: string): void => {
    for (const violation of found) {
      hub.emit(violation, subject);
      if (worst === undefined || SEVERITY_ORDER[violation.severity] > SEVERITY_ORDER[worst]) worst = violation.severity;
    }
  };
  /** A judgement whose verdicts are alerted; one that throws is logged and finds nothing: the
   * proxy forwards on. */
  const judged = (failure: string, judge: () => Violation[]): Violation[] => {
    try {
      const found = judge();
      emit(found);
      return found;
    } catch (err) {
      options.logger.error({ err }, `the live validator failed ${failure}; forwarding is not affected`);
      return [];
    }
  };
  return {
    message(session, msg, exchange?: HttpExchange) {
      try {
        const v = sessions.validatorFor(session, () => `message #${msg.seq}`, exchange);
        if (exchange) v.exchange(exchange);
        const found: Violation[] = v.check(msg);
        const s = sessions.subjectsOf(session.id);
        // Every violation check() returns points at this message.
        emit(found, msg.channel === 'stderr' ? undefined : s.of(msg));
        return found;
      } catch (err) {
        options.logger.error({ err }, 'the live validator failed on a message; forwarding is not affected');
        return [];
      }
    },
    exchangeEnd: (session, exchange, first) => judged('on an exchange', () => sessions.get(session.id)?.exchangeEnd(exchange, first) ?? []),
    bareExchangeEnd: (session, exchange) =>
      judged('on an exchange', () => sessions.validatorFor(session, () => `exchange ${exchange.id}`, exchange).bareExchangeEnd(exchange)),
    retained: (id) => sessions.get(id)?.retained,
    endSession(id, end) {
      const v = sessions.forget(id);
      if (!v) return [];
      return judged('at the end of a session', () => v.endSession(end));
    },
    endSessions: (end) => judged('at the end of the session', () => [...sessions.all()].flatMap((v) => v.endSession(end))),
    endRecording: (digests) =>
      judged('on the recording', () =>
        judgeRecording(digests, {
          rules: RULES,
          onRuleError: (rule, err) =>
            options.logger.error({ rule, err }, `rule ${rule} failed on the recording (a validator bug); validation goes on`),
        }),
      ),
    close(deadline) {
      // The summary and the verdict first: neither may wait for a slow or dead webhook.
      const table = hub.summary();
      if (table.length > 0) {
        // Through the logger, so --log-file keeps it off a stderr the host may be reading.
        options.logger.warn({ summary: table }, `spec violations seen in this session:\n${summaryLines(table)}`);
      }
      const failed = options.failOn !== undefined && worst !== undefined && SEVERITY_ORDER[worst] >= SEVERITY_ORDER[options.failOn];
      return { failed, delivered: hub.close(deadline).then(() => undefined) };
    },
  };
}
