import test from 'ava';
import type { JournalChunk, JournalEvent } from '../../lib/cassette/journal.js';
import { NO_METRICS } from '../../lib/metrics.js';
import { CaptureFilter } from '../../recorder/capture/journal-filter.js';
import { type CaptureSettings, redactEventFields } from '../../recorder/capture/frame-transform.js';
import { noRedactionCounts } from '../../lib/payload-redact.js';
import { SseEvents } from '../../recorder/capture/sse-events.js';

/** The journal filter alone: what it writes for stdio lines cut anywhere, and for event streams. */
const secretsOnly: CaptureSettings = { level: 'full', redaction: { paths: [], values: [], secrets: true } };
const written = (chunks: JournalChunk[]) => Buffer.concat(chunks.map((c) => c.data)).toString('latin1');
const ev = (e: Record<string, unknown>): JournalEvent => ({ t: 1, ...e }) as JournalEvent;

test('stdio: a line cut across chunks is written whole and masked, once complete; CRLF and other bytes kept', (t) => {
  const f = new CaptureFilter(secretsOnly, NO_METRICS, 'stdio');
  const line = '{"jsonrpc":"2.0","id":1,"result":{"key":"sk-abcdefghijklmnopqrst","n":1.0}}\r\n';
  const out: JournalChunk[] = [];
  for (let i = 0; i < line.length; i += 7) out.push(...f.chunk({ t: 1, c: 'stdout', data: Buffer.from(line.slice(i, i + 7)) }));
  t.is(out.length, 1, 'one chunk per line');
  t.is(written(out), '{"jsonrpc":"2.0","id":1,"result":{"key":"[REDACTED]","n":1.0}}\r\n');
  t.deepEqual(f.chunk({ t: 2, c: 'stdout', data: Buffer.from('tail without newline Bearer abcdefgh12345') }), []);
  t.is(written(f.event(ev({ ev: 'eof', channel: 'stdout' })).before), 'tail without newline Bearer [REDACTED]', 'the rest at eof');
});

test('stdio: whole lines in one chunk are written one chunk per line, byte for byte unless masked, line ends kept', (t) => {
  const f = new CaptureFilter(secretsOnly, NO_METRICS, 'stdio');
  const lines = [
    '{"jsonrpc":"2.0","id":1,"result":{"n":1.0}}\r\n',
    '{"jsonrpc":"2.0","id":2,"result":{"key":"sk-abcdefghijklmnopqrst"}}\n',
    '-----BEGIN PRIVATE KEY-----\n',
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n',
    '-----END PRIVATE KEY----- after\n',
    '{"jsonrpc":"2.0","id":3,"result":{"s":"caf\u00e9 \u00ff"}}\n',
    '\n',
    'half',
  ];
  const data = Buffer.from(lines.join(''), 'latin1');
  const out = f.chunk({ t: 1, c: 'stdout', data });
  t.deepEqual(
    out.map((c) => c.data.toString('latin1')),
    [
      lines[0],
      '{"jsonrpc":"2.0","id":2,"result":{"key":"[REDACTED]"}}\n',
      '[REDACTED]\n',
      '[REDACTED]\n',
      '[REDACTED] after\n',
      lines[5],
      '\n',
    ],
  );
  // An unmasked line is a view of the chunk's own bytes, not a copy (the journal writes it at once).
  t.true(out[0]!.data.buffer === data.buffer && out[0]!.data.byteOffset === data.byteOffset);
  t.is(written(f.event(ev({ ev: 'eof', channel: 'stdout' })).before), 'half');
});

test('event fields: masked in a copy, in their order, the original untouched; an event with nothing to mask is itself', (t) => {
  const counts = noRedactionCounts();
  const clean = { t: 1, ev: 'http-request', x: 1, path: '/mcp', headers: { accept: 'application/json', 'x-list': ['a', 'b'] } };
  t.is(redactEventFields(secretsOnly, clean, counts), clean, 'no copy when nothing is masked');
  const secret = {
    t: 1,
    ev: 'http-request',
    x: 2,
    headers: { accept: 'application/json', authorization: 'Bearer abcdefgh12345678', 'x-list': ['a', 'sk-abcdefghijklmnopqrst'] },
  };
  const before = JSON.stringify(secret);
  const out = redactEventFields(secretsOnly, secret, counts) as typeof secret;
  t.is(JSON.stringify(secret), before, 'the original is not changed');
  t.deepEqual(Object.keys(out.headers), ['accept', 'authorization', 'x-list']);
  t.is(out.headers.authorization, 'Bearer [REDACTED]');
  t.deepEqual(out.headers['x-list'], ['a', '[REDACTED]']);
  t.is(out.headers.accept, 'application/json');
  t.is(counts.secret, 2);
  // Through the filter: the same event object goes to disk unless something in it is masked.
  const f = new CaptureFilter(secretsOnly, NO_METRICS, 'http');
  t.is(f.event(clean as JournalEvent).event, clean as JournalEvent);
  t.not(f.event(secret as JournalEvent).event, secret as JournalEvent);
  const query = { t: 1, ev: 'http-request', x: 3, path: '/mcp?api_key=abcdef123456' } as JournalEvent;
  t.is(f.event(query).event.path, '/mcp?api_key=%5BREDACTED%5D', 'a token in the query string is masked');
});

