import type { JournalEvent } from '../../lib/cassette/journal.js';
import type { Direction } from '../../lib/message.js';
import type { PayloadRedaction } from '../../lib/payload-redact.js';
import { McpSpanMapper, type McpSpanData, type SpanBase } from '../../lib/telemetry/spans.js';
import type { Violation } from '../../lib/violation.js';
import { liveValidationStats } from '../../lib/live-stats.js';
import type { FrameObserver } from '../capture/frame-observer.js';

/** How far the live validator has judged (one object per process, updated in place). */
const LIVE = liveValidationStats();

/** A finished span waits this long for the violations the live validator finds in its messages
 * (they come back from the worker thread a batch later) before it is sent, and longer while the
 * validator has not judged as far as the traffic went when the span ended. */
export const HOLD_MS = 1000;
/** The longest a span waits for the live validator to judge its messages. */
export const VALIDATOR_WAIT_MS = 30_000;

/** Spans held before the SDK has loaded (or while they wait for violations) past this many are
 * dropped and counted. */
const MAX_HELD = 4096;

/** Where finished spans go once the OpenTelemetry SDK has loaded (recorder/otel/otel-sdk.ts). */
export interface SpanSink {
  send(span: McpSpanData): void;
}

interface ExchangeInfo {
  sessionId?: string;
  protocolVersion?: string;
  /** The next message's position in the exchange (the live validator's `ref.k`). */
  position: number;
}

function header(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const v = (headers as Record<string, unknown>)[name];
  const first = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' && first !== '' ? first : undefined;
}

/**
 * `record --otel` on the forwarding thread: turns what the capture filter writes into spans
 * (lib/telemetry/spans.ts, the mapping `export` uses too), holds each finished span HOLD_MS for
 * its violations, and hands it to the SDK. Costs a JSON parse per frame at most; never blocks.
 */
export class SpanFeed {
  #sink: SpanSink | undefined;
  /** Each finished span, when it may leave, and how far the live validator must have judged by
   * then (lib/live-stats.ts) for its violations to be on it. */
  readonly #held: { due: number; judged: number; span: McpSpanData }[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Spans dropped before reaching the SDK (held past MAX_HELD). */
  dropped = 0;
  /** Spans handed to the SDK. */
  sent = 0;

  constructor(
    readonly base: Omit<SpanBase, 'payloads'>,
    readonly payloads: PayloadRedaction | undefined,
  ) {}

  /** The SDK is ready: what was held goes to it as it falls due. */
  connect(sink: SpanSink): void {
    this.#sink = sink;
    this.#schedule();
  }

  /** An observer for one journal (one per file with --cassette-dir). */
  observer(): FrameObserver {
    const mapper = new McpSpanMapper({ ...this.base, ...(this.payloads ? { payloads: this.payloads } : {}) }, (s) => this.#hold(s));
    const exchanges = new Map<number, ExchangeInfo>();
    let seq = 0;
    return {
      line: () => {
        seq += 1;
      },
      frame: (direction: Direction, json: unknown, exchange?: number) => {
        const ex = exchange === undefined ? undefined : exchanges.get(exchange);
        const site = {
          time: Date.now(),
          ...(exchange === undefined ? { seq } : { exchange, position: ex ? ex.position++ : 0 }),
          ...(ex?.sessionId ? { sessionId: ex.sessionId } : {}),
          ...(ex?.protocolVersion ? { protocolVersion: ex.protocolVersion } : {}),
        };
        mapper.message(direction, json, site);
      },
      event: (record: JournalEvent) => {
        const x = typeof record.x === 'number' ? record.x : undefined;
        switch (record.ev) {
          case 'http-request': {
            if (x === undefined) break;
            const sessionId = header(record.headers, 'mcp-session-id');
            const protocolVersion = header(record.headers, 'mcp-protocol-version');
            exchanges.set(x, { position: 0, ...(sessionId ? { sessionId } : {}), ...(protocolVersion ? { protocolVersion } : {}) });
            break;
          }
          case 'http-response': {
            // The initialize answer names the session the rest of its exchanges carry.
            const ex = x === undefined ? undefined : exchanges.get(x);
            const sessionId = header(record.headers, 'mcp-session-id');
            if (ex && sessionId && !ex.sessionId) ex.sessionId = sessionId;
            break;
          }
          case 'http-end':
            if (x !== undefined) {
              mapper.exchangeEnd(x, Date.now());
              exchanges.delete(x);
            }
            break;
          case 'violation': {
            const v = record.violation as Violation | undefined;
            if (!v) break;
            const ref = record.ref as { x?: number; k?: number } | undefined;
            mapper.violation(
              v,
              ref && typeof ref.x === 'number' && typeof ref.k === 'number' ? { exchange: ref.x, position: ref.k } : { seq: v.seq },
              Date.now(),
            );
            break;
          }
          case 'exit':
          case 'stopped':
            mapper.finish(Date.now());
            break;
        }
      },
    };
  }

  #hold(span: McpSpanData): void {
    if (this.#held.length >= MAX_HELD) {
      this.#held.shift();
      this.dropped += 1;
    }
    // The frame that ended the span reaches the live validator's tap just after the capture
    // filter saw it (in the same journal flush): the mark is read once that flush is over.
    const entry = { due: Date.now() + HOLD_MS, judged: Number.POSITIVE_INFINITY, span };
    queueMicrotask(() => (entry.judged = LIVE.tappedBytes));
    this.#held.push(entry);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer || !this.#sink || this.#held.length === 0) return;
    this.#timer = setTimeout(() => this.#tick(), Math.max(0, this.#held[0]!.due - Date.now()));
    this.#timer.unref();
  }

  #tick(): void {
    this.#timer = undefined;
    this.#release(Date.now());
    // Still held past its time: the live validator has not judged its messages yet (it starts a
    // moment after the proxy, or the traffic is heavy); look again shortly.
    if (this.#held.length > 0 && this.#held[0]!.due <= Date.now()) {
      this.#timer = setTimeout(() => this.#tick(), 50);
      this.#timer.unref();
    } else this.#schedule();
  }

  /** Sends the spans that are due and whose messages the live validator has judged (or that
   * waited VALIDATOR_WAIT_MS for it; `now` infinite: all of them). */
  #release(now: number): void {
    const judged = LIVE.tappedBytes - LIVE.backlogBytes;
    while (this.#sink && this.#held.length > 0) {
      const next = this.#held[0]!;
      if (next.due > now || (judged < next.judged && now < next.due + VALIDATOR_WAIT_MS)) break;
      this.#sink.send(this.#held.shift()!.span);
      this.sent += 1;
    }
  }

  /** Sends every held span now (the recording ends). */
  drain(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#release(Number.POSITIVE_INFINITY);
  }
}
