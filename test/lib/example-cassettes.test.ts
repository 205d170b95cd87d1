import test from 'ava';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadCassette } from '../../lib/cassette/store.js';
import { messageBytes } from '../../lib/message.js';
import { root } from '../helpers/paths.js';

const dir = join(root, 'cassettes', 'examples');

test('every example cassette is a valid cassette whose frames rebuild to their recorded size', (t) => {
  const files = readdirSync(dir).filter((f) => f.endsWith('.cassette.json'));
  t.true(files.length >= 2);
  for (const file of files) {
    const c = loadCassette(join(dir, file));
    t.true(c.sessions.length > 0, file);
    for (const s of c.sessions) {
      t.truthy(s.protocol.revision, `${file}: the revision is known`);
      for (const m of s.messages) t.is(messageBytes(m).length, m.bytes, `${file} #${m.seq}`);
    }
  }
});
