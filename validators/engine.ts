import type { HttpExchange, RecordedSession, SessionEnd } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import type { Violation } from '../lib/violation.js';
import { severityOf, specLink, type Observed, type Report, type Rule } from './rule.js';
import { SessionState } from './session-state.js';

export interface ValidateOptions {
  rules: readonly Rule[];
  /** Called when a rule throws: a validator bug is reported and validation goes on. */
  onRuleError?: (rule: string, err: unknown) => void;
}

/**
 * A rule that also judges a whole HTTP exchange once it is over, when its status, headers and
 * messages are all known (a 401 with an empty body, a 202 to a notification). It runs once per
 * exchange that carried at least one message; its violations point at that first message.
 */
export interface ExchangeRule extends Rule {
  checkExchange(x: HttpExchange, first: RecordedMessage, report: Report, state: SessionState): void;
}

const judgesExchanges = (rule: Rule): rule is ExchangeRule => typeof (rule as Partial<ExchangeRule>).checkExchange === 'function';

/**
 * A rule that judges the HTTP exchanges that carried no JSON-RPC message (paths outside the MCP
 * endpoint such as OAuth discovery, a GET stream that stayed silent), once each is over. There
 * is no message to point at: its violations carry seq 0.
 */
export interface BareExchangeRule extends Rule {
  checkBareExchange(x: HttpExchange, report: Report, state: SessionState): void;
}

const judgesBareExchanges = (rule: Rule): rule is BareExchangeRule => typeof (rule as Partial<BareExchangeRule>).checkBareExchange === 'function';

/** How a session ended, as far as the session-end rules ask (stdio: who started the shutdown,
 * how the server process exited; live, what the cassette will say). */
export type SessionEndInfo = Partial<Pick<SessionEnd, 'reason' | 'initiatedBy' | 'exitCode' | 'signal'>>;

/**
 * A rule that judges a session once it is over, after its last message and exchange (offline
 * at the end of the cassette's session, live when the proxy finishes). It names the message
 * each violation points at; like the exchange rules it judges the server.
 */
export interface SessionEndRule extends Rule {
  checkSessionEnd(end: SessionEndInfo | undefined, report: (seq: number, path: string, message: string) => void, state: SessionState): void;
}

const judgesSessionEnd = (rule: Rule): rule is SessionEndRule => typeof (rule as Partial<SessionEndRule>).checkSessionEnd === 'function';

/**
 * The rules that apply to a message depend only on its transport and era, so they are sorted
 * into one list per combination, once per rule set, instead of testing every rule's transport
 * and era again on every message.
 */
interface Plan {
  rules: Rule[];
  checks: Rule['check'][];
}
type EraKey = 'legacy' | 'modern' | 'unknown';
const plans = new WeakMap<readonly Rule[], Map<string, Plan>>();

function planFor(rules: readonly Rule[], transport: Observed['transport'], era: Observed['era']): Plan {
  let byKey = plans.get(rules);
  if (!byKey) plans.set(rules, (byKey = new Map()));
  const eraKey: EraKey = era ?? 'unknown';
  const key = `${transport} ${eraKey}`;
  let plan = byKey.get(key);
  if (!plan) {
    const picked = rules.filter((r) => (!r.transport || r.transport === transport) && (r.era === 'all' || r.era === era));
    plan = { rules: picked, checks: picked.map((r) => r.check.bind(r)) };
    byKey.set(key, plan);
  }
  return plan;
}

/**
 * Judges one session message by message, in order: each message is classified (revision, era,
 * the request it answers) from the state before it, every applicable rule sees it, then the
 * state moves on. Used whole for cassettes and incrementally while the proxy runs.
 */
export class SessionValidator {
  readonly #state: SessionState;

