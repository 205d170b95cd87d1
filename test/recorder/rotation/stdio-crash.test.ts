import test from 'ava';
import { rawServer } from '../../helpers/paths.js';
import { tempDir } from '../../helpers/tmp.js';
import { waitForOutput } from '../../helpers/proc.js';
import { waitForDirFinishers } from '../../helpers/recording.js';
import { cassetteFiles, cli, collect, journalsIn, node, readJson, spawnTracked } from './dir-helpers.js';

test('stdio: SIGKILL of `record --cassette-dir` loses nothing forwarded; recover on the directory (or the next run) restores it', async (t) => {
  const dir = tempDir(t);
  const rec = spawnTracked(t, node, [cli, 'record', '--cassette-dir', dir, '--no-validate', '--', node, rawServer, 'echo']);
  const done = collect(rec);
  rec.stdin!.write('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  await waitForOutput(rec.stdout!, (s) => s.includes('"id":1'));
  rec.stdin!.write('{"jsonrpc":"2.0","id":2,"method":"ping"}\n');
  await waitForOutput(rec.stdout!, (s) => s.includes('"id":2'));
  rec.kill('SIGKILL');
  await done;
  t.is(journalsIn(dir).length, 1);
  t.deepEqual(cassetteFiles(dir), []);
  // The next run in the same directory has what the dead one left folded (by its finisher).
  const next = spawnTracked(t, node, [cli, 'record', '--cassette-dir', dir, '--no-validate', '--', node, rawServer, 'echo']);
  const nextDone = collect(next);
  next.stdin!.end('{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  t.is((await nextDone).code, 0);
  waitForDirFinishers(dir);
  t.deepEqual(journalsIn(dir), []);
  const files = cassetteFiles(dir);
  t.is(files.length, 2);
  const first = readJson(files[0]!).sessions[0]!;
  t.is(first.end?.reason, 'recovered');
  t.deepEqual(
    first.messages.filter((m) => m.direction === 'server-to-client').map((m) => (m.json as { id: number }).id),
    [1, 2],
    'every answer the client got',
  );
  // recover on the directory has nothing left to do.
  const again = await collect(spawnTracked(t, node, [cli, 'recover', dir]));
  t.is(again.code, 0);
  t.regex(again.stdout.toString(), /nothing to recover/);
});
