/**
 * A HAR shaped the way Chrome DevTools writes one ("Save all as HAR (with sensitive data)"),
 * made from the HAR we export of a real recording: a page, header names as the browser spells
 * them, the bearer token the page sent (in clear), Chrome's own fields (`_initiator`, `_priority`, `_resourceType`, `connection`,
 * `serverIPAddress`, `_transferSize`), the live bearer token in clear, event-stream responses with
 * no `content.text` and their events only in `_eventSourceMessages` (`eventName`, `eventId`,
 * `data`, `time` in seconds), none of our `_mcpCassette`, and the page's other traffic around the
 * MCP exchanges: the document, a CORS preflight of the endpoint, a favicon that is not there.
 */
import type { HarEntry, HarLog } from '../../../lib/export/har/har-types.js';

const capitalised = (name: string): string => name.replace(/(^|-)([a-z])/g, (_m, dash: string, c: string) => dash + c.toUpperCase());

function other(
  startedDateTime: string,
  method: string,
  url: string,
  status: number,
  mimeType: string,
  text?: string,
): Record<string, unknown> {
  return {
    _initiator: { type: 'other' },
    _priority: 'VeryHigh',
    _resourceType: method === 'OPTIONS' ? 'preflight' : 'document',
    cache: {},
    connection: '48213',
    pageref: 'page_1',
    request: {
      method,
      url,
      httpVersion: 'HTTP/1.1',
      headers: [
        { name: 'Accept', value: '*/*' },
        {
          name: 'User-Agent',
          value: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
        },
      ],
      queryString: [],
      cookies: [],
      headersSize: -1,
      bodySize: 0,
    },
    response: {
      status,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'Content-Type', value: mimeType }],
      cookies: [],
      content: { size: text === undefined ? 0 : text.length, mimeType, ...(text !== undefined ? { text } : {}) },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      _transferSize: 0,
      _error: null,
    },
    serverIPAddress: '127.0.0.1',
    startedDateTime,
    time: 1.2,
    timings: { blocked: 0.4, dns: -1, ssl: -1, connect: -1, send: 0.1, wait: 0.5, receive: 0.2, _blocked_queueing: 0.3 },
  };
}

export function chromeShaped(ours: HarLog, token: string): unknown {
  const entries = ours.log.entries.map((e: HarEntry) => {
    const { _mcpCassette: _ours, _eventSourceMessages: events, pageref: _p, ...rest } = e;
    const headers = [...e.request.headers.filter((h) => h.name !== 'authorization'), { name: 'authorization', value: `Bearer ${token}` }];
    const chrome: Record<string, unknown> = {
      ...rest,
      _initiator: { type: 'script', stack: { callFrames: [] } },
      _priority: 'High',
      _resourceType: 'fetch',
      connection: '48213',
      pageref: 'page_1',
      serverIPAddress: '127.0.0.1',
      request: { ...e.request, headers: headers.map((h) => ({ ...h, name: capitalised(h.name) })) },
      response: {
        ...e.response,
        headers: e.response.headers.map((h) => ({ ...h, name: capitalised(h.name) })),
        _transferSize: e.response.bodySize,
        _error: null,
      },
    };
    if (events) {
      // DevTools keeps no body for a stream it showed in its EventStream tab.
      const { text: _text, ...content } = e.response.content;
      (chrome.response as Record<string, unknown>).content = content;
      chrome._eventSourceMessages = events.map((m) => ({ eventName: m.type, eventId: m.eventId, data: m.data, time: m.time }));
    }
    return chrome;
  });
  const first = ours.log.entries[0]!;
  const origin = new URL(first.request.url).origin;
  const before = new Date(Date.parse(first.startedDateTime) - 50).toISOString();
  const last = ours.log.entries.at(-1)!.startedDateTime;
  return {
    log: {
      version: '1.2',
      creator: { name: 'WebInspector', version: '537.36' },
      pages: [{ startedDateTime: before, id: 'page_1', title: `${origin}/`, pageTimings: { onContentLoad: 40.1, onLoad: 52.7 } }],
      entries: [
        other(before, 'GET', `${origin}/`, 200, 'text/html', '<!doctype html><title>app</title>'),
        other(before, 'OPTIONS', first.request.url, 204, 'x-unknown'),
        ...entries,
        other(last, 'GET', `${origin}/favicon.ico`, 404, 'text/plain', 'Not Found'),
      ],
    },
  };
}