  constructor(readonly session: Pick<RecordedSession, 'id' | 'transport' | 'exchanges'> & { target?: RecordedSession['target'] }, private readonly options: ValidateOptions) {
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
    const reported: string[] = [];
    o.reported = reported;
    const plan = planFor(this.options.rules, o.transport, o.era);
    let current = 0;
    // One report function per message; it reads the rule being run.
    const report = (path: string, message: string): void => {
      const rule = plan.rules[current]!;
      reported.push(path);
      out.push({ rule: rule.id, severity: severityOf(rule), session: this.session.id, seq: msg.seq, direction: msg.direction, path, message, spec: specLink(rule.source) });
    };
    const state = this.#state;
    for (; current < plan.checks.length; current++) {
      try {
        plan.checks[current]!(o, report, state);
      } catch (err) {
        this.options.onRuleError?.(plan.rules[current]!.id, err);
      }
    }
    this.#state.commit(o);
    return out;
  }

  /** HTTP: an exchange is over (status, headers and every message known); exchange rules judge
   * it. `first` is its first message, which the violations point at. */
  exchangeEnd(x: HttpExchange, first: RecordedMessage): Violation[] {
    this.#state.exchanges.set(x.id, x);
    const out: Violation[] = [];
    for (const rule of this.options.rules) {
      if (!judgesExchanges(rule) || (rule.transport && rule.transport !== this.session.transport)) continue;
      // The exchange rules judge the server's answer (status, headers), hence the direction.
      const report = (path: string, message: string): void => {
        out.push({ rule: rule.id, severity: severityOf(rule), session: this.session.id, seq: first.seq, direction: 'server-to-client', path, message, spec: specLink(rule.source) });
      };
      try {
        rule.checkExchange(x, first, report, this.#state);
      } catch (err) {
        this.options.onRuleError?.(rule.id, err);
      }
    }
    return out;
  }

  /** HTTP: an exchange that carried no message is over; the bare-exchange rules judge it. */
  bareExchangeEnd(x: HttpExchange): Violation[] {
    this.#state.exchanges.set(x.id, x);
    const out: Violation[] = [];
    for (const rule of this.options.rules) {
      if (!judgesBareExchanges(rule) || (rule.transport && rule.transport !== this.session.transport)) continue;
      const report = (path: string, message: string): void => {
        out.push({ rule: rule.id, severity: severityOf(rule), session: this.session.id, seq: 0, direction: 'server-to-client', path, message, spec: specLink(rule.source) });
      };
      try {
        rule.checkBareExchange(x, report, this.#state);
      } catch (err) {
        this.options.onRuleError?.(rule.id, err);
      }
    }
    return out;
  }

  /** The session is over: every message and exchange was judged; the session-end rules run. */
  endSession(end?: SessionEndInfo): Violation[] {
    const out: Violation[] = [];
    for (const rule of this.options.rules) {
      if (!judgesSessionEnd(rule) || (rule.transport && rule.transport !== this.session.transport)) continue;
      const report = (seq: number, path: string, message: string): void => {
        out.push({ rule: rule.id, severity: severityOf(rule), session: this.session.id, seq, direction: 'server-to-client', path, message, spec: specLink(rule.source) });
      };
      try {
        rule.checkSessionEnd(end, report, this.#state);
      } catch (err) {
        this.options.onRuleError?.(rule.id, err);
      }
    }
    return out;
  }
}

export function validateSession(session: RecordedSession, options: ValidateOptions): Violation[] {
  const v = new SessionValidator(session, options);
  const out = session.messages.flatMap((m) => v.check(m));
  // HTTP: then every exchange, in the order the exchanges ended, as the live validator judges
  // each one when it ends (those without a message by the bare-exchange rules).
  const first = new Map<number, RecordedMessage>();
  for (const m of session.messages) if (m.http && !first.has(m.http.exchange)) first.set(m.http.exchange, m);
  const ended = [...(session.exchanges ?? [])].sort((a, b) => (a.endT ?? a.t) - (b.endT ?? b.t) || a.id - b.id);
  for (const x of ended) out.push(...(first.has(x.id) ? v.exchangeEnd(x, first.get(x.id)!) : v.bareExchangeEnd(x)));
  out.push(...v.endSession(session.end));
  return out;
}
