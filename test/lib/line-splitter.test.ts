import test from 'ava';
import { LineSplitter } from '../../lib/framing/line-splitter.js';

function frames(chunks: Buffer[]): { frame: string; terminated: boolean }[] {
  const out: { frame: string; terminated: boolean }[] = [];
  const s = new LineSplitter((f, terminated) => out.push({ frame: Buffer.from(f).toString('latin1'), terminated }));
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

function splitAt(buf: Buffer, cuts: number[]): Buffer[] {
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...cuts].sort((a, b) => a - b)) {
    out.push(buf.subarray(prev, c));
    prev = c;
  }
  out.push(buf.subarray(prev));
  return out;
}

const sample = Buffer.concat([
  Buffer.from('{"jsonrpc":"2.0","id":1,"method":"a"}\n'),
  Buffer.from('not json at all\r\n'),
  Buffer.from([0xff, 0xfe, 0x0a]),
  Buffer.from('\n'),
  Buffer.from('{"tail":true}'),
]);
const expected = [
  { frame: '{"jsonrpc":"2.0","id":1,"method":"a"}', terminated: true },
  { frame: 'not json at all\r', terminated: true },
  { frame: Buffer.from([0xff, 0xfe]).toString('latin1'), terminated: true },
  { frame: '', terminated: true },
  { frame: '{"tail":true}', terminated: false },
];

test('frames are the exact bytes between newlines, CR and invalid UTF-8 included', (t) => {
  t.deepEqual(frames([sample]), expected);
});

test('every way of cutting the stream into chunks gives the same frames', (t) => {
  for (let a = 0; a <= sample.length; a++) {
    for (let b = a; b <= sample.length; b += 7) {
      t.deepEqual(frames(splitAt(sample, [a, b])), expected, `cuts at ${a}, ${b}`);
    }
  }
  // and one byte per chunk
  t.deepEqual(frames([...sample].map((byte) => Buffer.from([byte]))), expected);
});

test('a long line in many chunks is joined once and reported once', (t) => {
  const line = Buffer.alloc(3 * 1024 * 1024, 0x61);
  const chunks = splitAt(
    Buffer.concat([line, Buffer.from('\n')]),
    Array.from({ length: 50 }, (_, i) => (i + 1) * 60_000),
  );
  const got = frames(chunks);
  t.is(got.length, 1);
  t.is(got[0]!.frame.length, line.length);
  t.true(got[0]!.terminated);
});

test('with maxFrame, a longer line is counted, not kept: onOversize hears its length, in order with the frames around it', (t) => {
  const out: string[] = [];
  const s = new LineSplitter(
    (f, terminated) => out.push(`frame ${Buffer.from(f).toString('latin1')} ${terminated}`),
    10,
    (bytes, terminated) => out.push(`oversize ${bytes} ${terminated}`),
  );
  const stream = Buffer.from('short\n0123456789\n0123456789ABCDEF\nok\n' + 'x'.repeat(25) + '\n' + 'y'.repeat(12));
  for (let cut = 0; cut <= stream.length; cut++) {
    out.length = 0;
    for (const c of splitAt(stream, [cut, cut + 3])) s.push(c);
    s.end();
    t.deepEqual(
      out,
      ['frame short true', 'frame 0123456789 true', 'oversize 16 true', 'frame ok true', 'oversize 25 true', 'oversize 12 false'],
      `cut at ${cut}`,
    );
  }
});
