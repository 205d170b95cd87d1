/**
 * The rules a server broke in one session, for a caller outside validators/ that must not know
 * the rules: `replay` of a fuzz finding's cassette asks whether the live server still breaks the
 * finding's rule. The composition root (lib/cli-main.ts) hands this to replay.
 */
import type { RecordedSession } from '../lib/cassette/cassette.js';
import { validateSession } from './engine.js';
import { RULES } from './rules/index.js';

export function serverRulesBroken(session: RecordedSession): string[] {
  const found = validateSession(session, { rules: RULES, onRuleError: () => {} });
  return [...new Set(found.filter((v) => v.direction === 'server-to-client' && v.severity !== 'info').map((v) => v.rule))];
}
