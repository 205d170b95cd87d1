import test from 'ava';
import { SseSplitter, type SseEvent } from '../../lib/framing/sse-splitter.js';

const text =
  ': comment\r\n\r\nid: a\r\nretry: 10\r\ndata:\r\r' +
  'event: message\ndata: {"x":\ndata: 1}\nid: b\n\n' +
  'data: é ünïcode\r\n\r\n' +
  'data: unterminated';

function events(chunks: Buffer[]): SseEvent[] {
  const out: SseEvent[] = [];
  const s = new SseSplitter((e) => out.push(e));
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

const expected: SseEvent[] = [
  { data: '', hasData: true, id: 'a', retry: 10 },
  { data: '{"x":\n1}', hasData: true, event: 'message', id: 'b' },
  { data: 'é ünïcode', hasData: true },
];

test('events, fields and every line ending, dispatched on blank lines only', (t) => {
  t.deepEqual(events([Buffer.from(text)]), expected);
});

test('any split into two chunks gives the same events (CR/LF and UTF-8 sequences across chunks)', (t) => {
  const bytes = Buffer.from(text);
  for (let i = 0; i <= bytes.length; i++) {
    t.deepEqual(events([bytes.subarray(0, i), bytes.subarray(i)]), expected, `split at ${i}`);
  }
});