test('HTTP: an SSE event is written when complete; one whose data changed is rewritten line for line, others are left byte for byte', (t) => {
  const f = new CaptureFilter(secretsOnly, NO_METRICS, 'http');
  f.event(ev({ ev: 'http-request', x: 3, mcp: true }));
  f.event(ev({ ev: 'http-response', x: 3, headers: { 'content-type': 'text/event-stream' } }));
  const plain = 'id: 1\r\ndata: {"jsonrpc":"2.0","method":"ping"}\r\n\r\n';
  const secret = 'event: message\ndata: {"jsonrpc":"2.0","id":1,\ndata: "result":{"t":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig"}}\n\n';
  const out = [...f.chunk({ t: 1, c: 'http-response', x: 3, data: Buffer.from(plain + secret.slice(0, 30)) })];
  t.is(written(out), plain);
  out.push(...f.chunk({ t: 2, c: 'http-response', x: 3, data: Buffer.from(secret.slice(30)) }));
  t.is(
    written(out.slice(1)),
    'event: message\ndata: {"jsonrpc":"2.0","id":1,\ndata: "result":{"t":"[REDACTED]"}}\n\n',
    'the data masked, its lines kept',
  );
  const joined = SseEvents.data(out[1]!.data)!.toString();
  t.deepEqual(JSON.parse(joined), { jsonrpc: '2.0', id: 1, result: { t: '[REDACTED]' } });
});

test('SseEvents: events end at a blank line of any line ending; the data lines joined', (t) => {
  const sse = new SseEvents();
  t.deepEqual(
    sse.push(Buffer.from('data: a\r\rdata: b\n\nda')).map((b) => b.toString()),
    ['data: a\r\r', 'data: b\n\n'],
  );
  t.is(sse.rest().toString(), 'da');
  t.is(SseEvents.data(Buffer.from('id: 4\ndata: {"a":\ndata:1}\n\n'))?.toString(), '{"a":\n1}');
  t.is(SseEvents.data(Buffer.from(': comment\n\n')), undefined);
});

test('a line past MAX_HELD is not held whole in full capture: it goes out masked as it comes; metadata holds it', (t) => {
  const f = new CaptureFilter(secretsOnly, NO_METRICS, 'stdio');
  const mb = 1024 * 1024;
  const head = Buffer.from('{"jsonrpc":"2.0","id":1,"result":{"k":"sk-abcdefghijklmnopqrst","blob":"');
  const chunks = [Buffer.concat([head, Buffer.alloc(mb - head.length, 0x61)]), ...Array.from({ length: 9 }, () => Buffer.alloc(mb, 0x61))];
  const out = chunks.flatMap((data) => f.chunk({ t: 1, c: 'stdout', data }));
  t.true(out.length > 0, 'written before the line ended');
  out.push(...f.chunk({ t: 2, c: 'stdout', data: Buffer.from('"}}\nnext\n') }));
  const text = written(out);
  t.is(text.length, 10 * mb + 4 + 5 - 'sk-abcdefghijklmnopqrst'.length + '[REDACTED]'.length);
  t.true(text.startsWith('{"jsonrpc":"2.0","id":1,"result":{"k":"[REDACTED]","blob":"aaa'));
  t.true(text.endsWith('aaa"}}\nnext\n'), 'the next line framed as before');
  const meta = new CaptureFilter({ level: 'metadata', redaction: secretsOnly.redaction }, NO_METRICS, 'stdio');
  t.deepEqual(
    chunks.flatMap((data) => meta.chunk({ t: 1, c: 'stdout', data })),
    [],
    'metadata: no value of it may reach the disk before it is reduced',
  );
});
