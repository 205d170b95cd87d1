/**
 * What `replay --update` keeps of a live session: every frame that crossed the connection, in
 * wire order, in the cassette's own message model (the recorder's StdioFramer for stdio, one
 * frame per request body, JSON answer and SSE event for HTTP), plus the HTTP exchanges and how
 * the server process ended. update.ts turns a tape into the RecordedSession that replaces the
 * recorded one.
 */
import type { HttpExchange } from '../../lib/cassette/cassette.js';
import { StdioFramer } from '../../lib/framing/stdio-framer.js';
import { frameToMessage, type Direction, type HttpFrameInfo, type RecordedMessage } from '../../lib/message.js';

export class LiveTape {
  readonly messages: RecordedMessage[] = [];
  readonly exchanges: HttpExchange[] = [];
  /** How the stdio server ended, when it did. */
  exit?: { code: number | null; signal: string | null };
  /** The 2025 `Mcp-Session-Id` the live HTTP server handed out. */
  mcpSessionId?: string;
  #endT?: number;
  readonly #start = performance.now();
  readonly #framer = new StdioFramer((m) => this.messages.push(m));

  /** Milliseconds since the live session started, to the microsecond like the recorder's cassettes. */
  now(): number {
    return Math.round((performance.now() - this.#start) * 1000) / 1000;
  }

  /** One stdio chunk as it crossed the pipe (stdin: what replay wrote). */
  stdio(channel: 'stdin' | 'stdout' | 'stderr', chunk: Buffer): void {
    this.#framer.push(channel, chunk, this.now());
  }

  /** One HTTP frame: a request body, a JSON answer or an SSE event's data. */
  http(frame: Buffer, direction: Direction, info: HttpFrameInfo): void {
    this.messages.push(
      frameToMessage(frame, { seq: this.messages.length + 1, t: this.now(), direction, channel: 'http', terminated: true, http: info }),
    );
  }

  /** The session is over: flush unterminated stdio frames and note when it ended. */
  end(): void {
    if (this.#endT !== undefined) return;
    this.#framer.endAll();
    this.#endT = this.now();
  }

  get durationMs(): number {
    return this.#endT ?? this.now();
  }
}
