/**
 * A HAR of real Chromium traffic, written by a HAR recorder that is not ours (Playwright's
 * `recordHar`, driving the system Chromium): a page on 127.0.0.1 speaks MCP with its own fetch()
 * calls to a sessionful Streamable HTTP endpoint of the official v1 SDK served from the same
 * origin, and keeps what it sent and what it got. That record, not our export, is what the
 * imported cassette is checked against.
 *
 * The page: initialize (with a bearer token), notifications/initialized, a GET listen stream,
 * tools/list, a tools/call whose answer streams three log notifications before the result, a
 * tools/call that makes the server notify on the GET stream, and a DELETE that ends the session
 * (and the GET stream). Besides them the HAR holds the page's document and its script.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ExecutionContext } from 'ava';
import { chromium } from 'playwright-core';
import * as z from 'zod';
import { chromiumPath } from '../../helpers/browser.js';
import { v1SessionfulHandler } from '../../servers/v1-http-server.js';

/** What the page itself saw of one fetch() to the MCP endpoint. */
export interface PageExchange {
  method: 'POST' | 'GET' | 'DELETE';
  /** The request body it sent (POST). */
  body?: string;
  status: number;
  contentType: string | null;
  sessionId: string | null;
  /** The whole response body as the page read it. */
  text: string;
  /** Epoch milliseconds (the page's clock): fetch() called, the body read to its end. */
  started: number;
  ended: number;
}

export const PROTOCOL_VERSION = '2025-06-18';
export const CLIENT_INFO = { name: 'chromium-page', version: '1.0.0' };

function pageServerMcp(): McpServer {
  const server = new McpServer({ name: 'page-origin-server', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.registerTool('count', { description: 'Counts, logging each step', inputSchema: { to: z.number() } }, async ({ to }, extra) => {
    for (let i = 1; i <= to; i++) {
      // Tied to the request: on the tools/call POST's own event stream.
      await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', data: `step ${i} of ${to}` } });
      await new Promise((r) => setTimeout(r, 20));
    }
    return { content: [{ type: 'text', text: `counted to ${to}` }] };
  });
  server.registerTool(
    'announce',
    { description: 'Announces on the listen stream', inputSchema: { what: z.string() } },
    async ({ what }) => {
      // Tied to no request: the v1 SDK sends it on the session's GET stream.
      await server.server.sendLoggingMessage({ level: 'info', data: `announcing ${what}` });
      return { content: [{ type: 'text', text: `announced ${what}` }] };
    },
  );
  return server;
}

const PAGE = '<!doctype html><html><head><title>MCP page</title><script src="/app.js"></script></head><body>MCP page</body></html>';

/** The page's origin server: the document, its script, and the SDK's MCP endpoint at /mcp.
 * Closed when the test ends. */
export async function startPageServer(t: ExecutionContext): Promise<{ origin: string; mcpUrl: string }> {
  const mcp = v1SessionfulHandler(pageServerMcp);
  const http = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/mcp') return mcp(req, res);
    if (path === '/') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE);
    if (path === '/app.js') return void res.writeHead(200, { 'content-type': 'text/javascript' }).end('window.appLoaded = true;\n');
    res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return { origin, mcpUrl: `${origin}/mcp` };
}

/**
 * Opens the page in headless Chromium with Playwright recording a HAR (bodies embedded) to
 * `harPath`, runs the MCP conversation from the page, and returns what the page saw. The HAR is
 * complete when this resolves (Playwright writes it when the context closes).
 */
export async function recordChromiumHar(t: ExecutionContext, harPath: string, token: string): Promise<PageExchange[]> {
  const { origin } = await startPageServer(t);
  const browser = await chromium.launch({
    executablePath: chromiumPath!,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  try {
    const context = await browser.newContext({ recordHar: { path: harPath, content: 'embed', mode: 'full' } });
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await page.waitForFunction(() => (window as unknown as { appLoaded?: boolean }).appLoaded === true);
    const seen = await page.evaluate(
      async ({ token, protocolVersion, clientInfo }) => {
        const out: PageExchange[] = [];
        let sid: string | null = null;
        const headers = (extra: Record<string, string> = {}): Record<string, string> => ({
          ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': protocolVersion } : {}),
          ...extra,
        });
        const exchange = async (method: PageExchange['method'], init: RequestInit, body?: string): Promise<PageExchange> => {
          const started = Date.now();
          const r = await fetch('/mcp', { ...init, method, ...(body !== undefined ? { body } : {}) });
          const text = await r.text();
          return {
            method,
            ...(body !== undefined ? { body } : {}),
            status: r.status,
            contentType: r.headers.get('content-type'),
            sessionId: r.headers.get('mcp-session-id'),
            text,
            started,
            ended: Date.now(),
          };
        };
        const post = async (message: unknown): Promise<PageExchange> => {
          const x = await exchange(
            'POST',
            {
              headers: headers({
                'content-type': 'application/json',
                accept: 'application/json, text/event-stream',
                authorization: `Bearer ${token}`,
              }),
            },
            JSON.stringify(message),
          );
          sid ??= x.sessionId;
          out.push(x);
          return x;
        };
        await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo } });
        await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
        // The listen stream: read as it comes, until the DELETE ends it.
        const getStarted = Date.now();
        const listen = await fetch('/mcp', { method: 'GET', headers: headers({ accept: 'text/event-stream' }) });
        const reader = listen.body!.getReader();
        const decoder = new TextDecoder();
        let listened = '';
        const drained = (async () => {
          for (;;) {
            const { done, value } = await reader.read();
            if (done) return Date.now();
            listened += decoder.decode(value, { stream: true });
          }
        })();
        await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
        await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'count', arguments: { to: 3 } } });
        await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'announce', arguments: { what: 'release' } } });
        for (let i = 0; i < 200 && !listened.includes('announcing release'); i++) await new Promise((r) => setTimeout(r, 10));
        const del = await exchange('DELETE', { headers: headers() });
        const getEnded = await drained;
        const get: PageExchange = {
          method: 'GET',
          status: listen.status,
          contentType: listen.headers.get('content-type'),
          sessionId: listen.headers.get('mcp-session-id'),
          text: listened,
          started: getStarted,
          ended: getEnded,
        };
        // In the order the requests were made.
        return [out[0]!, out[1]!, get, ...out.slice(2), del];
      },
      { token, protocolVersion: PROTOCOL_VERSION, clientInfo: CLIENT_INFO },
    );
    await context.close();
    return seen;
  } finally {
    await browser.close();
  }
}

/** The events of an event stream, by the WHATWG event-stream parsing rules, each with the fields
 * it carried itself (what the page got is split here, independently of the importer). */
export function sseEvents(text: string): { data: string; event?: string; id?: string }[] {
  const out: { data: string; event?: string; id?: string }[] = [];
  let data: string[] = [];
  let event: string | undefined;
  let id: string | undefined;
  for (const line of text.split(/\r\n|\r|\n/)) {
    if (line === '') {
      if (data.length > 0)
        out.push({ data: data.join('\n'), ...(event !== undefined ? { event } : {}), ...(id !== undefined ? { id } : {}) });
      data = [];
      event = undefined;
      id = undefined;
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    else if (field === 'id' && !value.includes('\0')) id = value;
  }
  return out;
}
