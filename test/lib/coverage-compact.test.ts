/**
 * The pass that shrinks V8 coverage before `c8 report` (test/setup/coverage-compact.mjs): a test
 * run's processes leave one file each, and one that ended while Node wrote it leaves a cut or
 * empty file. c8 skips such a file; the pass must too, or test:all fails after every test passed.
 */
import test from 'ava';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { tempDir } from '../helpers/tmp.js';

test('keeps only our compiled scripts, drops the source maps, and leaves cut or empty files for c8 to skip', async (t) => {
  const dir = tempDir(t, 'mcp-cassette-coverage-');
  const ours = `${pathToFileURL(join(root, 'dist', 'lib', 'message.js')).href}`;
  const theirs = 'node:internal/fs/utils';
  const whole = {
    result: [
      { url: ours, functions: [] },
      { url: theirs, functions: [] },
    ],
    'source-map-cache': { [ours]: { data: {} } },
  };
  writeFileSync(join(dir, 'whole.json'), JSON.stringify(whole));
  writeFileSync(join(dir, 'empty.json'), '');
  const cut = '{"result":[{"url":"node:fs","functions":[';
  writeFileSync(join(dir, 'cut.json'), cut);

  const r = await collect(
    spawnTracked(t, node, [join(root, 'test', 'setup', 'coverage-compact.mjs'), dir], { env: { ...process.env, NODE_V8_COVERAGE: '' } }),
  );
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout.toString(), /\(2 unreadable file\(s\) left for c8 to skip\)/);
  t.deepEqual(JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8')), { result: [{ url: ours, functions: [] }] });
  t.is(readFileSync(join(dir, 'empty.json'), 'utf8'), '');
  t.is(readFileSync(join(dir, 'cut.json'), 'utf8'), cut);
});
