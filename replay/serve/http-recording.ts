/**
 * What `serve`'s HTTP fallback (http-fallback.ts) exchanged with the real server, kept as a
 * cassette session: one Streamable HTTP session, shaped as `record --upstream` shapes it, its
 * secret headers masked as `record` masks them.
 */
import { randomUUID } from 'node:crypto';
import type { HttpExchange, RecordedSession } from '../../lib/cassette/cassette.js';
import { sessionFacts } from '../../lib/cassette/session-info.js';
import { frameToMessage, type Direction, type HttpFrameInfo, type RecordedMessage } from '../../lib/message.js';
import { redactHeaderValues } from '../../lib/redact.js';
import { packageVersion } from '../../lib/version.js';

/** One recorded Streamable HTTP session: its exchanges and messages, times from its start. */
export class HttpRecording {
  readonly startedAt = new Date();
  readonly t0 = performance.now();
  readonly exchanges: HttpExchange[] = [];
  readonly messages: RecordedMessage[] = [];
  sessionId?: string;
  #endedAt?: Date;

  now(): number {
    return Math.round((performance.now() - this.t0) * 1000) / 1000;
  }

  exchange(method: string, path: string, headers: Record<string, string>): HttpExchange {
    const ex: HttpExchange = {
      id: this.exchanges.length + 1,
      t: this.now(),
      method,
      path,
      requestHeaders: redactHeaderValues(headers),
      outcome: 'complete',
      mcp: true,
    };
    this.exchanges.push(ex);
    return ex;
  }

  add(text: string, direction: Direction, http: HttpFrameInfo): void {
    const frame = { seq: this.messages.length + 1, t: this.now(), direction, channel: 'http' as const, terminated: true, http };
    this.messages.push(frameToMessage(Buffer.from(text, 'utf8'), frame));
  }

  end(): void {
    this.#endedAt ??= new Date();
  }

  session(url: string): RecordedSession {
    const facts = sessionFacts(this.messages);
    const endedAt = this.#endedAt ?? new Date();
    return {
      id: randomUUID(),
      label: 'recorded by mcp-cassette serve',
      transport: 'streamable-http',
      startedAt: this.startedAt.toISOString(),
      endedAt: endedAt.toISOString(),
      durationMs: Math.max(0, endedAt.getTime() - this.startedAt.getTime()),
      target: { url, listen: 'mcp-cassette serve' },
      ...(this.sessionId ? { mcpSessionId: this.sessionId } : {}),
      protocol: facts.protocol,
      ...(facts.clientInfo ? { clientInfo: facts.clientInfo } : {}),
      ...(facts.serverInfo ? { serverInfo: facts.serverInfo } : {}),
      proxy: { pid: process.pid, version: packageVersion() },
      exchanges: this.exchanges,
      messages: this.messages,
    };
  }
}
