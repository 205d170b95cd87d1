/**
 * Validator throughput: every message of the example cassettes (real recorded traffic, both
 * eras, stdio and HTTP) through the full rule set, repeated, on one core.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette } from '../../lib/cassette/store.js';
import { validateSession } from '../../validators/engine.js';
import { RULES } from '../../validators/rules/index.js';
import { root } from '../helpers/paths.js';

export function validatorThroughput(rounds: number): { messages: number; seconds: number; perSecond: number } {
  const dir = join(root, 'cassettes', 'examples');
  const sessions = readdirSync(dir).filter((f) => f.endsWith('.cassette.json')).flatMap((f) => loadCassette(join(dir, f)).sessions);
  const perRound = sessions.reduce((n, s) => n + s.messages.length, 0);
  for (const s of sessions) validateSession(s, { rules: RULES }); // warm up (compiles tool schemas once)
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) for (const s of sessions) validateSession(s, { rules: RULES });
  const seconds = (performance.now() - t0) / 1000;
  return { messages: perRound * rounds, seconds, perSecond: (perRound * rounds) / seconds };
}
