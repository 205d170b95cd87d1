import type { HttpExchange, SessionEnd } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import type { Severity } from '../lib/violation.js';
import type { Point, SessionDigest } from './session-digest.js';
import type { SessionState } from './session-state.js';
import { SPEC_BASE, SPEC_ROOT, specLink } from '../lib/spec-pages.js';
import { isObject } from '../lib/plain-object.js';
import type { TransportKind } from '../lib/cassette/cassette.js';
import { KNOWN_REVISIONS } from '../lib/mcp-spec.js';
export { isObject, SPEC_BASE, SPEC_ROOT, specLink };

/** Which traffic a rule judges: every revision, the 2025 handshake era, or 2026-07-28. */
export type Era = 'all' | 'legacy' | 'modern';

/** The protocol revisions the validator knows, oldest first: lib/mcp-spec.ts (one list). */
export { KNOWN_REVISIONS };
export type KnownRevision = (typeof KNOWN_REVISIONS)[number];
const KNOWN: ReadonlySet<string | undefined> = new Set(KNOWN_REVISIONS);
export function isKnownRevision(r: string | undefined): r is KnownRevision {
  return KNOWN.has(r);
}
/** The revisions from `first` on: a rule about a feature `first` introduced. */
export const since = (first: KnownRevision): readonly KnownRevision[] => KNOWN_REVISIONS.filter((r) => r >= first);
/** Every revision but 2025-03-26, the one that had JSON-RPC batches (added by it, removed by 2025-06-18). */
export const NO_BATCHES: readonly KnownRevision[] = KNOWN_REVISIONS.filter((r) => r !== '2025-03-26');
/** The revisions of an era. */
export const ERA_REVISIONS: Record<Era, readonly KnownRevision[]> = {
  all: KNOWN_REVISIONS,
  legacy: KNOWN_REVISIONS.filter((r) => r !== '2026-07-28'),
  modern: ['2026-07-28'],
};

/** The revisions a rule judges: those of its era that it declares (all of them when it declares none). */
export function revisionsOf(rule: Pick<RuleInfo, 'era' | 'revisions'>): readonly KnownRevision[] {
  const era = ERA_REVISIONS[rule.era];
  return rule.revisions ? era.filter((r) => rule.revisions!.includes(r)) : era;
}

/** Whether a rule judges traffic of this revision: a known revision it does not declare is
 * skipped; traffic whose revision is not told, or not one we know, is judged as before. */
export function judgesRevision(rule: Pick<RuleInfo, 'revisions'>, revision: string | undefined): boolean {
  return rule.revisions === undefined || !isKnownRevision(revision) || rule.revisions.includes(revision);
}

export interface RuleInfo {
  /** The ID in the rule catalogue (RULES.md), exactly. */
  id: string;
  /** The keyword level in RULES.md; it decides the severity (MUST and schema: error, SHOULD: warning). */
  level: 'MUST' | 'MUST NOT' | 'SHOULD' | 'SHOULD NOT' | 'REC' | 'schema' | 'desc' | 'derived';
  /** `1`: one message; `N`: needs session state; `H`: heuristic (never an error); `P`: an active probe. */
  obs: '1' | 'N' | 'H' | 'P';
  era: Era;
  /** The revisions that have this rule, when not every revision of its era does (a feature a
   * later revision added, or one a revision dropped); see `judgesRevision`. */
  revisions?: readonly KnownRevision[];
  /** Only for this transport, when the rule is transport-specific. */
  transport?: TransportKind;
  /** Spec page and section, relative to docs/specification/2026-07-28/. */
  source: string;
  title: string;
  /** Overrides the level-derived severity (spec conflicts C1-C9, REC hints). */
  severity?: Severity;
}

export interface Observed {
  msg: RecordedMessage;
  /** The parsed message when it is a JSON object. */
  json?: Record<string, unknown>;
  /** The protocol revision this message is judged by, when it can be told. */
  revision?: string;
  era?: 'legacy' | 'modern';
  /** For responses: the request they answer (sent in the opposite direction). */
  request?: { msg: RecordedMessage; json: Record<string, unknown>; method: string; era?: 'legacy' | 'modern'; invalid?: string };
  transport: TransportKind;
  /** JSON Pointers already reported for this message by the rules run before (the structure
   * rules run last and skip what a more specific rule already said). */
  reported?: string[];
  /** The first rule of error severity this message broke, set by the engine as rules report: a
   * request that broke a MUST may rightly be refused (PendingRequest.invalid). */
  invalid?: string;
}

export type Report = (path: string, message: string) => void;

