/**
 * `show` on a session judged live and clean says so (issue 31): the official memory server's
 * `initialize` and `ping` through `record` (live validation on, the default) gives no finding, and the
 * cassette keeps an empty list, which `show` reads as "none (judged live)"; with --no-validate it
 * says the session was not judged live.
 */
import test from 'ava';
import { join } from 'node:path';
import { cli, node, root } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { recordSdkSession } from '../helpers/sdk-recording.js';
import { loadCassette } from '../../lib/cassette/store.js';

const memory = join(root, 'node_modules', '@modelcontextprotocol', 'server-memory', 'dist', 'index.js');

test('server-memory judged live and clean: the cassette keeps an empty list and show says "none (judged live)"', async (t) => {
  const { dir } = await recordSdkSession(t, [node, memory], async (c) => void (await c.ping()), {
    env: (d) => ({ MEMORY_FILE_PATH: join(d, 'memory.jsonl') }),
  });
  const path = join(dir, 'real.cassette.json');
  // show reads the cassette once the recorder's finisher has settled it.
  const shown = (await collect(spawnTracked(t, node, [cli, 'show', path]))).stdout.toString();
  t.regex(shown, /violations: none \(judged live\)/);
  t.notRegex(shown, /not judged live|validation was off/);
  t.deepEqual(loadCassette(path).sessions[0]!.violations, [], 'judged live, nothing found: the list is kept, empty');
  const off = join(dir, 'off.cassette.json');
  const rec = spawnTracked(t, node, [cli, 'record', '--no-validate', '--log-level', 'warn', '-c', off, '--', node, memory], {
    env: { ...process.env, MEMORY_FILE_PATH: join(dir, 'off.jsonl') },
  });
  rec.stdin!.end();
  await collect(rec);
  const offShown = (await collect(spawnTracked(t, node, [cli, 'show', off]))).stdout.toString();
  t.regex(offShown, /violations: not judged live \(recorded with --no-validate/);
});
