import test from 'ava';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CassetteLines } from '../../check/locate.js';
import { tempDir } from '../helpers/tmp.js';

const session = (id: string, seqs: number[]) => ({
  id,
  messages: seqs.map((seq) => ({ seq, direction: 'client-to-server', json: { seq } })),
});

test('the line of a recorded message, whatever the layout of the cassette file', (t) => {
  const dir = tempDir(t);
  const doc = { format: 'mcp-cassette', version: 2, sessions: [session('a', [1, 2]), session('b', [1, 2, 3])] };
  const pretty = join(dir, 'pretty.cassette.json');
  const text = JSON.stringify(doc, null, 2);
  writeFileSync(pretty, text);
  const lines = new CassetteLines(pretty);
  const all = text.split('\n');
  // Session b (index 1), message seq 3: the object that holds "seq": 3, not the "seq": 3 inside its json.
  const at = lines.lineOf(1, 3);
  t.is(all[at - 1]!.trim(), '{');
  t.is(all[at]!.trim(), '"seq": 3,');
  t.true(at > lines.lineOf(1, 2) && lines.lineOf(1, 2) > lines.lineOf(1), 'in file order');
  t.is(all[lines.lineOf(1) - 1]!.trim(), '{', 'a session without a message seq: its own line');
  t.is(lines.lineOf(1, 99), lines.lineOf(1), 'an unknown seq falls back to the session');
  t.is(lines.lineOf(5, 1), 1, 'an unknown session falls back to the first line');
  // One line, as a minified cassette is: everything is on line 1.
  const compact = join(dir, 'compact.cassette.json');
  writeFileSync(compact, JSON.stringify(doc));
  t.is(new CassetteLines(compact).lineOf(1, 3), 1);
  t.is(new CassetteLines(join(dir, 'missing.json')).lineOf(0, 1), 1, 'a missing file points at line 1');
});
