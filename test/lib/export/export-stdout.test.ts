/**
 * `export` to a pipe whose reader is slower than the writer (a parent process busy elsewhere, a
 * consumer that takes its time): every byte arrives, the same bytes `--output` writes. Node makes
 * a pipe's fd non-blocking once it opened it, so a plain write there takes what fits (64 KB) and
 * used to lose the rest; the fuzz suite met it on its 1 MB cassettes.
 */
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import test from 'ava';
import { cli, node, root } from '../../helpers/paths.js';
import { delay, spawnTracked } from '../../helpers/proc.js';
import { tempDir } from '../../helpers/tmp.js';

/** A recording with one 3 MB answer: its HAR is more than a pipe or a socket pair holds. */
function bigCassette(dir: string): string {
  const c = JSON.parse(readFileSync(join(root, 'cassettes', 'examples', 'example-server-http.cassette.json'), 'utf8'));
  const answer = c.sessions[2].messages[1];
  answer.json.result.content[0].text = 'x'.repeat(3 << 20);
  answer.bytes = Buffer.byteLength(JSON.stringify(answer.json));
  const file = join(dir, 'big.cassette.json');
  writeFileSync(file, JSON.stringify(c));
  return file;
}

test('export to a slow pipe: every byte arrives, as --output writes them', async (t) => {
  const dir = tempDir(t);
  const file = join(dir, 'big.har');
  const args = [cli, 'export', bigCassette(dir), '--format', 'har'];
  const written = spawnTracked(t, node, [...args, '--output', file]);
  t.is((await once(written, 'close'))[0], 0);
  const want = readFileSync(file);
  t.true(want.length > 3 << 20);

  const child = spawnTracked(t, node, args);
  child.stderr!.resume();
  // A slow reader: nothing is read until the command exits, or has had a second to (a command
  // that waits for its reader does not exit: it is read then). The 'readable' listener keeps
  // what arrives for this reader (a stream nobody listens to is drained when its process exits).
  child.stdout!.on('readable', () => {});
  const exited = once(child, 'exit');
  await Promise.race([exited, delay(1000)]);
  const got: Buffer[] = [];
  for await (const chunk of child.stdout!) got.push(chunk as Buffer);
  t.is((await exited)[0], 0);
  t.is(Buffer.concat(got).length, want.length);
  t.true(Buffer.concat(got).equals(want));
});
