import type { HttpExchange, RecordedSession, SessionEnd } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import type { Violation } from '../lib/violation.js';
import { isKnownRevision, isObject, judgesRevision, severityOf, specLink, type Observed, type Report, type Rule, type Sender, type Shape } from './rule.js';
import { MODERN_REVISION, SessionState } from './session-state.js';
import type { ServerContext } from './server-context.js';
import { MAX_JSON_DEPTH } from '../lib/json-depth.js';

/** The catalogue entry a too-deep frame's notice cites (RULES.md §21). */
export const TOO_DEEP = { id: 'PROXY-SCHEMA-BOUNDS', source: 'basic/index.mdx §Composition-Keyword Resource Use' } as const;

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

// ---- Dispatch ------------------------------------------------------------------------------------
//
// Each message is classified once (sender and shape, as bits, and its method); each rule's `on`
// is compiled once into the same bits, so a message reaches only the rules that declared an
// interest in its kind (and method). The lists are built lazily, one per combination that occurs,
// and kept per rule set, transport and era.

const SHAPE_BITS: Record<Shape, number> = { request: 1, notification: 2, result: 4, error: 8, other: 16, nonjson: 32, input_required: 64 };
const CLIENT_SHIFT = 0;
const SERVER_SHIFT = 7;
const SIDE = 0b1111111;
const ALL = (SIDE << CLIENT_SHIFT) | (SIDE << SERVER_SHIFT);
/** Shapes other than `nonjson`, on one side. */
const JSON_SHAPES = SIDE & ~SHAPE_BITS.nonjson;

function sideMask(shapes: number, sender?: Sender): number {
  if (sender === 'client') return shapes << CLIENT_SHIFT;
  if (sender === 'server') return shapes << SERVER_SHIFT;
  return (shapes << CLIENT_SHIFT) | (shapes << SERVER_SHIFT);
}

/** The bits of one kind of an `on` interest (`server-result`, `response`, `client`, `json`). */
export function kindBits(kind: string): number {
  const dash = kind.indexOf('-');
  const sender = dash > 0 ? kind.slice(0, dash) : kind === 'client' || kind === 'server' ? kind : undefined;
  if (sender !== undefined && sender !== 'client' && sender !== 'server') throw new Error(`unknown message kind ${JSON.stringify(kind)}`);
  const shape = dash > 0 ? kind.slice(dash + 1) : sender === undefined ? kind : 'all';
  const shapes = shape === 'all' ? SIDE : shape === 'json' ? JSON_SHAPES : shape === 'response' ? SHAPE_BITS.result | SHAPE_BITS.error : SHAPE_BITS[shape as Shape];
  if (shapes === undefined) throw new Error(`unknown message kind ${JSON.stringify(kind)}`);
  return sideMask(shapes, sender as Sender | undefined);
}

/** A rule's `on`, compiled: the kinds it takes whatever the method, and those it takes per method. */
interface Interests {
  any: number;
  byMethod: Map<string, number>;
}
const compiled = new WeakMap<Rule, Interests>();

export function interestsOf(rule: Rule): Interests {
  let c = compiled.get(rule);
  if (c) return c;
  c = { any: rule.on === undefined ? ALL : 0, byMethod: new Map() };
  for (const interest of rule.on ?? []) {
    const space = interest.indexOf(' ');
    const bits = kindBits(space < 0 ? interest : interest.slice(0, space));
    if (space < 0) c.any |= bits;
    else {
      const method = interest.slice(space + 1);
      c.byMethod.set(method, (c.byMethod.get(method) ?? 0) | bits);
    }
  }
  compiled.set(rule, c);
  return c;
}

/** What the engine tells of a message for dispatch: its kind bits, and its method if it has one. */
export function classify(o: Observed): { bits: number; method: string | undefined } {
  const json = o.json;
  let shape = 0;
  let method: string | undefined;
  if (json === undefined) shape = SHAPE_BITS.nonjson;
  else {
    if (typeof json.method === 'string') {
      method = json.method;
      shape = 'id' in json ? SHAPE_BITS.request : SHAPE_BITS.notification;
    } else method = o.request?.method;
    if ('result' in json) shape |= SHAPE_BITS.result;
    if (isObject(json.result) && json.result.resultType === 'input_required') shape |= SHAPE_BITS.input_required;
    if ('error' in json) shape |= SHAPE_BITS.error;
    if (shape === 0) shape = SHAPE_BITS.other;
  }
  // The frame's recorded kind as well (the same thing unless a cassette was edited by hand).
  switch (o.msg.kind) {
    case 'request': shape |= SHAPE_BITS.request; break;
    case 'notification': shape |= SHAPE_BITS.notification; break;
    case 'response': shape |= SHAPE_BITS.result; break;
    case 'error': shape |= SHAPE_BITS.error; break;
    case 'non-jsonrpc': shape |= json === undefined ? SHAPE_BITS.nonjson : SHAPE_BITS.other; break;
    default: shape |= SHAPE_BITS.nonjson; // text, batch
  }
  return { bits: o.msg.direction === 'client-to-server' ? shape << CLIENT_SHIFT : shape << SERVER_SHIFT, method };
}

