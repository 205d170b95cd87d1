import type { JournalChunk, JournalEvent, JournalFilter, JournalStream } from '../../lib/cassette/journal.js';
import type { MetricsSink } from '../../lib/metrics.js';
import { KeyBlockLines } from '../../lib/secret-text.js';
import { redactRequestTarget } from '../../lib/redact.js';
import { noRedactionCounts, type RedactionCounts } from '../../lib/payload-redact.js';
import { redactEventFields, transformFrame, type CaptureSettings } from './frame-transform.js';
import { OperationTimer } from './operation-metrics.js';
import { SseEvents } from './sse-events.js';
import type { FrameObserver } from './frame-observer.js';

type Stdio = 'stdin' | 'stdout' | 'stderr';

/**
 * A frame held longer than this (a 50 MB line, body or event) is not held whole: in full capture
 * what was held goes to disk masked as text, and so does the rest of the frame as it arrives
 * (the secret shapes and --redact-value, chunk by chunk; --redact-path needs the whole frame and
 * does not apply). Memory stays bounded and a SIGKILL loses at most this much of an unfinished
 * frame. metadata and hashed hold each frame whole: none of its values may reach the disk.
 */
export const MAX_HELD = 8 * 1024 * 1024;

const LF = Buffer.from('\n');
const CR = Buffer.from('\r');
const CRLF = Buffer.from('\r\n');

/** An HTTP exchange's bodies while they are held. */
interface Exchange {
  mcp: boolean;
  request: Buffer[];
  sse?: SseEvents;
  response: Buffer[];
  /** Bytes held in `response` (or the event stream's unfinished event). */
  held: number;
  /** Past MAX_HELD: the rest of the body goes to disk as it comes. */
  streaming: boolean;
}

/**
 * The journal filter of a recording: frames each stream (stdio lines; an HTTP request body, a
 * JSON response body, or each event of an event stream), holds a frame until it is complete, and
 * writes it masked and reduced (frame-transform.ts), one chunk per frame, so the fold frames the
 * journal into the same messages (and stdio seqs) as the live validator. Events have the secret
 * shapes and value patterns masked in every string. Feeds the metrics with what it writes.
 */
