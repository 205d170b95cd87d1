/**
 * The merge of stored live verdicts with re-judging (lib/cassette/masked-verdicts.ts), fast and
 * in-process: the SEC-SECRET-LEAK fixture judged as the live validator judges it, then masked by
 * the recorder's own capture filter (recorder/capture/frame-transform.ts) at each capture level,
 * then validated as `validate` does (a cassette file) and judged again at write (`all`, after live
 * validation shed).
 */
import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger } from '../../lib/log.js';
import { emptyCassette, type RecordedSession } from '../../lib/cassette/cassette.js';
import { evidenceMasked, maskedLiveVerdicts } from '../../lib/cassette/masked-verdicts.js';
import { stringifyCassette } from '../../lib/cassette/store.js';
import { parseRedactPath } from '../../lib/payload-redact.js';
import type { Violation } from '../../lib/violation.js';
import { maskedMessage, type CaptureSettings } from '../../recorder/capture/frame-transform.js';
import type { CaptureLevel } from '../../recorder/capture/capture-level.js';
import { judgeAtWrite } from '../../validators/judge-at-write.js';
import { RULES } from '../../validators/rules/index.js';
import { validateCassettes } from '../../validators/validate-run.js';
import { validateSessions } from '../../validators/validate-sessions.js';
import { fixtureSession, loadFixtures } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const leak = loadFixtures().find((f) => f.rule === 'SEC-SECRET-LEAK')!;
const KEY = 'AKIAIOSFODNN7EXAMPLE';

const settings = (level: CaptureLevel, paths: string[] = [], secrets = true): CaptureSettings => ({
  level,
  redaction: { paths: paths.map(parseRedactPath), values: [], secrets },
  // `hashed` hashes under its cassette folder's key (recorder/capture/hash-key.ts); any key will do here.
  ...(level === 'hashed' ? { hashKey: { id: '0123abcd', key: new Uint8Array(32).fill(7) } } : {}),
});

/** The fixture as a recorder stores it: judged live on the traffic, then masked by `capture`. */
function recorded(capture: CaptureSettings): RecordedSession {
  const s = fixtureSession(leak);
  s.violations = validateSessions([s], { rules: RULES });
  return { ...s, messages: s.messages.map((m) => maskedMessage(capture, m)) };
}

const CAPTURES: [string, CaptureSettings][] = [
  ['the credential shapes (the default)', settings('full')],
  ['--redact-path over the whole content', settings('full', ['/result/content'], false)],
  ['--capture metadata', settings('metadata', [], false)],
  ['--capture hashed', settings('hashed', [], false)],
];

for (const [name, capture] of CAPTURES) {
  test(`${name}: the stored SEC-SECRET-LEAK stands, marked; re-judging alone misses it`, (t) => {
    const s = recorded(capture);
    t.false(JSON.stringify(s.messages).includes(KEY), 'the key is masked');
    const rejudged = validateSessions([s], { rules: RULES });
    t.false(
      rejudged.some((v) => v.rule === 'SEC-SECRET-LEAK'),
      'the stored messages no longer show it',
    );
    const kept = maskedLiveVerdicts(s, rejudged);
    t.deepEqual(
      kept.map((v) => [v.rule, v.seq, v.path, v.evidence]),
      [['SEC-SECRET-LEAK', 2, '/result/content/0/text', 'masked']],
    );
  });
}

test('only the masked verdicts re-judging misses, each once: not one it reproduces, nor one whose evidence is still there', (t) => {
  const s = recorded(settings('full'));
  const older: Violation = { ...s.violations![0]!, rule: 'OLD-RULE', seq: 1, path: '/params/name' };
  const sessionLevel: Violation = { ...s.violations![0]!, rule: 'SESSION-RULE', seq: 0, path: '' };
  const twice = { ...s, violations: [...s.violations!, older, sessionLevel, s.violations![0]!] };
  t.deepEqual(
    maskedLiveVerdicts(twice, []).map((v) => v.rule),
    ['SEC-SECRET-LEAK'],
    'the masked one once; the unmasked (re-judging is the truth) and the session-level ones dropped',
  );
  const unmasked = fixtureSession(leak);
  unmasked.violations = validateSessions([unmasked], { rules: RULES });
  t.deepEqual(maskedLiveVerdicts(unmasked, validateSessions([unmasked], { rules: RULES })), [], 'reproduced: not added again');
});

test('evidenceMasked: the value at the pointer, a pointer into a masked value, a reduced message, a text frame', (t) => {
  const s = recorded(settings('full', ['/result/content'], false));
  const answer = s.messages.find((m) => m.seq === 2)!;
  t.true(evidenceMasked(answer, '/result/content/0/text'), 'the pointer runs into the masked content');
  t.true(evidenceMasked(answer, '/result'), 'an object holding a masked value');
  t.false(evidenceMasked(answer, '/id'), 'a value left as it was');
  t.false(evidenceMasked(answer, '/result/nothing/here'), 'a place the message never had');
  t.false(evidenceMasked(undefined, ''), 'no such message');
  const stderr = maskedMessage(settings('full'), {
    seq: 3,
    t: 1,
    direction: 'server-to-client',
    channel: 'stderr',
    kind: 'text',
    bytes: 30,
    raw: `aws key ${KEY}`,
  });
  t.true(evidenceMasked(stderr, ''), 'a stderr line with the key masked');
});

test('validate: the verdict is reported from a cassette file, after the re-judged ones', (t) => {
  const dir = tempDir(t);
  const path = join(dir, 'masked.cassette.json');
  const cassette = emptyCassette();
  cassette.sessions = [recorded(settings('full'))];
  writeFileSync(path, stringifyCassette(cassette));
  const run = validateCassettes([path]);
  const leaks = run.violations.filter((v) => v.rule === 'SEC-SECRET-LEAK');
  t.deepEqual(
    leaks.map((v) => [v.seq, v.evidence, v.cassette]),
    [[2, 'masked', path]],
  );
  t.is(run.violations.at(-1), leaks[0], 'after what re-judging found');
});

test('judged again at write after live validation shed: the masked live verdict is kept, stored as the live validator gave it', async (t) => {
  const logger = await createLogger({ level: 'silent' });
  const s = recorded(settings('full'));
  const live = s.violations!.find((v) => v.rule === 'SEC-SECRET-LEAK')!;
  const r = judgeAtWrite([s], 'all', { logger, failOn: 'warning' });
  t.deepEqual(
    s.violations!.filter((v) => v.rule === 'SEC-SECRET-LEAK'),
    [live],
    'kept, with no mark stored',
  );
  t.true(r.failed, 'it counts for --fail-on');
});
