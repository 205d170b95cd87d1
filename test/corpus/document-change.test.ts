/**
 * A document's text fixed in a new build is a changed output, not a broken client (issue 30):
 * server-everything 2026.8.31 fixed `trigger-trigger-long-running-operation.ts` in its
 * features.md and described two more tools there. Replayed from a 2026.1.26 recording, the read
 * is `output-changed` (verdict `changed`): it fails the replay by default, and `--content warn`
 * makes it a warning.
 */
import test from 'ava';
import { join } from 'node:path';
import { exitCodeFor, replayCassette } from '../../replay/index.js';
import { node } from '../helpers/paths.js';
import { recordSdkSession } from '../helpers/sdk-recording.js';
import { entryPoint, EVERYTHING } from './versions.js';

const FEATURES = 'demo://resource/static/document/features.md';

test('everything 2026.1.26 → 2026.8.31: features.md with a typo fixed is output-changed, exit 1; content: warn, a warning and exit 0', async (t) => {
  const [older, newer] = [EVERYTHING.find((v) => v.version === '2026.1.26')!, EVERYTHING.find((v) => v.version === '2026.8.31')!];
  const { dir } = await recordSdkSession(
    t,
    [node, entryPoint(older), 'stdio'],
    async (c) => void (await c.readResource({ uri: FEATURES })),
  );
  const cassette = join(dir, 'real.cassette.json');
  const live = [node, entryPoint(newer), 'stdio'];

  const r = await replayCassette(cassette, { command: live, config: false });
  const read = r.sessions[0]!.interactions.find((i) => i.method === 'resources/read')!;
  t.deepEqual(
    read.differences.map((d) => `${d.kind} ${d.verdict} ${d.path}`),
    ['output-changed changed /result/contents/0/text'],
  );
  const d = read.differences[0]!;
  t.true(String(d.recorded).includes('tools/trigger-trigger-long-running-operation.ts'));
  t.true(String(d.live).includes('tools/trigger-long-running-operation.ts'));
  t.is(r.summary.breaking, 0, 'a fixed typo breaks no client');
  t.is(r.outcome, 'changed');
  t.is(exitCodeFor(r), 1);

  const warned = await replayCassette(cassette, { command: live, config: false, content: 'warn' });
  t.deepEqual(
    warned.sessions[0]!.interactions.flatMap((i) => i.differences.map((x) => `${x.kind} ${x.verdict}`)),
    ['output-changed warning'],
  );
  t.is(exitCodeFor(warned), 0);
});
