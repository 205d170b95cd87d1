/**
 * The sessions the live validator judges: one SessionValidator each, made on a session's first
 * frame, with the alert subjects of its messages. Over HTTP a session is also known by its
 * Mcp-Session-Id, so that one going on in a new cassette (`record --cassette-dir`) is judged on as
 * the one session it is; stateless exchanges share what the server has shown of itself.
 */
import type { HttpExchange } from '../lib/cassette/cassette.js';
import type { Logger } from '../lib/log.js';
import { AlertSubjects } from './alert-subjects.js';
import { SessionValidator } from './engine.js';
import { RULES } from './rules/index.js';
import { ServerContexts } from './server-context.js';

/** A session as the live validator takes it; over HTTP, with the Mcp-Session-Id of its exchanges
 * (none: a stateless exchange, a session of its own that shares the server's context). */
export type LiveSession = ConstructorParameters<typeof SessionValidator>[0] & { mcpSessionId?: string };

export class LiveSessions {
  readonly #sessions = new Map<string, SessionValidator>();
  readonly #subjects = new Map<string, AlertSubjects>();
  // HTTP: the stateless exchanges that reach the same upstream as the same caller share what the
  // server has shown of itself (the offline validator replays them in the same order).
  readonly #contexts = new ServerContexts();
  // HTTP sessions by Mcp-Session-Id: the id each is judged under now, and the session its
  // validator was given (the object it reports with).
  readonly #bySid = new Map<string, string>();
  readonly #judgedAs = new Map<string, { id: string }>();

  constructor(private readonly logger: Logger) {}

  get(id: string): SessionValidator | undefined {
    return this.#sessions.get(id);
  }

  all(): IterableIterator<SessionValidator> {
    return this.#sessions.values();
  }

  /** The session's validator and its alert subjects are forgotten; the validator is returned. */
  forget(id: string): SessionValidator | undefined {
    const v = this.#sessions.get(id);
    this.#sessions.delete(id);
    this.#subjects.delete(id);
    return v;
  }

  /** How alerts name the session's messages. */
  subjectsOf(id: string): AlertSubjects {
    let s = this.#subjects.get(id);
    if (!s) this.#subjects.set(id, (s = new AlertSubjects()));
    return s;
  }

  /** The session's validator, made on its first frame. */
  validatorFor(session: LiveSession, where: () => string, exchange?: HttpExchange): SessionValidator {
    let v = this.#sessions.get(session.id) ?? this.#renamed(session);
    if (!v) {
      const { mcpSessionId, ...judged } = session;
      const stateless = session.transport === 'streamable-http' && mcpSessionId === undefined;
      const shared = exchange && stateless ? this.#contexts.for(session.target, exchange) : undefined;
      v = new SessionValidator(
        judged,
        {
          rules: RULES,
          // Live traffic: each exchange's messages all come before its end.
          forgetEndedExchanges: true,
          onRuleError: (rule, err) =>
            this.logger.error({ rule, err }, `rule ${rule} failed on ${where()} (a validator bug); validation goes on`),
        },
        shared,
      );
      this.#sessions.set(session.id, v);
      if (mcpSessionId !== undefined) {
        this.#bySid.set(mcpSessionId, session.id);
        this.#judgedAs.set(session.id, judged);
      }
    }
    return v;
  }

  /** `record --cassette-dir`: a session that goes on in a new cassette is named by that cassette's
   * id from then on; it is judged on as the one session it is (what it showed before still counts,
   * and what is said once is not said again), under the new id. */
  #renamed(session: LiveSession): SessionValidator | undefined {
    const before = session.mcpSessionId === undefined ? undefined : this.#bySid.get(session.mcpSessionId);
    const v = before === undefined ? undefined : this.#sessions.get(before);
    if (before === undefined || !v) return undefined;
    this.#sessions.delete(before);
    this.#sessions.set(session.id, v);
    const judged = this.#judgedAs.get(before)!;
    judged.id = session.id;
    this.#judgedAs.delete(before);
    this.#judgedAs.set(session.id, judged);
    const s = this.#subjects.get(before);
    this.#subjects.delete(before);
    if (s) this.#subjects.set(session.id, s);
    this.#bySid.set(session.mcpSessionId!, session.id);
    return v;
  }
}
