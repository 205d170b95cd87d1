import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { exitCodeFor, replayCassette } from '../../replay/index.js';
import type { Difference, ReplayResult, Verdict } from '../../replay/index.js';
import { node } from '../helpers/paths.js';
import { recordTargetCassette, replayTarget } from './target-client.js';
import { removeDir } from '../helpers/tmp.js';

// One cassette recorded from the plain server (2025 elicitation and 2026-07-28 MRTR sessions),
// replayed against the same server with one seeded regression switched on per test.
const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-replay-'));
const cassette = join(dir, 'target.cassette.json');
test.before(async () => {
  await recordTargetCassette(cassette);
});
test.after.always(() => removeDir(dir));

const replay = (regression?: string) =>
  replayCassette(cassette, {
    command: [node, replayTarget, ...(regression ? ['--regression', regression] : [])],
    config: false,
    timeoutMs: 5000,
  });

const all = (r: ReplayResult): Difference[] => r.sessions.flatMap((s) => s.interactions.flatMap((i) => i.differences));

function expectChange(t: import('ava').ExecutionContext, r: ReplayResult, kind: string, verdict: Verdict, methods: string[]): void {
  t.is(r.error, undefined);
  const hits = r.sessions.flatMap((s) =>
    s.interactions.filter((i) => i.differences.some((d) => d.kind === kind)).map((i) => `${s.revision} ${i.method}`),
  );
  for (const era of ['2025-11-25', '2026-07-28']) {
    for (const m of methods)
      t.true(hits.includes(`${era} ${m}`), `${kind} found on ${m} in the ${era} session (found: ${hits.join(', ')})`);
  }
  for (const d of all(r).filter((d) => d.kind === kind)) t.is(d.verdict, verdict, d.message);
}

test('replaying against the server that recorded it passes: fresh UUIDs, timestamps, versions and requestState are not differences', async (t) => {
  const r = await replay();
  t.is(r.outcome, 'passed');
  t.deepEqual(all(r), []);
  t.is(r.summary.breaking + r.summary.warning + r.summary.compatible, 0);
  // Both eras ran to the end: the 2025 elicitation was answered, the 2026-07-28 retry carried the live requestState.
  const confirms = r.sessions.flatMap((s) =>
    s.interactions.filter((i) => i.name === 'confirm_action').map((i) => `${s.revision}:${i.outcome}`),
  );
  t.deepEqual(confirms.sort(), ['2025-11-25:same', '2026-07-28:same', '2026-07-28:same']);
});

test('a removed tool is breaking', async (t) => {
  const r = await replay('tool-removed');
  expectChange(t, r, 'tool-removed', 'breaking', ['tools/list']);
  expectChange(t, r, 'success-became-error', 'breaking', ['tools/call']);
  t.is(r.outcome, 'breaking');
});

test('a new required input property is breaking', async (t) => {
  const r = await replay('new-required-input');
  expectChange(t, r, 'input-required-added', 'breaking', ['tools/list']);
  t.true(all(r).some((d) => d.kind === 'input-required-added' && d.message.includes('"limit"')));
});

test('a shrunk input enum is breaking', async (t) => {
  const r = await replay('enum-shrunk');
  expectChange(t, r, 'input-enum-shrunk', 'breaking', ['tools/list']);
  t.true(all(r).some((d) => d.kind === 'input-enum-shrunk' && d.message.includes('"deep"')));
});

test('a changed tool description is a warning, not breaking', async (t) => {
  const r = await replay('description-changed');
  expectChange(t, r, 'tool-description-changed', 'warning', ['tools/list']);
  t.is(r.outcome, 'passed');
  t.is(r.summary.breaking, 0);
  t.true(r.summary.warning > 0);
});

test('isError instead of success is breaking', async (t) => {
  const r = await replay('is-error');
  expectChange(t, r, 'tool-call-is-error', 'breaking', ['tools/call']);
});

test('a changed error code is breaking', async (t) => {
  const r = await replay('error-code-changed');
  expectChange(t, r, 'error-code-changed', 'breaking', ['resources/read']);
  const d = all(r).find((x) => x.kind === 'error-code-changed')!;
  t.is(d.recorded, -32602);
  t.is(d.live, -32603);
});

test('changed text content is output-changed: it fails the replay by default, without being called breaking; content: warn makes it a warning', async (t) => {
  const r = await replay('content-changed');
  expectChange(t, r, 'output-changed', 'changed', ['tools/call']);
  t.true(all(r).some((d) => d.path === '/result/content/0/text' && d.recorded === '3 hits for cats' && d.live === '4 hits for cats'));
  t.is(r.outcome, 'changed');
  t.is(r.summary.breaking, 0);
  t.true(r.summary.changed > 0);
  t.is(exitCodeFor(r), 1);
  const warned = await replayCassette(cassette, {
    command: [node, replayTarget, '--regression', 'content-changed'],
    config: false,
    timeoutMs: 5000,
    content: 'warn',
  });
  t.is(warned.outcome, 'passed');
  t.is(exitCodeFor(warned), 0);
  t.true(all(warned).some((d) => d.kind === 'output-changed' && d.verdict === 'warning'));
});

test('a lost readOnlyHint is breaking', async (t) => {
  const r = await replay('readonly-lost');
  expectChange(t, r, 'readonly-hint-lost', 'breaking', ['tools/list']);
});

test('an added tool is compatible and the replay passes', async (t) => {
  const r = await replay('tool-added');
  expectChange(t, r, 'tool-added', 'compatible', ['tools/list']);
  t.is(r.outcome, 'passed');
  t.deepEqual(
    all(r).map((d) => d.kind),
    ['tool-added', 'tool-added'],
  );
});
