import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import type { Violation } from '../lib/violation.js';
import { severityOf, specLink, type Observed, type Rule } from './rule.js';
import { SessionState } from './session-state.js';

export interface ValidateOptions {
  rules: readonly Rule[];
  /** Called when a rule throws: a validator bug is reported and validation goes on. */
  onRuleError?: (rule: string, err: unknown) => void;
}

function applies(rule: Rule, o: Observed): boolean {
  if (rule.transport && rule.transport !== o.transport) return false;
  if (rule.era === 'all') return true;
  return o.era === rule.era;
}

/**
 * Judges one session message by message, in order: each message is classified (revision, era,
 * the request it answers) from the state before it, every applicable rule sees it, then the
 * state moves on. Used whole for cassettes and incrementally while the proxy runs.
 */
export class SessionValidator {
  readonly #state: SessionState;

  constructor(readonly session: Pick<RecordedSession, 'id' | 'transport' | 'exchanges'>, private readonly options: ValidateOptions) {
    this.#state = new SessionState(session);
  }

  /** HTTP: an exchange's envelope (headers), known before or while its messages are judged. */
  exchange(x: import('../lib/cassette/cassette.js').HttpExchange): void {
    this.#state.exchanges.set(x.id, x);
  }

  check(msg: RecordedMessage): Violation[] {
    if (msg.channel === 'stderr') return []; // stderr is free-form logging (STDIO-STDERR)
    const out: Violation[] = [];
    const o = this.#state.observe(msg);
    let current: Rule | undefined;
    // One report function per message; it reads the rule being run.
    const report = (path: string, message: string): void => {
      const rule = current!;
      out.push({ rule: rule.id, severity: severityOf(rule), session: this.session.id, seq: msg.seq, direction: msg.direction, path, message, spec: specLink(rule.source) });
    };
    for (const rule of this.options.rules) {
      if (!applies(rule, o)) continue;
      current = rule;
      try {
        rule.check(o, report, this.#state);
      } catch (err) {
        this.options.onRuleError?.(rule.id, err);
      }
    }
    this.#state.commit(o);
    return out;
  }
}

export function validateSession(session: RecordedSession, options: ValidateOptions): Violation[] {
  const v = new SessionValidator(session, options);
  return session.messages.flatMap((m) => v.check(m));
}
