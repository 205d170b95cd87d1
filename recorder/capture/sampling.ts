import { createHash } from 'node:crypto';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { NO_METRICS, type MetricsSink } from '../../lib/metrics.js';
import { SEVERITY_ORDER, type Severity } from '../../lib/violation.js';

/**
 * `--sample <fraction>`: which sessions are written to the cassette. A session (on stateless
 * HTTP each exchange is a session of its own) is kept when the hash of its id falls under the
 * fraction, so the choice is the same wherever the session is folded (a session that spans two
 * rotated cassettes is kept in both or neither), and always when the live validator found a
 * violation at `--keep-violations` or above. Every session is journaled and validated whole
 * until it is folded; sampling decides only what the cassette keeps.
 */
export interface SamplingSettings {
  fraction: number;
  /** Keep any session with a violation at this severity or above; 'none' never overrides. */
  keepViolations: Severity | 'none';
}

export interface SampleOutcome {
  kept: RecordedSession[];
  /** Sessions left out, and their messages. */
  sampledOut: { sessions: number; messages: number };
  /** Of the kept sessions, those kept only for a violation. */
  keptForViolations: number;
}

/** Where a session id falls in [0, 1). */
export function samplePoint(id: string): number {
  return createHash('sha256').update(id).digest().readUInt32BE(0) / 2 ** 32;
}

function worstOf(session: RecordedSession): Severity | undefined {
  let worst: Severity | undefined;
  for (const v of session.violations ?? [])
    if (worst === undefined || SEVERITY_ORDER[v.severity] > SEVERITY_ORDER[worst]) worst = v.severity;
  return worst;
}

/** Whether a session is kept: under the fraction by the hash of its id (the same answer wherever
 * it is asked: the proxy at its exit, the process that writes the cassette), or for a violation
 * at `keepViolations` or above (`worst`: its worst verdict). */
export function keepsSession(id: string, worst: Severity | undefined, s: SamplingSettings): 'sampled' | 'violation' | false {
  if (s.fraction >= 1 || samplePoint(id) < s.fraction) return 'sampled';
  if (s.keepViolations !== 'none' && worst !== undefined && SEVERITY_ORDER[worst] >= SEVERITY_ORDER[s.keepViolations]) return 'violation';
  return false;
}

/** What one sampling decided, in numbers: what a fold worker hands back to the proxy. */
export interface SampleCounts {
  kept: number;
  keptForViolations: number;
  sessionsOut: number;
  messagesOut: number;
}

export function sampleCounts(outcome: SampleOutcome): SampleCounts {
  return {
    kept: outcome.kept.length,
    keptForViolations: outcome.keptForViolations,
    sessionsOut: outcome.sampledOut.sessions,
    messagesOut: outcome.sampledOut.messages,
  };
}

/** Reports what sampling decided to the metrics (in the proxy's thread, wherever it was folded). */
export function countSampling(c: SampleCounts, metrics: MetricsSink): void {
  const bySample = c.kept - c.keptForViolations;
  if (bySample > 0) metrics.count('mcp_cassette_sessions_kept_total', { reason: 'sampled' }, bySample);
  if (c.keptForViolations > 0) metrics.count('mcp_cassette_sessions_kept_total', { reason: 'violation' }, c.keptForViolations);
  if (c.sessionsOut > 0) {
    metrics.count('mcp_cassette_sessions_sampled_out_total', {}, c.sessionsOut);
    metrics.count('mcp_cassette_messages_sampled_out_total', {}, c.messagesOut);
  }
}

/** Chooses the sessions the cassette keeps; `metrics` hears of it (a fold worker passes none and
 * hands the counts back). */
export function sampleSessions(
  sessions: readonly RecordedSession[],
  s: SamplingSettings,
  metrics: MetricsSink = NO_METRICS,
): SampleOutcome {
  const out: SampleOutcome = { kept: [], sampledOut: { sessions: 0, messages: 0 }, keptForViolations: 0 };
  for (const session of sessions) {
    const kept = keepsSession(session.mcpSessionId ?? session.id, worstOf(session), s);
    if (kept === 'sampled') out.kept.push(session);
    else if (kept === 'violation') {
      out.kept.push(session);
      out.keptForViolations += 1;
    } else {
      out.sampledOut.sessions += 1;
      out.sampledOut.messages += session.messages.length;
    }
  }
  countSampling(sampleCounts(out), metrics);
  return out;
}
