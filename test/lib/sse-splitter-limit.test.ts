import test from 'ava';
import { StringDecoder } from 'node:string_decoder';
import { SseSplitter, type SseEvent } from '../../lib/framing/sse-splitter.js';

/** The splitter as it was before it scanned each character once: the reference for its events. */
class Reference {
  readonly #decoder = new StringDecoder('utf8');
  #buffer = '';
  #data: string[] = [];
  #fields: Omit<SseEvent, 'data' | 'hasData'> = {};
  #seenField = false;
  #pendingCR = false;
  constructor(private readonly onEvent: (event: SseEvent) => void) {}
  push(chunk: Buffer): void {
    this.#consume(this.#decoder.write(chunk));
  }
  end(): void {
    this.#consume(this.#decoder.end());
  }
  #consume(text: string): void {
    if (this.#pendingCR && text.startsWith('\n')) text = text.slice(1);
    this.#pendingCR = false;
    this.#buffer += text;
    let start = 0;
    for (;;) {
      const lf = this.#buffer.indexOf('\n', start);
      const cr = this.#buffer.indexOf('\r', start);
      let end: number;
      let next: number;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        end = cr;
        if (cr + 1 === this.#buffer.length) {
          this.#pendingCR = true;
          next = cr + 1;
        } else next = this.#buffer[cr + 1] === '\n' ? cr + 2 : cr + 1;
      } else if (lf !== -1) {
        end = lf;
        next = lf + 1;
      } else break;
      this.#line(this.#buffer.slice(start, end));
      start = next;
    }
    this.#buffer = this.#buffer.slice(start);
  }
  #line(line: string): void {
    if (line === '') {
      if (this.#seenField) this.onEvent({ data: this.#data.join('\n'), hasData: this.#data.length > 0, ...this.#fields });
      this.#data = [];
      this.#fields = {};
      this.#seenField = false;
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const name = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.#seenField = true;
    if (name === 'data') this.#data.push(value);
    else if (name === 'id') {
      if (!value.includes('\0')) this.#fields.id = value;
    } else if (name === 'event') this.#fields.event = value;
    else if (name === 'retry' && /^\d+$/.test(value)) this.#fields.retry = Number(value);
  }
}

/** A deterministic generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  return () => (seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32;
}

const PIECES = [
  'data',
  'data:',
  'data: ',
  'id: ',
  'id:x\0',
  'event:',
  'retry: 12',
  'retry:x',
  ':',
  ' ',
  'x',
  '{"a":1}',
  'é',
  '€',
  '😀',
  '\n',
  '\r',
  '\r\n',
  '\n\n',
  '\r\r',
  'dat',
  'a',
  '\0',
];

function run(make: (out: unknown[]) => { push(b: Buffer): void; end(): void }, chunks: Buffer[]): unknown[] {
  const out: unknown[] = [];
  const s = make(out);
  for (const c of chunks) s.push(c);
  s.end();
  return out;
}

test('the same events as the reference splitter, for random streams cut into random chunks', (t) => {
  const next = random(7);
  for (let round = 0; round < 3000; round++) {
    let text = '';
    const n = Math.floor(next() * 40);
    for (let i = 0; i < n; i++) text += PIECES[Math.floor(next() * PIECES.length)];
    const bytes = Buffer.from(text);
    const chunks: Buffer[] = [];
    for (let at = 0; at < bytes.length; ) {
      const size = Math.floor(next() * 6); // empty chunks too
      chunks.push(bytes.subarray(at, at + size));
      at += size;
    }
    const expected = run((out) => new Reference((e) => out.push(e)), chunks);
    t.deepEqual(
      run((out) => new SseSplitter((e) => out.push(e)), chunks),
      expected,
      JSON.stringify(text),
    );
    // With a limit no event reaches, the limit changes nothing.
    t.deepEqual(
      run(
        (out) =>
          new SseSplitter(
            (e) => out.push(e),
            1000,
            (b) => out.push(b),
          ),
        chunks,
      ),
      expected,
      JSON.stringify(text),
    );
    // With a small one: each event is the reference's or, in its place, a size; every event
    // whose data is above the limit is a size.
    const limited = run(
      (out) =>
        new SseSplitter(
          (e) => out.push(e),
          8,
          (b) => out.push(b),
        ),
      chunks,
    );
    t.is(limited.length, expected.length);
    limited.forEach((e, i) => {
      const data = Buffer.byteLength((expected[i] as SseEvent).data);
      if (typeof e === 'number') t.true(e >= data && e > 8, JSON.stringify(text));
      else {
        t.true(data <= 8, JSON.stringify(text));
        t.deepEqual(e, expected[i], JSON.stringify(text));
      }
    });
  }
});

test('an event above the limit is counted, not kept, and takes its place among the events', (t) => {
  const big = 'x'.repeat(100);
  const stream = `data: a\n\ndata: ${big}\ndata: é${big}\nid: 1\n\n: ${big}\ndata: b\n\nid: ${big}\ndata: c\n\ndata: ${'é'.repeat(10)}\n\n`;
  for (const size of [1, 7, 64, stream.length]) {
    const chunks: Buffer[] = [];
    const bytes = Buffer.from(stream);
    for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
    const out = run(
      (o) =>
        new SseSplitter(
          (e) => o.push(e.data),
          30,
          (b) => o.push(b),
        ),
      chunks,
    );
    // The second event's data as joined: 100 + LF + 102 bytes; a long comment changes nothing; a
    // long id makes its event too large too (counted whole, with its data); 20 bytes of é is under 30.
    t.deepEqual(out, ['a', 203, 'b', 4 + 100 + 1, 'é'.repeat(10)], `chunks of ${size}`);
  }
});
