import test from 'ava';
import { SseByteSplitter, type SseByteEvent } from '../../lib/framing/sse-bytes.js';
import { SpilledBytes, SpillFile } from '../../lib/framing/spill.js';
import { SseSplitter, type SseEvent } from '../../lib/framing/sse-splitter.js';

/** Both splitters over the same chunks; byte events as the reference's shape. */
function both(chunks: Buffer[], spill?: SpillFile, above?: number): { reference: SseEvent[]; bytes: SseEvent[]; spilled: number } {
  const reference: SseEvent[] = [];
  const raw: SseByteEvent[] = [];
  const r = new SseSplitter((e) => reference.push(e));
  const b = new SseByteSplitter((e) => raw.push(e), spill, above);
  for (const c of chunks) {
    r.push(c);
    b.push(c);
  }
  r.end();
  b.end();
  const text = (d: Buffer | SpilledBytes): string => (d instanceof SpilledBytes ? d.read() : d).toString('utf8');
  return {
    reference,
    bytes: raw.map((e) => ({ ...e, data: text(e.data) })),
    spilled: raw.filter((e) => e.data instanceof SpilledBytes).length,
  };
}

const PARTS = [
  'data',
  'data:',
  'data: ',
  'id: 7',
  'id:\0x',
  'event: message',
  'retry: 12',
  'retry: x',
  ': comment',
  '{"a":1}',
  'é€😀',
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  ':',
  ' ',
  'dat',
  'unknown: v',
  '\xff',
];

test('the same events as the string splitter, for random streams cut into random chunks', (t) => {
  let seed = 7;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let round = 0; round < 400; round++) {
    const parts: Buffer[] = [];
    for (let k = random(40); k >= 0; k--) {
      const p = PARTS[random(PARTS.length)]!;
      parts.push(p === '\xff' ? Buffer.from([0xff]) : Buffer.from(p, 'utf8'));
    }
    const stream = Buffer.concat(parts);
    const chunks: Buffer[] = [];
    for (let i = 0; i < stream.length; ) {
      const n = 1 + random(9);
      chunks.push(stream.subarray(i, i + n));
      i += n;
    }
    const { reference, bytes } = both(chunks);
    t.deepEqual(bytes, reference, JSON.stringify(stream.toString('latin1')));
  }
});

test('a large event goes to the spill file and keeps every byte', (t) => {
  const spill = new SpillFile();
  t.teardown(() => spill.dispose());
  const big = 'x'.repeat(100_000);
  const stream = Buffer.from(`id: 1\ndata: {"a":"${big}"}\ndata: second line\n\ndata: small\n\n`);
  const chunks: Buffer[] = [];
  for (let i = 0; i < stream.length; i += 4096) chunks.push(stream.subarray(i, i + 4096));
  const { reference, bytes, spilled } = both(chunks, spill, 10_000);
  t.deepEqual(bytes, reference);
  t.is(spilled, 1);
  t.true(spill.size > 100_000);
});
