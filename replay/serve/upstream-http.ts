/**
 * The HTTP calls of `serve`'s HTTP fallback (http-fallback.ts) to the real server: a message as a
 * POST (the answer awaited, every other frame relayed as it arrives, on a JSON body or an SSE
 * stream) and the session's standalone GET stream. Every exchange is kept in the session's
 * recording (http-recording.ts).
 */
import { request as httpRequest } from 'undici';
import { messageText, parseMessageText } from '../../lib/json-depth.js';
import { SseSplitter, sseFields, type SseEvent } from '../../lib/framing/sse-splitter.js';
import { classify, type HttpFrameInfo } from '../../lib/message.js';
import { redactHeaderValues } from '../../lib/redact.js';
import { isObject } from '../diff.js';
import type { HttpRecording } from './http-recording.js';
import { idKey, type Json } from './interactions.js';
import { PROTOCOL_META } from './matcher.js';

/** The real server's side of a 2025-era client's session: its `Mcp-Session-Id` (learned from
 * the first answer) and revision. A stateless 2026-07-28 exchange has none. */
export interface UpstreamSession {
  sessionId?: string;
  protocolVersion?: string;
}

/** Where a frame the real server sent on its own (not the awaited answer) goes. */
export type Relay = (frame: Json) => void;

export function flat(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

/** The `Mcp-Name` header value, base64-wrapped when it is not plain printable ASCII (SEP-2243). */
export function mcpName(value: string): string {
  const plain =
    value.length > 0 &&
    value === value.trim() &&
    /^[\t\x20-\x7e]*$/.test(value) &&
    !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

export const NAME_SOURCES: Record<string, string> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
  'tasks/get': 'taskId',
  'tasks/update': 'taskId',
  'tasks/cancel': 'taskId',
};

export function revisionOf(message: Json): string | undefined {
  const params = isObject(message.params) ? message.params : undefined;
  const meta = isObject(params?._meta) ? params._meta : undefined;
  return typeof meta?.[PROTOCOL_META] === 'string' ? meta[PROTOCOL_META] : undefined;
}

/** Sends one message to the real server as a POST; resolves with the JSON-RPC answer whose id
 * is `message.id` (requests), relaying every other frame of the response as it arrives. */
export async function postUpstream(
  url: URL,
  baseHeaders: Record<string, string> | undefined,
  recording: HttpRecording,
  connection: UpstreamSession | undefined,
  message: Json,
  relay: Relay,
  extra: Record<string, string> = {},
  abort = new AbortController(),
): Promise<Json | undefined> {
  const headers: Record<string, string> = {
    ...extra,
    ...baseHeaders,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (connection?.sessionId) headers['mcp-session-id'] = connection.sessionId;
  if (connection?.protocolVersion) headers['mcp-protocol-version'] = connection.protocolVersion;
  const body = messageText(message);
  const ex = recording.exchange('POST', url.pathname, headers);
  recording.add(body, 'client-to-server', { exchange: ex.id, part: 'request' });
  const isRequest = classify(message) === 'request';
  const reader = new AnswerReader(recording, ex.id, message, isRequest, relay);
  try {
    const res = await httpRequest(url, { method: 'POST', headers, body, signal: abort.signal });
    await readResponse(res, ex, recording, connection, reader, abort);
    ex.endT = recording.now();
    if (isRequest && !reader.answer) {
      const status = res.statusCode >= 400 ? `HTTP ${res.statusCode}` : 'no answer';
      const error = { code: -32603, message: `mcp-cassette: the real server at ${url.href} gave ${status} to ${String(message.method)}` };
      reader.answer = { jsonrpc: '2.0', id: message.id, error };
    }
    return reader.answer;
  } catch (err) {
    ex.endT = recording.now();
    if (reader.answer) return reader.answer; // our own abort after the answer
    ex.outcome = abort.signal.aborted ? 'client-aborted' : 'upstream-error';
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as { code?: string }).code;
    ex.error = `${(err as Error).message}${cause ? ` (${cause})` : ''}`;
    if (abort.signal.aborted) return undefined;
    throw new Error(`the real server at ${url.href} could not be reached: ${ex.error}`);
  }
}

/** Each frame of a POST's response, recorded; the answer to the request kept, every other frame
 * relayed as it arrives. */
class AnswerReader {
  answer: Json | undefined;

  constructor(
    private readonly recording: HttpRecording,
    private readonly exchange: number,
    private readonly message: Json,
    private readonly isRequest: boolean,
    private readonly relay: Relay,
  ) {}

  frame(text: string, part: 'response' | 'sse', sse?: HttpFrameInfo['sse']): void {
    this.recording.add(text, 'server-to-client', { exchange: this.exchange, part, ...(sse && Object.keys(sse).length > 0 ? { sse } : {}) });
    let json: unknown;
    try {
      json = parseMessageText(text);
    } catch {
      return;
    }
    for (const frame of (Array.isArray(json) ? json : [json]) as Json[]) {
      const kind = classify(frame);
      if (this.isRequest && (kind === 'response' || kind === 'error') && idKey(frame.id) === idKey(this.message.id)) {
        this.answer = frame;
        continue;
      }
      this.relay(frame);
    }
  }
}

/** The response's status and headers into the exchange (a session id the server handed out kept),
 * and its body read: an SSE stream until the answer came, or one JSON body. */
async function readResponse(
  res: Awaited<ReturnType<typeof httpRequest>>,
  ex: ReturnType<HttpRecording['exchange']>,
  recording: HttpRecording,
  connection: UpstreamSession | undefined,
  reader: AnswerReader,
  abort: AbortController,
): Promise<void> {
  ex.status = res.statusCode;
  const responseHeaders = flat(res.headers);
  ex.responseHeaders = redactHeaderValues(responseHeaders);
  if (responseHeaders['content-type']) ex.contentType = responseHeaders['content-type'].split(';')[0]!.trim();
  const sid = responseHeaders['mcp-session-id'];
  if (connection && sid && !connection.sessionId) {
    connection.sessionId = sid;
    recording.sessionId = sid;
  }
  if ((ex.contentType ?? '') === 'text/event-stream') {
    const splitter = new SseSplitter((event: SseEvent) => {
      if (event.hasData && event.data.trim() !== '') reader.frame(event.data, 'sse', sseFields(event));
    });
    for await (const chunk of res.body) {
      splitter.push(chunk as Buffer);
      if (reader.answer) break; // the answer ends the request's stream
    }
    if (reader.answer) abort.abort();
    else splitter.end();
  } else {
    const text = await res.body.text();
    if (text.trim() !== '') reader.frame(text, 'response');
  }
}

/** The session's standalone GET stream: each message recorded, and relayed while it lasts. */
export async function listenUpstream(
  url: URL,
  baseHeaders: Record<string, string> | undefined,
  recording: HttpRecording,
  connection: { sessionId: string; protocolVersion?: string },
  abort: AbortController,
  relay: Relay,
): Promise<void> {
  const headers: Record<string, string> = { ...baseHeaders, accept: 'text/event-stream', 'mcp-session-id': connection.sessionId };
  if (connection.protocolVersion) headers['mcp-protocol-version'] = connection.protocolVersion;
  const ex = recording.exchange('GET', url.pathname, headers);
  try {
    const res = await httpRequest(url, { method: 'GET', headers, signal: abort.signal });
    ex.status = res.statusCode;
    const responseHeaders = flat(res.headers);
    ex.responseHeaders = redactHeaderValues(responseHeaders);
    if (responseHeaders['content-type']) ex.contentType = responseHeaders['content-type'].split(';')[0]!.trim();
    if (res.statusCode !== 200 || ex.contentType !== 'text/event-stream') {
      await res.body.dump().catch(() => {});
      ex.endT = recording.now();
      return;
    }
    const splitter = new SseSplitter((event: SseEvent) => {
      if (!event.hasData || event.data.trim() === '') return;
      const fields = sseFields(event);
      recording.add(event.data, 'server-to-client', {
        exchange: ex.id,
        part: 'sse',
        ...(Object.keys(fields).length > 0 ? { sse: fields } : {}),
      });
      try {
        relay(parseMessageText(event.data) as Json);
      } catch {
        /* not JSON: recorded, not relayed */
      }
    });
    for await (const chunk of res.body) splitter.push(chunk as Buffer);
    ex.endT = recording.now();
  } catch {
    ex.endT = recording.now();
    ex.outcome = abort.signal.aborted ? 'client-aborted' : 'upstream-error';
  }
}
