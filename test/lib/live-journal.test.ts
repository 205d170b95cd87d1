import test from 'ava';
import { LiveJournalBuffer, readLiveJournal, skipLine, type LiveRecord } from '../../lib/live-journal.js';

test('records copied into batch buffers read back the same, whole records per buffer, sizes only for skipped chunks', (t) => {
  const buf = new LiveJournalBuffer();
  const event = { t: 1.5, ev: 'http-request', x: 1, headers: { 'content-type': 'application/json' }, mcp: true };
  const small = Buffer.from('{"jsonrpc":"2.0"}');
  const big = Buffer.alloc(200 * 1024, 0x61); // larger than a buffer: one of its own
  buf.append(Buffer.from(JSON.stringify(event) + '\n'));
  buf.append(Buffer.from(`{"t":2,"c":"q","x":1,"n":${small.length}}\n`), small, Buffer.from('\n'));
  for (let i = 0; i < 3; i++) buf.append(Buffer.from(`{"t":3,"c":"r","x":1,"n":${big.length}}\n`), big, Buffer.from('\n'));
  buf.append(skipLine(4, 'r', 1, 123));
  buf.append(Buffer.from('{"t":5,"ev":"http-end","x":1,"outcome":"complete"}\n'));
  const inputs = buf.take();
  t.true(inputs.length > 1);
  const out: LiveRecord[] = [];
  let carried = 0;
  for (const input of inputs) carried += readLiveJournal(input.bytes, (r) => out.push(r));
  t.is(carried, small.length + 3 * big.length);
  t.deepEqual(out[0], event);
  t.deepEqual({ ...out[1], data: Buffer.from(out[1]!.data!).toString() }, { t: 2, c: 'http-request', x: 1, data: small.toString() });
  for (const r of out.slice(2, 5)) t.true(r.c === 'http-response' && Buffer.from(r.data!).equals(big));
  t.deepEqual(out[5], { t: 4, c: 'http-response', x: 1, n: 123 });
  t.deepEqual(out[6], { t: 5, ev: 'http-end', x: 1, outcome: 'complete' });
  t.deepEqual(buf.take(), [], 'a new batch starts empty');
});
