import test from 'ava';
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { foldJournal } from '../../lib/cassette/fold.js';
import { JOURNAL_FORMAT, JournalWriter, readJournal } from '../../lib/cassette/journal.js';
import { messageBytes } from '../../lib/message.js';
import { tempDir } from '../helpers/tmp.js';

function writer(path: string): JournalWriter {
  return new JournalWriter(
    path,
    {
      format: JOURNAL_FORMAT,
      version: 1,
      sessionId: 's1',
      startedAt: new Date().toISOString(),
      pid: process.pid,
      hostname: 'h',
      session: { target: { command: ['srv'], cwd: '/' }, proxy: { pid: process.pid, version: 'test' } },
    },
    performance.now(),
  );
}

test('chunks come back byte for byte and fold into frames in wire order', (t) => {
  const path = join(tempDir(t), 'j.journal');
  const w = writer(path);
  w.chunk('stdin', Buffer.from('{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}\n{"jsonrpc"'));
  w.chunk(
    'stdout',
    Buffer.from('{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}\n'),
  );
  w.chunk('stdin', Buffer.from(':"2.0","method":"notifications/initialized"}\n'));
  w.chunk('stderr', Buffer.from([0xff, 0x0a]));
  w.event('exit', { code: 0, signal: null });
  w.close();
  const j = readJournal(path);
  t.false(j.torn);
  t.is(j.records.length, 5);
  const s = foldJournal(j);
  t.deepEqual(
    s.messages.map((m) => [m.seq, m.direction, m.channel, m.kind]),
    [
      [1, 'client-to-server', 'stdin', 'request'],
      [2, 'server-to-client', 'stdout', 'response'],
      [3, 'client-to-server', 'stdin', 'notification'],
      [4, 'server-to-client', 'stderr', 'text'],
    ],
  );
  t.true(messageBytes(s.messages[3]!).equals(Buffer.from([0xff])));
  t.is(s.protocol.revision, '2025-11-25');
  t.is(s.protocol.negotiation, 'initialize');
  t.deepEqual(s.serverInfo, { name: 's', version: '1' });
  t.deepEqual(s.end, { reason: 'exit', exitCode: 0, signal: null });
});

test('a journal torn inside its last record keeps every complete record and the torn bytes', (t) => {
  const path = join(tempDir(t), 'j.journal');
  const w = writer(path);
  w.chunk('stdin', Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n'));
  w.chunk('stdout', Buffer.from('{"jsonrpc":"2.0","id":1,"result":{}}\n'));
  w.close();
  const full = readFileSync(path).length;
  truncateSync(path, full - 10);
  const j = readJournal(path);
  t.true(j.torn);
  t.is(j.records.length, 2);
  const s = foldJournal(j, { recovered: true });
  t.is(s.end?.reason, 'recovered');
  t.true(s.end?.torn);
  t.is(s.messages[0]!.kind, 'request');
});

test('a file that is not a journal is refused with a clear error', (t) => {
  const path = join(tempDir(t), 'j.journal');
  writeFileSync(path, 'hello\n');
  const err = t.throws(() => readJournal(path));
  t.is((err as { code?: string }).code, 'MCPC_JOURNAL_INVALID');
  t.regex(err!.message, /j\.journal cannot be read/);
});
