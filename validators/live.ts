import type { HttpExchange } from '../lib/cassette/cassette.js';
import type { LiveObserver, LiveRef } from '../lib/live-observer.js';
import type { Logger } from '../lib/log.js';
import type { RecordedMessage } from '../lib/message.js';
import { SEVERITY_ORDER, type Severity, type Violation } from '../lib/violation.js';
import { AlertSubjects } from './alert-subjects.js';
import { AlertHub, summaryLines } from './alerts.js';
import { SessionValidator, type SessionEndInfo } from './engine.js';
import { judgeRecording } from './recording.js';
import type { SessionDigest } from './session-digest.js';
import { RULES } from './rules/index.js';
import { ServerContexts } from './server-context.js';

export interface LiveValidatorOptions {
  logger: Logger;
  webhook?: string;
  exec?: string;
  failOn?: Severity;
  redact?: (text: string) => string;
  /** Alerts name their session (Streamable HTTP: many sessions a recording). */
  namesSession?: boolean;
}

/** A session as the live validator takes it; over HTTP, with the Mcp-Session-Id of its exchanges
 * (none: a stateless exchange, a session of its own that shares the server's context). */
type LiveSession = ConstructorParameters<typeof SessionValidator>[0] & { mcpSessionId?: string };

/** The validator as the proxy runs it: one SessionValidator per session, alerts as they occur,
 * a summary table at the end. A rule that throws is logged and the proxy goes on. */
export function createLiveValidator(options: LiveValidatorOptions): Omit<LiveObserver, 'message'> & {
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
} {
  const sessions = new Map<string, SessionValidator>();
  const hub = new AlertHub({
    logger: options.logger,
    ...(options.webhook ? { webhook: options.webhook } : {}),
    ...(options.exec ? { exec: options.exec } : {}),
    ...(options.redact ? { redact: options.redact } : {}),
    ...(options.namesSession ? { namesSession: true } : {}),
  });
  let worst: Severity | undefined;
  const subjects = new Map<string, AlertSubjects>();
  const emit = (found: Violation[], subject?: string): void => {
    for (const violation of found) {
      hub.emit(violation, subject);
      if (worst === undefined || SEVERITY_ORDER[violation.severity] > SEVERITY_ORDER[worst]) worst = violation.severity;
    }
  };
  // HTTP: the stateless exchanges that reach the same upstream as the same caller share what the
  // server has shown of itself (the offline validator replays them in the same order).
  const contexts = new ServerContexts();
  // HTTP sessions by Mcp-Session-Id: the id each is judged under now, and the session its
  // validator was given (the object it reports with).
  const bySid = new Map<string, string>();
  const judgedAs = new Map<string, { id: string }>();
  /** `record --cassette-dir`: a session that goes on in a new cassette is named by that cassette's
   * id from then on; it is judged on as the one session it is (what it showed before still counts,
   * and what is said once is not said again), under the new id. */
  const renamed = (session: LiveSession): SessionValidator | undefined => {
    const before = session.mcpSessionId === undefined ? undefined : bySid.get(session.mcpSessionId);
    const v = before === undefined ? undefined : sessions.get(before);
    if (before === undefined || !v) return undefined;
    sessions.delete(before);
    sessions.set(session.id, v);
    const judged = judgedAs.get(before)!;
    judged.id = session.id;
    judgedAs.delete(before);
    judgedAs.set(session.id, judged);
    const s = subjects.get(before);
    subjects.delete(before);
    if (s) subjects.set(session.id, s);
    bySid.set(session.mcpSessionId!, session.id);
    return v;
  };
  const validatorFor = (session: LiveSession, where: () => string, exchange?: HttpExchange): SessionValidator => {
    let v = sessions.get(session.id) ?? renamed(session);
    if (!v) {
      const { mcpSessionId, ...judged } = session;
      const stateless = session.transport === 'streamable-http' && mcpSessionId === undefined;
      const shared = exchange && stateless ? contexts.for(session.target, exchange) : undefined;
      v = new SessionValidator(
        judged,
        {
          rules: RULES,
          // Live traffic: each exchange's messages all come before its end.
          forgetEndedExchanges: true,
          onRuleError: (rule, err) =>
            options.logger.error({ rule, err }, `rule ${rule} failed on ${where()} (a validator bug); validation goes on`),
        },
        shared,
      );
      sessions.set(session.id, v);
      if (mcpSessionId !== undefined) {
        bySid.set(mcpSessionId, session.id);
        judgedAs.set(session.id, judged);
      }
    }
    return v;
  };
  return {
    message(session, msg, exchange?: HttpExchange) {
      try {
        const v = validatorFor(session, () => `message #${msg.seq}`, exchange);
        if (exchange) v.exchange(exchange);
        const found: Violation[] = v.check(msg);
        let s = subjects.get(session.id);
        if (!s) subjects.set(session.id, (s = new AlertSubjects()));
        // Every violation check() returns points at this message.
        emit(found, msg.channel === 'stderr' ? undefined : s.of(msg));
        return found;
      } catch (err) {
        options.logger.error({ err }, 'the live validator failed on a message; forwarding is not affected');
        return [];
      }
    },
    exchangeEnd(session, exchange, first) {
      try {
        const found = sessions.get(session.id)?.exchangeEnd(exchange, first) ?? [];
        emit(found);
        return found;
      } catch (err) {
        options.logger.error({ err }, 'the live validator failed on an exchange; forwarding is not affected');
        return [];
      }
    },
    bareExchangeEnd(session, exchange) {
      try {
        const found = validatorFor(session, () => `exchange ${exchange.id}`, exchange).bareExchangeEnd(exchange);
        emit(found);
        return found;
      } catch (err) {
        options.logger.error({ err }, 'the live validator failed on an exchange; forwarding is not affected');
        return [];
      }
    },
    retained: (id) => sessions.get(id)?.retained,
    endSession(id, end) {
      const v = sessions.get(id);
      sessions.delete(id);
      subjects.delete(id);
      if (!v) return [];
      try {
        const found = v.endSession(end);
        emit(found);
        return found;
      } catch (err) {
        options.logger.error({ err }, 'the live validator failed at the end of a session; forwarding is not affected');
        return [];
      }
    },
    endSessions(end) {
      try {
        const found = [...sessions.values()].flatMap((v) => v.endSession(end));
        emit(found);
        return found;
      } catch (err) {
        options.logger.error({ err }, 'the live validator failed at the end of the session; forwarding is not affected');
        return [];
      }
    },
    endRecording(digests) {
      try {
        const found = judgeRecording(digests, {
          rules: RULES,
          onRuleError: (rule, err) =>
            options.logger.error({ rule, err }, `rule ${rule} failed on the recording (a validator bug); validation goes on`),
        });
        emit(found);
        return found;
      } catch (err) {
        options.logger.error({ err }, 'the live validator failed on the recording; forwarding is not affected');
        return [];
      }
    },
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