/** Whether a rule's `on` takes a message of these kind bits and method. */
export function wants(rule: Rule, bits: number, method: string | undefined): boolean {
  const c = interestsOf(rule);
  return (c.any & bits) !== 0 || (method !== undefined && ((c.byMethod.get(method) ?? 0) & bits) !== 0);
}

/**
 * The rules that apply to a message depend on its transport and era (sorted once per rule set),
 * then on its kind and method: one list per combination seen, in the rule set's order (the
 * structure rules, last, read what the others reported).
 */
interface Plan {
  rules: Rule[];
  /** Methods some rule of the plan names: the only ones that need a list of their own. */
  methods: Map<string, number>;
  lists: Map<number, Dispatch>;
}
type EraKey = 'legacy' | 'modern' | 'unknown';
/** By rule set, then transport, then era and revision ('' when not told or not known; no key
 * string made per session). */
const plans = new WeakMap<readonly Rule[], Map<Observed['transport'], Map<EraKey, Map<string, Plan>>>>();
const revisionKey = (revision: string | undefined): string => (isKnownRevision(revision) ? revision : '');

function planFor(rules: readonly Rule[], transport: Observed['transport'], era: Observed['era'], revision: string): Plan {
  let byTransport = plans.get(rules);
  if (!byTransport) plans.set(rules, (byTransport = new Map()));
  let byEra = byTransport.get(transport);
  if (!byEra) byTransport.set(transport, (byEra = new Map()));
  const eraKey: EraKey = era ?? 'unknown';
  let byRevision = byEra.get(eraKey);
  if (!byRevision) byEra.set(eraKey, (byRevision = new Map()));
  let plan = byRevision.get(revision);
  if (!plan) {
    const picked = rules.filter((r) => (!r.transport || r.transport === transport) && (r.era === 'all' || r.era === era) && judgesRevision(r, revision || undefined));
    const methods = new Map<string, number>();
    for (const r of picked) for (const m of interestsOf(r).byMethod.keys()) if (!methods.has(m)) methods.set(m, methods.size + 1);
    plan = { rules: picked, methods, lists: new Map() };
    byRevision.set(revision, plan);
  }
  return plan;
}

/** The rules one kind of message goes to, and their checks bound to them (calling through an
 * array of functions avoids looking `check` up on 200 differently shaped rule objects). */
interface Dispatch {
  rules: Rule[];
  checks: Rule['check'][];
}
const bound = new WeakMap<Rule, Rule['check']>();
function boundCheck(rule: Rule): Rule['check'] {
  let f = bound.get(rule);
  if (!f) bound.set(rule, (f = rule.check.bind(rule)));
  return f;
}

function rulesFor(plan: Plan, o: Observed): Dispatch {
  const { bits, method } = classify(o);
  // Methods no rule names share one list (so strange traffic cannot grow the cache).
  const m = method === undefined ? 0 : plan.methods.get(method) ?? 0;
  const key = m * (ALL + 1) + bits;
  let list = plan.lists.get(key);
  if (!list) {
    const named = m === 0 ? undefined : method;
    const rules = plan.rules.filter((r) => wants(r, bits, named));
    list = { rules, checks: rules.map(boundCheck) };
    plan.lists.set(key, list);
  }
  return list;
}

/** The rules of a set that judge exchanges, bare exchanges and session ends on one transport
 * (found once per rule set and transport), with their hooks bound like the message checks: a
 * loop reading `checkExchange` off a dozen differently shaped rules was most of an exchange's
 * cost while the code still ran unoptimized. */
