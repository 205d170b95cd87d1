/**
 * `record` onto a cassette that cannot take a session is refused before anything is recorded, on
 * both transports: one line naming the fix, exit 2, the file untouched, no journal. Before, an
 * HTTP recording ran in full and failed at its write, and a cassette whose `sessions` is not a list
 * passed the start check on stdio, leaving the session in a journal with no word to the user.
 */
import test from 'ava';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, exampleServer, node } from '../helpers/paths.js';
import { collect, spawnTracked } from '../helpers/proc.js';
import { startRecorder } from '../helpers/recording.js';
import { tempDir } from '../helpers/tmp.js';

const BROKEN = {
  'not JSON': { text: '{ this is not a cassette', why: /cannot take a new session: it is not valid JSON/ },
  'sessions not a list': {
    text: '{"format":"mcp-cassette","version":2,"sessions":"oops"}\n',
    why: /cannot take a new session: its "sessions" is not a list/,
  },
};

for (const [name, broken] of Object.entries(BROKEN)) {
  test(`HTTP record onto a cassette (${name}) is refused before it listens: one line, exit 2, nothing written`, async (t) => {
    const dir = tempDir(t);
    const cassette = join(dir, 'broken.cassette.json');
    writeFileSync(cassette, broken.text);
    // The upstream is never reached: the check comes before the proxy listens.
    const r = await collect(
      spawnTracked(t, node, [cli, 'record', '--upstream', 'http://127.0.0.1:9/mcp', '--listen', '127.0.0.1:0', '--cassette', cassette]),
    );
    t.is(r.code, 2, r.stderr);
    t.is(r.stdout.toString(), '', 'no proxy URL was printed');
    const lines = r.stderr.trim().split('\n');
    t.is(lines.length, 1, r.stderr);
    t.regex(lines[0]!, broken.why);
    t.true(lines[0]!.includes(`mv ${cassette} ${cassette}.broken`), lines[0]);
    t.is(readFileSync(cassette, 'utf8'), broken.text);
    t.deepEqual(
      readdirSync(dir).filter((f) => f.endsWith('.journal')),
      [],
    );
  });
}

test('stdio record onto a cassette whose sessions is not a list is refused at the start, not left in a journal', async (t) => {
  const dir = tempDir(t);
  const cassette = join(dir, 'broken.cassette.json');
  writeFileSync(cassette, BROKEN['sessions not a list'].text);
  const r = await collect(startRecorder(t, cassette, [node, exampleServer]));
  t.is(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  t.is(lines.length, 1, r.stderr);
  t.regex(lines[0]!, BROKEN['sessions not a list'].why);
  t.is(readFileSync(cassette, 'utf8'), BROKEN['sessions not a list'].text);
  t.deepEqual(
    readdirSync(dir).filter((f) => f.endsWith('.journal')),
    [],
  );
});
