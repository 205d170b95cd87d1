import type { HttpExchange, RecordedSession } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import type { Violation } from '../lib/violation.js';
import { hooksOf, planFor, revisionKey, rulesFor, type EraKey, type Hooks, type Plan } from './dispatch.js';
import { judgesRevision, severityOf, specLink, type Observed, type Report, type Rule, type SessionEndInfo } from './rule.js';
import { MODERN_REVISION, SessionState } from './session-state.js';
import type { ServerContext } from './server-context.js';
import { MAX_JSON_DEPTH } from '../lib/json-depth.js';
import { UnchangedInputs } from './unchanged.js';

/** The catalogue entry a too-deep frame's notice cites (RULES.md §21). */
export const TOO_DEEP = { id: 'PROXY-SCHEMA-BOUNDS', source: 'basic/index.mdx §Composition-Keyword Resource Use' } as const;

/** The session-end shape lives with the other rule shapes (rule.ts); live.ts takes it from here. */
export type { SessionEndInfo } from './rule.js';

export interface ValidateOptions {
  rules: readonly Rule[];
  /** Called when a rule throws: a validator bug is reported and validation goes on. */
  onRuleError?: (rule: string, err: unknown) => void;
  /** Runs the `resultOnly` rules on every message, even on a result identical to the last one
   * (the tests compare both ways; validators/unchanged.ts). */
  rerunUnchanged?: boolean;
  /** Live: let go of what the session held of each HTTP exchange once it is over and judged
   * (SessionState.forgetExchange), so a session that never ends stays small. Offline the whole
   * cassette is in memory anyway, and a message stamped after its exchange's end (a hand-made or
   * imported cassette) still finds its exchange. */
  forgetEndedExchanges?: boolean;
}

/**
 * Judges one session message by message, in order: each message is classified (revision, era,
 * the request it answers) from the state before it, every applicable rule sees it, then the
 * state moves on. Used whole for cassettes and incrementally while the proxy runs.
 */
