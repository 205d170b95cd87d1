import {
  isKnownRevision,
  isObject,
  judgesBareExchanges,
  judgesExchanges,
  judgesRevision,
  judgesSessionEnd,
  type BareExchangeRule,
  type ExchangeRule,
  type Observed,
  type Rule,
  type Sender,
  type SessionEndRule,
  type Shape,
} from './rule.js';

/*
 * Dispatch: which rules the engine (engine.ts) runs on which message. Each message is classified
 * once (sender and shape, as bits, and its method); each rule's `on` is compiled once into the
 * same bits, so a message reaches only the rules that declared an interest in its kind (and
 * method). The lists are built lazily, one per combination that occurs, and kept per rule set,
 * transport and era.
 */

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
  const shapes =
    shape === 'all'
      ? SIDE
      : shape === 'json'
        ? JSON_SHAPES
        : shape === 'response'
          ? SHAPE_BITS.result | SHAPE_BITS.error
          : SHAPE_BITS[shape as Shape];
  if (shapes === undefined) throw new Error(`unknown message kind ${JSON.stringify(kind)}`);
  return sideMask(shapes, sender as Sender | undefined);
}

/** A rule's `on`, compiled: the kinds it takes whatever the method, and those it takes per method. */
export interface Interests {
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
    case 'request':
      shape |= SHAPE_BITS.request;
      break;
    case 'notification':
      shape |= SHAPE_BITS.notification;
      break;
    case 'response':
      shape |= SHAPE_BITS.result;
      break;
    case 'error':
      shape |= SHAPE_BITS.error;
      break;
    case 'non-jsonrpc':
      shape |= json === undefined ? SHAPE_BITS.nonjson : SHAPE_BITS.other;
      break;
    default:
      shape |= SHAPE_BITS.nonjson; // text, batch
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
export interface Plan {
  rules: Rule[];
  /** Methods some rule of the plan names: the only ones that need a list of their own. */
  methods: Map<string, number>;
  lists: Map<number, Dispatch>;
}
export type EraKey = 'legacy' | 'modern' | 'unknown';
/** By rule set, then transport, then era and revision ('' when not told or not known; no key
 * string made per session). */
const plans = new WeakMap<readonly Rule[], Map<Observed['transport'], Map<EraKey, Map<string, Plan>>>>();
export const revisionKey = (revision: string | undefined): string => (isKnownRevision(revision) ? revision : '');

export function planFor(rules: readonly Rule[], transport: Observed['transport'], era: Observed['era'], revision: string): Plan {
  let byTransport = plans.get(rules);
  if (!byTransport) plans.set(rules, (byTransport = new Map()));
  let byEra = byTransport.get(transport);
  if (!byEra) byTransport.set(transport, (byEra = new Map()));
  const eraKey: EraKey = era ?? 'unknown';
  let byRevision = byEra.get(eraKey);
  if (!byRevision) byEra.set(eraKey, (byRevision = new Map()));
  let plan = byRevision.get(revision);
  if (!plan) {
    const picked = rules.filter(
      (r) => (!r.transport || r.transport === transport) && (r.era === 'all' || r.era === era) && judgesRevision(r, revision || undefined),
    );
    const methods = new Map<string, number>();
    for (const r of picked) for (const m of interestsOf(r).byMethod.keys()) if (!methods.has(m)) methods.set(m, methods.size + 1);
    plan = { rules: picked, methods, lists: new Map() };
    byRevision.set(revision, plan);
  }
  return plan;
}

/** The rules one kind of message goes to, and their checks bound to them (calling through an
 * array of functions avoids looking `check` up on 200 differently shaped rule objects). */
export interface Dispatch {
  rules: Rule[];
  checks: Rule['check'][];
}
const bound = new WeakMap<Rule, Rule['check']>();
function boundCheck(rule: Rule): Rule['check'] {
  let f = bound.get(rule);
  if (!f) bound.set(rule, (f = rule.check.bind(rule)));
  return f;
}

export function rulesFor(plan: Plan, o: Observed): Dispatch {
  const { bits, method } = classify(o);
  // Methods no rule names share one list (so strange traffic cannot grow the cache).
  const m = method === undefined ? 0 : (plan.methods.get(method) ?? 0);
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
export interface Hooks {
  exchange: ExchangeRule[];
  exchangeChecks: ExchangeRule['checkExchange'][];
  bare: BareExchangeRule[];
  bareChecks: BareExchangeRule['checkBareExchange'][];
  end: SessionEndRule[];
}
const hooks = new WeakMap<readonly Rule[], Map<string, Hooks>>();
export function hooksOf(rules: readonly Rule[], transport: Observed['transport']): Hooks {
  let byTransport = hooks.get(rules);
  if (!byTransport) hooks.set(rules, (byTransport = new Map()));
  let h = byTransport.get(transport);
  if (!h) {
    const on = rules.filter((r) => !r.transport || r.transport === transport);
    const exchange = on.filter(judgesExchanges);
    const bare = on.filter(judgesBareExchanges);
    h = {
      exchange,
      exchangeChecks: exchange.map((r) => r.checkExchange.bind(r)),
      bare,
      bareChecks: bare.map((r) => r.checkBareExchange.bind(r)),
      end: on.filter(judgesSessionEnd),
    };
    byTransport.set(transport, h);
  }
  return h;
}
