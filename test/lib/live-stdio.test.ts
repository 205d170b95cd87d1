import test from 'ava';
import { LiveJournalBuffer } from '../../lib/live-journal.js';
import { appendStdio, readLiveStdio } from '../../lib/live-stdio.js';

test('stdio chunks, skips and ends copied into batch buffers read back in order, with their channel, time and bytes', (t) => {
  const buf = new LiveJournalBuffer('stdio');
  const line = Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}\n');
  const big = Buffer.alloc(100 * 1024, 0x62); // larger than a buffer: one of its own
  const source = Buffer.from(line); // the caller's chunk may be reused: the batch holds a copy
  appendStdio(buf, 'chunk', 'stdin', 1.25, source);
  source.fill(0);
  appendStdio(buf, 'chunk', 'stdout', 2.5, big);
  appendStdio(buf, 'skip', 'stdout', 3, undefined, 4_000_000);
  appendStdio(buf, 'chunk', 'stderr', 4, Buffer.alloc(0));
  appendStdio(buf, 'end', 'stdin', 5);
  const inputs = buf.take();
  t.true(inputs.length > 1);
  t.true(inputs.every((i) => i.type === 'stdio'));
  const out: unknown[] = [];
  let carried = 0;
  for (const input of inputs)
    carried += readLiveStdio(input.bytes, (op, channel, time, n, data) => out.push([op, channel, time, n, data?.toString('latin1')]));
  t.is(carried, line.length + big.length);
  t.deepEqual(out, [
    ['chunk', 'stdin', 1.25, line.length, line.toString('latin1')],
    ['chunk', 'stdout', 2.5, big.length, big.toString('latin1')],
    ['skip', 'stdout', 3, 4_000_000, undefined],
    ['chunk', 'stderr', 4, 0, ''],
    ['end', 'stdin', 5, 0, undefined],
  ]);
  t.deepEqual(buf.take(), [], 'a new batch starts empty');
});