export class SessionValidator {
  readonly #state: SessionState;
  /** While a message is judged: the message, the rule being run, and what was found so far. */
  #o: Observed | undefined;
  #rule: Rule | undefined;
  #out: Violation[] = [];
  /** One report function for the validator's life; it reads the message and rule being run. */
  readonly #report: Report = (path, message) => {
    const rule = this.#rule!;
    const o = this.#o!;
    (o.reported ??= []).push(path);
    const severity = severityOf(rule);
    if (severity === 'error') o.invalid ??= rule.id;
    this.#out.push({
      rule: rule.id,
      severity,
      session: this.session.id,
      seq: o.msg.seq,
      direction: o.msg.direction,
      path,
      message,
      spec: specLink(rule.source, o.revision),
    });
  };
  /** The same for the exchange rules, which judge the server's answer (status, headers), hence
   * the direction; their violations point at the exchange's first message (`#seq`), or 0. */
  #seq = 0;
  /** …and the revision of that exchange (or of the session), for the spec link. */
  #revision: string | undefined;
  readonly #exchangeReport: Report = (path, message) => {
    const rule = this.#rule!;
    this.#out.push({
      rule: rule.id,
      severity: severityOf(rule),
      session: this.session.id,
      seq: this.#seq,
      direction: 'server-to-client',
      path,
      message,
      spec: specLink(rule.source, this.#revision),
    });
  };
  /** The plans of this session's transport, by era and revision (both may change within a session). */
  readonly #plans: Partial<Record<EraKey, Map<string, Plan>>> = {};
  /** The `resultOnly` rules' last results and reports (undefined: `rerunUnchanged`). */
  readonly #unchanged: UnchangedInputs | undefined;
  /** HTTP: the revision of each exchange's first message, for the exchange rules. */
  readonly #exchangeRevision = new Map<number, string | undefined>();
  /** The exchange and session-end rules of this session's transport. */
  #hooks: Hooks | undefined;

  /** `context`: what the server has shown of itself, when the session shares it with others
   * (the stateless HTTP exchanges of a recording; see server-context.ts). */
  constructor(
    readonly session: Pick<RecordedSession, 'id' | 'transport' | 'exchanges'> & { target?: RecordedSession['target'] },
    private readonly options: ValidateOptions,
    context?: ServerContext,
  ) {
    this.#state = new SessionState(session, context);
    this.#unchanged = options.rerunUnchanged ? undefined : (context?.unchanged ?? new UnchangedInputs());
  }

  /** What the session holds per HTTP exchange (for diagnostics and the memory tests): the
   * exchanges kept, and the entries of the rules' per-exchange memories. */
  get retained(): { exchanges: number; exchangeMemories: number } {
    return this.#state.retained();
  }

  /** HTTP: an exchange's envelope (headers), known before or while its messages are judged. */
  exchange(x: HttpExchange): void {
    this.#state.addExchange(x);
  }

  check(msg: RecordedMessage): Violation[] {
    if (msg.channel === 'stderr') return []; // stderr is free-form logging (STDIO-STDERR)
    const state = this.#state;
    const o = state.observe(msg);
    if (msg.tooDeep) return this.#notJudged(o);
    const revision = revisionKey(o.revision);
    const byRevision = (this.#plans[o.era ?? 'unknown'] ??= new Map());
    let plan = byRevision.get(revision);
    if (!plan) byRevision.set(revision, (plan = planFor(this.options.rules, o.transport, o.era, revision)));
    if (msg.http && !this.#exchangeRevision.has(msg.http.exchange)) this.#exchangeRevision.set(msg.http.exchange, o.revision);
    const { rules, checks } = rulesFor(plan, o);
    const out: Violation[] = [];
    const report = this.#report;
    this.#out = out;
    this.#o = o;
    const unchanged = this.#unchanged;
    for (let i = 0; i < checks.length; i++) {
      const rule = rules[i]!;
      this.#rule = rule;
      try {
        if (rule.resultOnly && unchanged) unchanged.run(rule, checks[i]!, o, report, state);
        else checks[i]!(o, report, state);
      } catch (err) {
        this.options.onRuleError?.(rules[i]!.id, err);
      }
    }
    this.#o = undefined;
    this.#rule = undefined;
    state.commit(o);
    return out;
  }

  /** The revision the session settled on so far, for what no message of its own tells (a bare
   * exchange, the session's end): an initialize handshake's, else 2026-07-28 once a request
   * carried its envelope. */
  #sessionRevision(): string | undefined {
    return this.#state.legacyRevision ?? (this.#state.modernSeen ? MODERN_REVISION : undefined);
  }

  /** A frame nested deeper than MAX_JSON_DEPTH is not given to the rules (they walk values
   * recursively, and its `json` holds only the top-level scalars): one notice says it was not
   * judged. PROXY-SCHEMA-BOUNDS is the catalogue's rule for bounding the validator's work. */
  #notJudged(o: Observed): Violation[] {
    this.#state.commit(o);
    const m = o.msg;
    return [
      {
        rule: TOO_DEEP.id,
        severity: 'info',
        session: this.session.id,
        seq: m.seq,
        direction: m.direction,
        path: '',
        message: `not judged, too deep: the frame nests deeper than ${MAX_JSON_DEPTH} levels; it is recorded byte-exact in raw`,
        spec: specLink(TOO_DEEP.source, o.revision),
      },
    ];
  }

  /** HTTP: an exchange is over (status, headers and every message known); exchange rules judge
   * it. `first` is its first message, which the violations point at. */
  exchangeEnd(x: HttpExchange, first: RecordedMessage): Violation[] {
    this.#state.addExchange(x);
    const out: Violation[] = [];
    this.#out = out;
    this.#seq = first.seq;
    const { exchange: rules, exchangeChecks: checks } = (this.#hooks ??= hooksOf(this.options.rules, this.session.transport));
    const report = this.#exchangeReport;
    const state = this.#state;
    const revision = (this.#revision = this.#exchangeRevision.get(x.id) ?? this.#sessionRevision());
    for (let i = 0; i < checks.length; i++) {
      if (!judgesRevision(rules[i]!, revision)) continue;
      this.#rule = rules[i];
      try {
        checks[i]!(x, first, report, state);
      } catch (err) {
        this.options.onRuleError?.(rules[i]!.id, err);
      }
    }
    this.#rule = undefined;
    this.#forget(x.id);
    return out;
  }

  /** HTTP: an exchange that carried no message is over; the bare-exchange rules judge it. */
  bareExchangeEnd(x: HttpExchange): Violation[] {
    this.#state.addExchange(x);
    const out: Violation[] = [];
    this.#out = out;
    this.#seq = 0;
    const { bare: rules, bareChecks: checks } = (this.#hooks ??= hooksOf(this.options.rules, this.session.transport));
    const revision = (this.#revision = this.#sessionRevision());
    for (let i = 0; i < checks.length; i++) {
      if (!judgesRevision(rules[i]!, revision)) continue;
      this.#rule = rules[i];
      try {
        checks[i]!(x, this.#exchangeReport, this.#state);
      } catch (err) {
        this.options.onRuleError?.(rules[i]!.id, err);
      }
    }
    this.#rule = undefined;
    this.#forget(x.id);
    return out;
  }

  /** An exchange is over and judged: what the session kept of it goes (SessionState.forgetExchange). */
  #forget(id: number): void {
    if (!this.options.forgetEndedExchanges) return;
    this.#state.forgetExchange(id);
    this.#exchangeRevision.delete(id);
  }

  /** The session is over: every message and exchange was judged; the session-end rules run. */
  endSession(end?: SessionEndInfo): Violation[] {
    const out: Violation[] = [];
    const revision = this.#sessionRevision();
    for (const rule of (this.#hooks ??= hooksOf(this.options.rules, this.session.transport)).end) {
      if (!judgesRevision(rule, revision)) continue;
      const report = (seq: number, path: string, message: string): void => {
        out.push({
          rule: rule.id,
          severity: severityOf(rule),
          session: this.session.id,
          seq,
          direction: 'server-to-client',
          path,
          message,
          spec: specLink(rule.source, revision),
        });
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
  const out: Violation[] = [];
  for (const m of session.messages) {
    const found = v.check(m);
    if (found.length > 0) out.push(...found);
  }
  // HTTP: then every exchange, in the order the exchanges ended, as the live validator judges
  // each one when it ends (those without a message by the bare-exchange rules).
  if (session.exchanges?.length) {
    const first = new Map<number, RecordedMessage>();
    for (const m of session.messages) if (m.http && !first.has(m.http.exchange)) first.set(m.http.exchange, m);
    const ended = [...session.exchanges].sort((a, b) => (a.endT ?? a.t) - (b.endT ?? b.t) || a.id - b.id);
    for (const x of ended) out.push(...(first.has(x.id) ? v.exchangeEnd(x, first.get(x.id)!) : v.bareExchangeEnd(x)));
  }
  out.push(...v.endSession(session.end));
  return out;
}
