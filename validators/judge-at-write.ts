import type { RecordedSession } from '../lib/cassette/cassette.js';
import { hasSpilledField, inMemory } from '../lib/framing/spilled-message.js';
import type { Logger } from '../lib/log.js';
import { maskedLiveVerdicts } from '../lib/cassette/masked-verdicts.js';
import { SEVERITY_ORDER, type Severity, type Violation } from '../lib/violation.js';
import { summaryLines } from './alerts.js';
import { RULES } from './rules/index.js';
import { validateRecordings } from './recording.js';
import { validateSessions } from './validate-sessions.js';

/** What the live validator left to the cassette write. */
export type WriteScope =
  /** It shed: every message of the recording is judged now, and these verdicts replace the live ones. */
  | 'all'
  /** Several workers judged the sessions: the rules that compare the sessions of the run are judged now. */
  | 'cross-session';

export interface WriteVerdicts {
  /** Messages judged now. */
  judged: number;
  /** Violations found now. */
  violations: number;
  /** Violations at the --fail-on level are stored on the sessions. */
  failed: boolean;
}

/**
 * Judges, while the cassette is written, what live validation did not: the sessions' stored
 * verdicts come out as the live validator gives them when nothing is shed (the offline validator
 * is the same engine, replayed in the order the live one saw the traffic; validate-sessions.ts).
 * The summary of the violations found is logged, as the live validator logs its own.
 */
export function judgeAtWrite(
  sessions: RecordedSession[],
  scope: WriteScope,
  options: { logger: Logger; failOn?: Severity },
): WriteVerdicts {
  const rules = {
    rules: RULES,
    onRuleError: (rule: string, err: unknown) =>
      options.logger.error({ rule, err }, `rule ${rule} failed while the cassette was written (a validator bug); validation goes on`),
  };
  const bySession = new Map(sessions.map((s) => [s.id, [] as Violation[]]));
  const found: Violation[] = [];
  if (scope === 'all') found.push(...validateSessions(sessions.map(sessionInMemory), rules));
  // The recording rules of an HTTP run (stdio sessions are compared by `validate`, across runs).
  const http = sessions.filter((s) => s.transport === 'streamable-http');
  if (http.length > 0) found.push(...validateRecordings(http, rules));
  for (const v of found) bySession.get(v.session)?.push(v);
  for (const s of sessions) {
    const mine = bySession.get(s.id)!;
    // Judged again from the messages as stored: what the live validator saw before the capture
    // filter masked it stays (re-judging cannot see it), stored as the live validator gave it.
    const seen = scope === 'all' ? maskedLiveVerdicts(s, mine).map(({ evidence: _, ...v }) => v) : [];
    const kept = scope === 'all' ? [...mine, ...seen] : [...(s.violations ?? []), ...mine];
    // Judged here or live: the list stays, empty for a clean session ("none", not "not judged").
    s.violations = kept;
  }
  const judged = scope === 'all' ? sessions.reduce((n, s) => n + s.messages.length, 0) : 0;
  if (found.length > 0) {
    const counts = new Map<string, { rule: string; severity: Severity; count: number }>();
    for (const v of found) {
      const c = counts.get(v.rule) ?? { rule: v.rule, severity: v.severity, count: 0 };
      c.count++;
      counts.set(v.rule, c);
    }
    const table = [...counts.values()].sort((a, b) => b.count - a.count);
    options.logger.warn(
      { summary: table, judgedAtWrite: judged },
      `spec violations found while the cassette was written (${scope === 'all' ? `all ${judged} messages, after live validation shed` : 'the rules that compare sessions'}):\n${summaryLines(table)}`,
    );
  }
  const all = sessions.flatMap((s) => s.violations ?? []);
  const failed = options.failOn !== undefined && all.some((v) => SEVERITY_ORDER[v.severity] >= SEVERITY_ORDER[options.failOn as Severity]);
  return { judged, violations: found.length, failed };
}

/** A session as the rules read it: a frame folded into the spill file (over 4 MB) holds its value
 * there, and the rules need the value itself (a SpilledJson is no JSON-RPC message). The session
 * written keeps its spilled fields, which the writer streams. */
function sessionInMemory(s: RecordedSession): RecordedSession {
  return s.messages.some(hasSpilledField) ? { ...s, messages: s.messages.map(inMemory) } : s;
}
