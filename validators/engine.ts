import type { RecordedSession } from '../lib/cassette/cassette.js';
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
 * Judges one session's messages in order. Each message is classified (revision, era, the request
 * it answers) from the state before it, every applicable rule sees it, then the state moves on.
 */
export function validateSession(session: RecordedSession, options: ValidateOptions): Violation[] {
  const state = new SessionState(session);
  const out: Violation[] = [];
  for (const msg of session.messages) {
    if (msg.channel === 'stderr') continue; // stderr is free-form logging (STDIO-STDERR)
    const o = state.observe(msg);
    for (const rule of options.rules) {
      if (!applies(rule, o)) continue;
      const report = (path: string, message: string): void => {
        out.push({ rule: rule.id, severity: severityOf(rule), session: session.id, seq: msg.seq, direction: msg.direction, path, message, spec: specLink(rule.source) });
      };
      try {
        rule.check(o, report, state);
      } catch (err) {
        options.onRuleError?.(rule.id, err);
      }
    }
    state.commit(o);
  }
  return out;
}
