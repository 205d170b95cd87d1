import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { Violation } from '../lib/violation.js';
import { SessionValidator, validateSession, type ValidateOptions } from './engine.js';
import { recordingsOf } from './recording.js';
import { ServerContexts } from './server-context.js';

/** A time in whole microseconds (the journal's resolution), so equal times compare equal. */
const micros = (ms: number): number => Math.round(ms * 1000);

/** A stateless HTTP session: an exchange of a 2026-07-28 run, without Mcp-Session-Id. */
const stateless = (s: RecordedSession): boolean => s.transport === 'streamable-http' && s.mcpSessionId === undefined;

/**
 * Offline: the per-session verdicts on the sessions of a cassette. A stdio session and a 2025
 * sessionful HTTP session are judged alone, as before. The stateless HTTP sessions of one
 * recording share the server context of their upstream and caller (server-context.ts), so they
 * are judged together, their messages and exchange ends interleaved in the order of the journal,
 * which is the order the live validator saw them in: by time on the journal's clock (a session's
 * `startedAt` plus a message's `t`, or an exchange's `endT`), then by exchange, then a message
 * before the end of its exchange, then by seq. The verdicts come back session by session.
 */
export function validateSessions(sessions: readonly RecordedSession[], options: ValidateOptions): Violation[] {
  const bySession = new Map<RecordedSession, Violation[]>();
  for (const s of sessions) if (!stateless(s)) bySession.set(s, validateSession(s, options));
  for (const recording of recordingsOf(sessions)) {
    const mine = recording.filter(stateless);
    if (mine.length === 0) continue;
    const contexts = new ServerContexts();
    const base = Math.min(...mine.map((s) => Date.parse(s.startedAt)));
    const events: { t: number; x: number; end: 0 | 1; seq: number; run: () => Violation[] }[] = [];
    const validators = mine.map((s) => {
      const out: Violation[] = [];
      bySession.set(s, out);
      const v = new SessionValidator(s, options, contexts.for(s.target, s.exchanges?.[0]));
      const start = Date.parse(s.startedAt) - base;
      const carried = new Map<number, RecordedSession['messages'][number]>();
      for (const m of s.messages) {
        const x = m.http?.exchange ?? -1;
        if (!carried.has(x)) carried.set(x, m);
        events.push({ t: micros(start + m.t), x, end: 0, seq: m.seq, run: () => v.check(m) });
      }
      for (const x of s.exchanges ?? []) {
        const first = carried.get(x.id);
        events.push({
          t: micros(start + (x.endT ?? x.t)),
          x: x.id,
          end: 1,
          seq: 0,
          run: () => (first ? v.exchangeEnd(x, first) : v.bareExchangeEnd(x)),
        });
      }
      return { s, v, out };
    });
    events.sort((a, b) => a.t - b.t || a.x - b.x || a.end - b.end || a.seq - b.seq);
    const outOf = new Map(validators.map(({ s, out }) => [s.id, out]));
    for (const e of events) {
      for (const found of e.run()) outOf.get(found.session)!.push(found);
    }
    for (const { s, v, out } of validators) out.push(...v.endSession(s.end));
  }
  return sessions.flatMap((s) => bySession.get(s) ?? []);
}