export class CaptureFilter implements JournalFilter {
  readonly #lines: Record<Stdio, Buffer[]> = { stdin: [], stdout: [], stderr: [] };
  readonly #held: Record<Stdio, number> = { stdin: 0, stdout: 0, stderr: 0 };
  /** The line past MAX_HELD goes to disk as it comes, until its newline. */
  readonly #streaming: Record<Stdio, boolean> = { stdin: false, stdout: false, stderr: false };
  readonly #exchanges = new Map<number, Exchange>();
  readonly #counts: RedactionCounts = noRedactionCounts();
  /** A private key block spread over lines of a stdio stream. */
  readonly #keyBlocks: Record<Stdio, KeyBlockLines> = {
    stdin: new KeyBlockLines(),
    stdout: new KeyBlockLines(),
    stderr: new KeyBlockLines(),
  };
  readonly #timer: OperationTimer;

  constructor(
    private readonly settings: CaptureSettings,
    private readonly metrics: MetricsSink,
    transport: 'stdio' | 'http',
    /** Hears every frame as it is written (record --otel). */
    private readonly observer?: FrameObserver,
  ) {
    this.#timer = new OperationTimer(metrics, transport);
  }

  held(stream: JournalStream): number {
    return stream === 'stdin' || stream === 'stdout' || stream === 'stderr' ? this.#held[stream] : 0;
  }

  chunk(record: JournalChunk): JournalChunk[] {
    const { c, data, t } = record;
    if (c === 'stdin' || c === 'stdout' || c === 'stderr') return this.#stdio(c, data, t);
    const ex = record.x === undefined ? undefined : this.#exchanges.get(record.x);
    if (!ex) return [this.#write(record, false)]; // outside any known exchange: masked as text
    if (c === 'http-request') {
      ex.request.push(data);
      return [];
    }
    if (ex.sse) {
      const out = ex.sse.push(data).map((event) => this.#write({ t, c, x: record.x!, data: event }, true, 'server-to-client', record.x));
      if (this.#mayStream() && ex.sse.pending > MAX_HELD) out.push(this.#asText({ t, c, x: record.x!, data: ex.sse.rest() }));
      return out;
    }
    if (ex.streaming) return [this.#asText(record)];
    ex.response.push(data);
    ex.held += data.length;
    if (!this.#mayStream() || ex.held <= MAX_HELD) return [];
    ex.streaming = true;
    const held = Buffer.concat(ex.response);
    ex.response = [];
    return [this.#asText({ ...record, data: held })];
  }

  event(record: JournalEvent): { before: JournalChunk[]; event: JournalEvent } {
    const before: JournalChunk[] = [];
    const x = typeof record.x === 'number' ? record.x : undefined;
    switch (record.ev) {
      case 'eof':
        if (record.channel === 'stdin' || record.channel === 'stdout' || record.channel === 'stderr')
          before.push(...this.#rest(record.channel as Stdio, record.t));
        break;
      case 'http-request':
        if (x !== undefined) this.#exchanges.set(x, { mcp: record.mcp === true, request: [], response: [], held: 0, streaming: false });
        // A token in the query string (`?api_key=…`), as in the upstream URL.
        if (typeof record.path === 'string') {
          const path = redactRequestTarget(record.path);
          if (path !== record.path) record = { ...record, path };
        }
        break;
      case 'http-request-end':
        before.push(...this.#requestBody(x, record.t));
        break;
      case 'http-response': {
        const ex = x === undefined ? undefined : this.#exchanges.get(x);
        const type = (record.headers as Record<string, unknown> | undefined)?.['content-type'];
        if (
          ex?.mcp &&
          String(Array.isArray(type) ? type[0] : (type ?? ''))
            .toLowerCase()
            .startsWith('text/event-stream')
        )
          ex.sse = new SseEvents();
        break;
      }
      case 'http-end':
        before.push(...this.#requestBody(x, record.t), ...this.#responseBody(x, record.t));
        if (x !== undefined) this.#exchanges.delete(x);
        this.#timer.exchangeEnd(x);
        break;
      case 'exit':
      case 'stopped':
        for (const c of ['stdin', 'stdout', 'stderr'] as const) before.push(...this.#rest(c, record.t));
        for (const x of [...this.#exchanges.keys()]) before.push(...this.#requestBody(x, record.t), ...this.#responseBody(x, record.t));
        this.#exchanges.clear();
        break;
      case 'violation': {
        const v = record.violation as { rule?: unknown; severity?: unknown } | undefined;
        this.metrics.count('mcp_cassette_violations_total', { rule: String(v?.rule), severity: String(v?.severity) });
        break;
      }
    }
    const fields = redactEventFields(this.settings, record, this.#counts) as JournalEvent;
    this.observer?.event(fields);
    this.#report();
    return { before, event: fields };
  }

  #stdio(c: Stdio, data: Buffer, t: number): JournalChunk[] {
    const out: JournalChunk[] = [];
    let from = 0;
    for (let nl = data.indexOf(0x0a); nl !== -1; nl = data.indexOf(0x0a, from)) {
      if (this.#streaming[c]) {
        out.push(this.#asText({ t, c, data: data.subarray(from, nl + 1) }));
        this.#streaming[c] = false;
        from = nl + 1;
        continue;
      }
      this.#held[c] = 0;
      const held = this.#lines[c];
      const piece = data.subarray(from, nl);
      const line = held.length ? Buffer.concat([...held, piece]) : piece;
      // A line that came whole in this chunk, line end included: written as it is when nothing in
      // it is masked (no copy of the line to append its newline).
      const whole = held.length ? undefined : data.subarray(from, nl + 1);
      held.length = 0;
      out.push(this.#line(c, line, t, true, whole));
      from = nl + 1;
    }
    if (from >= data.length) return out;
    const rest = data.subarray(from);
    if (this.#streaming[c]) return [...out, this.#asText({ t, c, data: rest })];
    this.#lines[c].push(Buffer.from(rest));
    this.#held[c] += rest.length;
    if (this.#mayStream() && this.#held[c] > MAX_HELD) {
      this.#streaming[c] = true;
      this.#held[c] = 0;
      const held = Buffer.concat(this.#lines[c]);
      this.#lines[c].length = 0;
      out.push(this.#asText({ t, c, data: held }));
    }
    return out;
  }

  /** One stdio line (a trailing CR kept as it was), with its newline unless it ended the stream.
   * `whole`: the line's bytes with its line end, when they lie in one chunk. */
  #line(c: Stdio, line: Buffer, t: number, newline: boolean, whole?: Buffer): JournalChunk {
    this.observer?.line();
    const cr = line.length > 0 && line[line.length - 1] === 0x0d;
    const bare = cr ? line.subarray(0, -1) : line;
    let frame = bare;
    /** The frame as latin1 text, decoded once for both secret checks. */
    let latin1: string | undefined;
    if (this.settings.redaction.secrets) {
      const text = frame.toString('latin1');
      const block = this.#keyBlocks[c].line(text);
      if (block.text !== text) frame = Buffer.from(block.text, 'latin1');
      latin1 = block.text;
      this.#counts.secret += block.masked;
    }
    const direction = c === 'stdin' ? 'client-to-server' : 'server-to-client';
    const out = this.#transform(frame, c !== 'stderr', c === 'stderr' ? undefined : direction, t, undefined, latin1);
    let data: Buffer;
    // Nothing masked (the same buffer back): the line's own bytes, line end included.
    if (whole && out === bare) data = whole;
    else {
      const tail = cr ? (newline ? CRLF : CR) : newline ? LF : undefined;
      data = tail ? Buffer.concat([out, tail]) : out;
    }
    this.#recorded(c, data.length);
    return { t, c, data };
  }

  #rest(c: Stdio, t: number): JournalChunk[] {
    this.#streaming[c] = false;
    this.#held[c] = 0;
    const held = this.#lines[c];
    if (held.length === 0) return [];
    const line = Buffer.concat(held);
    held.length = 0;
    return [this.#line(c, line, t, false)];
  }

  #requestBody(x: number | undefined, t: number): JournalChunk[] {
    const ex = x === undefined ? undefined : this.#exchanges.get(x);
    if (!ex || ex.request.length === 0) return [];
    const body = Buffer.concat(ex.request);
    ex.request = [];
    return [this.#write({ t, c: 'http-request', x: x!, data: body }, ex.mcp, 'client-to-server', x)];
  }

  #responseBody(x: number | undefined, t: number): JournalChunk[] {
    const ex = x === undefined ? undefined : this.#exchanges.get(x);
    if (!ex) return [];
    const rest = ex.sse ? ex.sse.rest() : ex.response.length ? Buffer.concat(ex.response) : undefined;
    ex.response = [];
    if (!rest || rest.length === 0) return [];
    // An event cut off mid-way never parses: it is masked as text.
    return [this.#write({ t, c: 'http-response', x: x!, data: rest }, ex.mcp && !ex.sse, 'server-to-client', x)];
  }

  #mayStream(): boolean {
    return this.settings.level === 'full';
  }

  /** Part of a frame too large to hold, masked as text. */
  #asText(record: JournalChunk): JournalChunk {
    const data = transformFrame(this.settings, record.data, false, this.#counts).data;
    this.metrics.count('mcp_cassette_recorded_bytes_total', { channel: record.c.startsWith('http') ? 'http' : record.c }, data.length);
    return { ...record, data };
  }

  /** An HTTP body or event transformed; `json` when it is MCP traffic. */
  #write(record: JournalChunk, json: boolean, direction?: Direction, x?: number): JournalChunk {
    const data = this.#transform(record.data, json, json ? direction : undefined, record.t, x);
    this.#recorded(record.c, data.length);
    return { ...record, data };
  }

  /** `latin1`: the frame as latin1 text, when the caller decoded it already. */
  #transform(frame: Buffer, json: boolean, direction: Direction | undefined, t: number, x?: number, latin1?: string): Buffer {
    if (frame.length === 0) return frame;
    const sse = x !== undefined && this.#exchanges.get(x)?.sse !== undefined && direction === 'server-to-client';
    const payload = sse ? SseEvents.data(frame) : undefined;
    if (sse && payload === undefined) return transformFrame(this.settings, frame, false, this.#counts).data; // no data lines
    const result = transformFrame(this.settings, payload ?? frame, json, this.#counts, sse ? undefined : latin1);
    if (direction && (this.metrics.enabled || this.observer)) {
      const json = result.parsed ? result.json : parseOrUndefined(payload ?? frame);
      if (this.metrics.enabled) this.#timer.frame(direction, json, t, x);
      // Spans carry what the cassette keeps: a message reduced by --capture metadata|hashed as reduced.
      this.observer?.frame(direction, this.settings.level === 'full' || !result.parsed ? json : parseOrUndefined(result.data), x);
    }
    if (!sse) return result.data;
    // Data unchanged: the event's other fields may still hold a secret, masked in its bytes.
    if (result.data === payload) return transformFrame(this.settings, frame, false, this.#counts).data;
    return SseEvents.withData(frame, result.data, (text) =>
      transformFrame(this.settings, Buffer.from(text), false, this.#counts).data.toString(),
    );
  }

  #recorded(c: JournalStream, bytes: number): void {
    const channel = c.startsWith('http') ? 'http' : c;
    this.metrics.count('mcp_cassette_recorded_messages_total', { channel });
    this.metrics.count('mcp_cassette_recorded_bytes_total', { channel }, bytes);
    this.#report();
  }

  #report(): void {
    const c = this.#counts;
    for (const by of ['secret', 'path', 'value'] as const) {
      if (c[by] > 0) this.metrics.count('mcp_cassette_redacted_values_total', { by }, c[by]);
      c[by] = 0;
    }
  }
}

type Direction = 'client-to-server' | 'server-to-client';

function parseOrUndefined(frame: Buffer): unknown {
  try {
    return JSON.parse(frame.toString('utf8'));
  } catch {
    return undefined;
  }
}
