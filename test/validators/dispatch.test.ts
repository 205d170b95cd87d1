import test from 'ava';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { loadCassette } from '../../lib/cassette/store.js';
import { classify, wants } from '../../validators/dispatch.js';
import { validateSession } from '../../validators/engine.js';
import type { Rule } from '../../validators/rule.js';
import { RULES } from '../../validators/rules/index.js';
import { SessionState } from '../../validators/session-state.js';
import { fixtureSessions, loadFixtures } from '../helpers/fixtures.js';
import { root } from '../helpers/paths.js';

/*
 * The engine runs a rule only on the messages its `on` names (validators/rule.ts). These tests
 * hold every `on` to what its rule does, on every fixture and the example cassettes (real traffic).
 */

const examples = join(root, 'cassettes', 'examples');
const corpus: RecordedSession[][] = [
  ...loadFixtures().map((f) => fixtureSessions(f)),
  ...readdirSync(examples)
    .filter((f) => f.endsWith('.cassette.json'))
    .map((f) => loadCassette(join(examples, f)).sessions),
];

test('every rule reports only on messages its `on` takes (each rule run on every message)', (t) => {
  const misses = new Set<string>();
  let runs = 0;
  for (const sessions of corpus) {
    for (const session of sessions) {
      const state = new SessionState(session);
      for (const msg of session.messages) {
        if (msg.channel === 'stderr') continue;
        const o = state.observe(msg);
        const { bits, method } = classify(o);
        for (const rule of RULES) {
          if ((rule.transport && rule.transport !== o.transport) || !(rule.era === 'all' || rule.era === o.era)) continue;
          let said = false;
          try {
            rule.check(o, () => (said = true), state);
          } catch {
            said = true;
          }
          runs++;
          if (said && !wants(rule, bits, method))
            misses.add(`${rule.id} on ${session.id} #${msg.seq} (${msg.direction} ${msg.kind} ${method ?? ''})`);
        }
        state.commit(o);
      }
    }
  }
  t.true(runs > 100_000, `${runs} rule runs`);
  t.deepEqual([...misses], []);
});

test('dispatching by `on` gives the same verdicts as running every rule on every message', (t) => {
  // The same rules without `on` (and so run on everything), as separate objects.
  const everywhere: Rule[] = RULES.map((r) => {
    const copy = { ...r };
    delete copy.on;
    return copy;
  });
  const errors: string[] = [];
  const onRuleError = (rule: string, err: unknown) => errors.push(`${rule}: ${String(err)}`);
  let verdicts = 0;
  for (const sessions of corpus) {
    for (const session of sessions) {
      const dispatched = validateSession(session, { rules: RULES, onRuleError });
      t.deepEqual(dispatched, validateSession(session, { rules: everywhere, onRuleError }), session.id);
      verdicts += dispatched.length;
    }
  }
  t.true(verdicts > 200, `${verdicts} verdicts compared`);
  t.deepEqual(errors, []);
});

test('most rules declare what they look at, and a typical message reaches few of them', (t) => {
  const undeclared = RULES.filter((r) => r.on === undefined).map((r) => r.id);
  // The two that must see every frame: the stdio framing scanner and the carrier of the negotiated memory (rules/support/negotiated.ts).
  t.deepEqual(undeclared.sort(), ['ENV-RESULTTYPE-LEGACY', 'STDIO-FRAMING']);
  let messages = 0;
  let reached = 0;
  for (const sessions of corpus.slice(-3)) {
    for (const session of sessions) {
      const state = new SessionState(session);
      for (const msg of session.messages) {
        const o = state.observe(msg);
        const { bits, method } = classify(o);
        messages++;
        reached += RULES.filter(
          (r) => (!r.transport || r.transport === o.transport) && (r.era === 'all' || r.era === o.era) && wants(r, bits, method),
        ).length;
        state.commit(o);
      }
    }
  }
  t.true(reached / messages < 60, `${(reached / messages).toFixed(1)} of ${RULES.length} rules per message of real traffic`);
});
