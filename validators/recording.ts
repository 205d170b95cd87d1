import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { LiveRef } from '../lib/live-observer.js';
import type { Violation } from '../lib/violation.js';
import type { ValidateOptions } from './engine.js';
import { judgesRecordings, severityOf, specLink } from './rule.js';
import { type Point, SessionDigest } from './session-digest.js';

/*
 * Cross-session validation. The engine judges one session at a time, but some rules need several
 * sessions of one recording: on Streamable HTTP 2026-07-28 every stateless exchange is a session
 * of its own, and a stdio cassette holds one session per server process. Each session is read
 * once into a small digest of facts (requests and their timing, first list answers, HTTP
 * exchanges); the recording rules judge the digests of one recording together. The same digests
 * are built offline (`validate`, from the cassette) and live (`record --upstream`, as the
 * exchanges go by, judged when the proxy run ends), so both reach the same verdicts.
 */

// The digests and their facts: session-digest.ts.

/** The revision of the traffic a verdict points at: its request's, else its session's. */
function revisionAt(sessions: readonly SessionDigest[], at: Point): string | undefined {
  const s = sessions.find((d) => d.id === at.session);
  return s?.requests.find((r) => r.at.seq === at.seq)?.revision ?? s?.legacyRevision ?? s?.requests.find((r) => r.revision)?.revision;
}

/** Runs the recording rules over the digests of one recording. */
export function judgeRecording(sessions: readonly SessionDigest[], options: ValidateOptions): (Violation & { ref?: LiveRef })[] {
  const out: (Violation & { ref?: LiveRef })[] = [];
  for (const rule of options.rules) {
    if (!judgesRecordings(rule)) continue;
    const mine = sessions.filter((s) => !rule.transport || s.transport === rule.transport);
    if (mine.length === 0) continue;
    const report = (at: Point, path: string, message: string): void => {
      out.push({
        rule: rule.id,
        severity: severityOf(rule),
        session: at.session,
        seq: at.seq,
        direction: at.direction,
        path,
        message,
        spec: specLink(rule.source, revisionAt(mine, at)),
        ...(at.ref ? { ref: at.ref } : {}),
      });
    };
    try {
      rule.checkRecording(mine, report);
    } catch (err) {
      options.onRuleError?.(rule.id, err);
    }
  }
  return out;
}

/**
 * The recordings in a cassette's sessions: the sessions of one HTTP proxy run (ids
 * `<run>-<n>`, lib/cassette/fold-http.ts), and the stdio sessions (one per server process; the
 * rules compare processes of the same command).
 */
export function recordingsOf(sessions: readonly RecordedSession[]): RecordedSession[][] {
  const groups = new Map<string, RecordedSession[]>();
  for (const s of sessions) {
    const key = s.transport === 'streamable-http' ? `http ${s.id.replace(/-\d+$/, '')}` : 'stdio';
    const g = groups.get(key);
    if (g) g.push(s);
    else groups.set(key, [s]);
  }
  return [...groups.values()];
}

/** Offline: the cross-session verdicts on a cassette's sessions. */
export function validateRecordings(sessions: readonly RecordedSession[], options: ValidateOptions): Violation[] {
  if (!options.rules.some(judgesRecordings)) return [];
  return recordingsOf(sessions).flatMap((group) =>
    judgeRecording(
      group.map((s) => SessionDigest.of(s)),
      options,
    ),
  );
}
