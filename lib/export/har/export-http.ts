import { STATUS_CODES } from 'node:http';
import type { HttpExchange, HttpHeaders, RecordedSession } from '../../cassette/cassette.js';
import { storedHeader } from '../../http-headers.js';
import { messageBytes, type RecordedMessage } from '../../message.js';
import { type HarEntry, type HarEventSourceMessage, type HarNameValue, isoAt, ms } from './har-types.js';
import { sseEventText } from './sse-text.js';

/** HAR header lists from stored headers (lowercase names; a repeated header, several entries). */
export function harHeaders(headers: HttpHeaders | undefined): HarNameValue[] {
  const out: HarNameValue[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    for (const v of Array.isArray(value) ? value : [value]) out.push({ name, value: v });
  }
  return out;
}

export function queryOf(url: URL): HarNameValue[] {
  return [...url.searchParams.entries()].map(([name, value]) => ({ name, value }));
}

/** The request URL of an exchange: the upstream endpoint's origin (the server the proxy forwarded
 * to) and the path the client asked for. */
function exchangeUrl(session: RecordedSession, x: HttpExchange): URL {
  const target = 'url' in session.target ? session.target.url : undefined;
  const host = storedHeader(x.requestHeaders, 'host');
  const origin = target ? new URL(target).origin : `http://${host ?? 'localhost'}`;
  return new URL(x.path, origin);
}

const text = (m: RecordedMessage): string => messageBytes(m).toString('utf8');

/** An SSE event as `_eventSourceMessages` holds it. */
function eventMessage(session: RecordedSession, m: RecordedMessage): HarEventSourceMessage {
  const name = m.http?.sse?.event ?? 'message';
  return { type: name, eventName: name, time: (Date.parse(session.startedAt) + m.t) / 1000, eventId: m.http?.sse?.id ?? '', data: text(m) };
}

/**
 * One HAR entry per HTTP exchange of a session. Bodies are the recorded bytes: the request body,
 * the JSON response body, or the event stream rebuilt from its events (id, event, retry and data
 * of each, comments and line-end style not kept), with each event also in `_eventSourceMessages`
 * at the time it was complete. Timings: `send` until the request body was complete, `wait` until
 * the first response message (or the end), `receive` the rest; the cassette keeps no connection
 * times, so `blocked`, `dns`, `connect` and `ssl` are -1.
 */
export function httpEntries(session: RecordedSession, pageref: string): HarEntry[] {
  const byExchange = new Map<number, RecordedMessage[]>();
  for (const m of session.messages) {
    if (!m.http) continue;
    let list = byExchange.get(m.http.exchange);
    if (!list) byExchange.set(m.http.exchange, (list = []));
    list.push(m);
  }
  return (session.exchanges ?? []).map((x) => exchangeEntry(session, x, byExchange.get(x.id) ?? [], pageref));
}

function exchangeEntry(session: RecordedSession, x: HttpExchange, messages: RecordedMessage[], pageref: string): HarEntry {
  const url = exchangeUrl(session, x);
  const request = messages.filter((m) => m.http!.part === 'request');
  const answer = messages.filter((m) => m.http!.part !== 'request');
  const events = answer.filter((m) => m.http!.part === 'sse');
  const requestText = request.map(text).join('');
  const sent = request.at(-1)?.t ?? x.t;
  const end = Math.max(x.endT ?? x.t, ...messages.map((m) => m.t));
  const first = answer[0]?.t ?? end;
  const timings = { blocked: -1, dns: -1, connect: -1, ssl: -1, send: ms(sent - x.t), wait: ms(first - sent), receive: ms(end - first) };
  const responseType = x.contentType ?? storedHeader(x.responseHeaders, 'content-type') ?? 'x-unknown';
  const content: HarEntry['response']['content'] = { size: 0, mimeType: responseType };
  if (events.length > 0 || responseType.toLowerCase().startsWith('text/event-stream')) {
    content.text = events.map((m) => sseEventText({ ...m.http!.sse, data: text(m) })).join('');
  } else if (answer.length > 0) {
    const binary = answer.some((m) => m.rawBase64 !== undefined);
    const bytes = Buffer.concat(answer.map(messageBytes));
    content.text = binary ? bytes.toString('base64') : bytes.toString('utf8');
    if (binary) content.encoding = 'base64';
    content.size = bytes.length;
  } else if (x.responseBody !== undefined) {
    content.text = x.responseBody;
  } else if (!x.mcp) {
    content.comment = 'body not kept: outside the MCP endpoint';
  }
  if (content.text !== undefined && content.encoding === undefined) content.size = Buffer.byteLength(content.text);
  const entry: HarEntry = {
    pageref,
    startedDateTime: isoAt(session.startedAt, x.t),
    time: ms(timings.send + timings.wait + timings.receive),
    request: {
      method: x.method,
      url: url.href,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders(x.requestHeaders),
      queryString: queryOf(url),
      ...(request.length > 0 || x.method === 'POST'
        ? { postData: { mimeType: storedHeader(x.requestHeaders, 'content-type') ?? 'application/json', text: requestText } }
        : {}),
      headersSize: -1,
      bodySize: Buffer.byteLength(requestText),
    },
    response: {
      status: x.status ?? 0,
      statusText: x.status !== undefined ? (STATUS_CODES[x.status] ?? '') : '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders(x.responseHeaders),
      content,
      redirectURL: storedHeader(x.responseHeaders, 'location') ?? '',
      headersSize: -1,
      bodySize: x.mcp || content.text !== undefined ? content.size : -1,
      ...(x.error ? { _error: x.error } : {}),
    },
    cache: {},
    timings,
  };
  if (events.length > 0) entry._eventSourceMessages = events.map((m) => eventMessage(session, m));
  entry._mcpCassette = { session: session.id, exchange: x.id, outcome: x.outcome, ...(x.error ? { error: x.error } : {}) };
  return entry;
}
