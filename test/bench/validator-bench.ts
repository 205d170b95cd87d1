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

/**
 * `warmupRounds` passes are made before timing: 1 (the target's first-pass figure, which includes
 * V8 optimizing the validator as it runs), or many for the sustained rate of optimized code.
 */
export function validatorThroughput(rounds: number, warmupRounds = 1): { messages: number; seconds: number; perSecond: number } {
  const dir = join(root, 'cassettes', 'examples');
  const sessions = readdirSync(dir)
    .filter((f) => f.endsWith('.cassette.json'))
    .flatMap((f) => loadCassette(join(dir, f)).sessions);
  const perRound = sessions.reduce((n, s) => n + s.messages.length, 0);
  // Warm up (the first compiles the SDK schemas and tool schemas once).
  for (let i = 0; i < warmupRounds; i++) for (const s of sessions) validateSession(s, { rules: RULES });
  const t0 = performance.now();
  for (let i = 0; i < rounds; i++) for (const s of sessions) validateSession(s, { rules: RULES });
  const seconds = (performance.now() - t0) / 1000;
  return { messages: perRound * rounds, seconds, perSecond: (perRound * rounds) / seconds };
}