interface Hooks {
  exchange: ExchangeRule[];
  exchangeChecks: ExchangeRule['checkExchange'][];
  bare: BareExchangeRule[];
  bareChecks: BareExchangeRule['checkBareExchange'][];
  end: SessionEndRule[];
}
const hooks = new WeakMap<readonly Rule[], Map<string, Hooks>>();
function hooksOf(rules: readonly Rule[], transport: Observed['transport']): Hooks {
  let byTransport = hooks.get(rules);
  if (!byTransport) hooks.set(rules, (byTransport = new Map()));
  let h = byTransport.get(transport);
  if (!h) {
    const on = rules.filter((r) => !r.transport || r.transport === transport);
    const exchange = on.filter(judgesExchanges);
    const bare = on.filter(judgesBareExchanges);
    h = { exchange, exchangeChecks: exchange.map((r) => r.checkExchange.bind(r)), bare, bareChecks: bare.map((r) => r.checkBareExchange.bind(r)), end: on.filter(judgesSessionEnd) };
    byTransport.set(transport, h);
  }
  return h;
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
    this.#out.push({ rule: rule.id, severity, session: this.session.id, seq: o.msg.seq, direction: o.msg.direction, path, message, spec: specLink(rule.source, o.revision) });
  };
  /** The same for the exchange rules, which judge the server's answer (status, headers), hence
   * the direction; their violations point at the exchange's first message (`#seq`), or 0. */
  #seq = 0;
  /** …and the revision of that exchange (or of the session), for the spec link. */
  #revision: string | undefined;
  readonly #exchangeReport: Report = (path, message) => {
    const rule = this.#rule!;
    this.#out.push({ rule: rule.id, severity: severityOf(rule), session: this.session.id, seq: this.#seq, direction: 'server-to-client', path, message, spec: specLink(rule.source, this.#revision) });
  };
  /** The plans of this session's transport, by era and revision (both may change within a session). */
  readonly #plans: Partial<Record<EraKey, Map<string, Plan>>> = {};
  /** HTTP: the revision of each exchange's first message, for the exchange rules. */
  readonly #exchangeRevision = new Map<number, string | undefined>();
  /** The exchange and session-end rules of this session's transport. */
  #hooks: Hooks | undefined;

  /** `context`: what the server has shown of itself, when the session shares it with others
   * (the stateless HTTP exchanges of a recording; see server-context.ts). */
  constructor(readonly session: Pick<RecordedSession, 'id' | 'transport' | 'exchanges'> & { target?: RecordedSession['target'] }, private readonly options: ValidateOptions, context?: ServerContext) {
    this.#state = new SessionState(session, context);
  }

  /** HTTP: an exchange's envelope (headers), known before or while its messages are judged. */
  exchange(x: import('../lib/cassette/cassette.js').HttpExchange): void {
    this.#state.exchanges.set(x.id, x);
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
    for (let i = 0; i < checks.length; i++) {
      this.#rule = rules[i];
      try {
        checks[i]!(o, report, state);
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
    return [{
      rule: TOO_DEEP.id,
      severity: 'info',
      session: this.session.id,
      seq: m.seq,
      direction: m.direction,
      path: '',
      message: `not judged, too deep: the frame nests deeper than ${MAX_JSON_DEPTH} levels; it is recorded byte-exact in raw`,
      spec: specLink(TOO_DEEP.source, o.revision),
    }];
  }

  /** HTTP: an exchange is over (status, headers and every message known); exchange rules judge
   * it. `first` is its first message, which the violations point at. */
  exchangeEnd(x: HttpExchange, first: RecordedMessage): Violation[] {
    this.#state.exchanges.set(x.id, x);
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
    return out;
  }

  /** HTTP: an exchange that carried no message is over; the bare-exchange rules judge it. */
  bareExchangeEnd(x: HttpExchange): Violation[] {
    this.#state.exchanges.set(x.id, x);
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
    return out;
  }

  /** The session is over: every message and exchange was judged; the session-end rules run. */
  endSession(end?: SessionEndInfo): Violation[] {
    const out: Violation[] = [];
    const revision = this.#sessionRevision();
    for (const rule of (this.#hooks ??= hooksOf(this.options.rules, this.session.transport)).end) {
      if (!judgesRevision(rule, revision)) continue;
      const report = (seq: number, path: string, message: string): void => {
        out.push({ rule: rule.id, severity: severityOf(rule), session: this.session.id, seq, direction: 'server-to-client', path, message, spec: specLink(rule.source, revision) });
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