/**
 * Who sent a message and what shape it has, as the engine tells them once per message for
 * dispatch (validators/engine.ts, `classify`). For a JSON object: `request` has a string `method`
 * and an `id` member, `notification` a string `method` and no `id`, `result` a `result` member,
 * `error` an `error` member (a malformed message may have several of these at once), and `other`
 * none of them. `input_required` is a `result` that is an object with `resultType`
 * "input_required" (a 2026-07-28 server asking the client for input): such a message is both a
 * `result` and an `input_required`, so the rules about what servers ask can skip every other
 * result. `nonjson` is everything that is no JSON object: a text line, invalid UTF-8, a batch
 * array, a JSON scalar. The recorded `kind` of the frame counts as well, should a cassette's
 * `kind` and `json` disagree.
 */
export type Sender = 'client' | 'server';
export type Shape = 'request' | 'notification' | 'result' | 'error' | 'other' | 'nonjson' | 'input_required';
/** A sender's shape (`server-result`), a shape from either side (`result`), every message of one
 * side (`client`), `response` (`result` or `error`), or `json` (every JSON object). */
export type Kind = `${Sender}-${Shape}` | Shape | Sender | 'response' | `${Sender}-response` | 'json' | `${Sender}-json`;
/**
 * What a rule looks at: a kind, optionally followed by a space and a method, which is the
 * message's own `method` for requests and notifications and, for a response, the method of the
 * request it answers (`server-result tools/list`).
 */
export type Interest = Kind | `${Kind} ${string}`;

export interface Rule extends RuleInfo {
  /**
   * The messages this rule can say anything about, or learn anything from (any of them): the
   * engine runs `check` only on those. Without `on` it runs on every message; `[]` never (a rule
   * that judges only exchanges, session ends or recordings). It must cover every message on
   * which `check` could report or change rule-private state.
   */
  on?: readonly Interest[];
  /** The rule's verdict on a message depends only on the message's `result`, the request method
   * it answers, and the revision and era it is judged by (no session state, no raw bytes): a
   * result identical to the last one it judged in the session is not judged again, its reports
   * are repeated (validators/unchanged.ts). */
  resultOnly?: true;
  check(o: Observed, report: Report, state: SessionState): void;
}

/**
 * A rule that also judges a whole HTTP exchange once it is over, when its status, headers and
 * messages are all known (a 401 with an empty body, a 202 to a notification). It runs once per
 * exchange that carried at least one message; its violations point at that first message.
 */
export interface ExchangeRule extends Rule {
  checkExchange(x: HttpExchange, first: RecordedMessage, report: Report, state: SessionState): void;
}

export const judgesExchanges = (rule: Rule): rule is ExchangeRule => typeof (rule as Partial<ExchangeRule>).checkExchange === 'function';

/**
 * A rule that judges the HTTP exchanges that carried no JSON-RPC message (paths outside the MCP
 * endpoint such as OAuth discovery, a GET stream that stayed silent), once each is over. There
 * is no message to point at: its violations carry seq 0.
 */
export interface BareExchangeRule extends Rule {
  checkBareExchange(x: HttpExchange, report: Report, state: SessionState): void;
}

export const judgesBareExchanges = (rule: Rule): rule is BareExchangeRule =>
  typeof (rule as Partial<BareExchangeRule>).checkBareExchange === 'function';

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

export const judgesSessionEnd = (rule: Rule): rule is SessionEndRule =>
  typeof (rule as Partial<SessionEndRule>).checkSessionEnd === 'function';

/** A rule that judges the sessions of one recording together. Its `check` does nothing: it
 * sees no single message. Its verdicts point at a message of one of the sessions. */
export interface RecordingRule extends Rule {
  checkRecording(sessions: readonly SessionDigest[], report: (at: Point, path: string, message: string) => void): void;
}

export const judgesRecordings = (rule: Rule): rule is RecordingRule =>
  typeof (rule as Partial<RecordingRule>).checkRecording === 'function';

/** Each rule ID once (first definition wins): one ID may be checked by more than one function,
 * a hand-written check and the structure check, or the --schema check. */
export function distinctRules<T extends RuleInfo>(rules: readonly T[]): T[] {
  const seen = new Set<string>();
  return rules.filter((r) => !seen.has(r.id) && seen.add(r.id));
}

export function severityOf(rule: RuleInfo): Severity {
  if (rule.severity) return rule.severity;
  if (rule.obs === 'H') return 'warning';
  switch (rule.level) {
    case 'SHOULD':
    case 'SHOULD NOT':
    case 'REC':
      return 'warning';
    default:
      return 'error';
  }
}
