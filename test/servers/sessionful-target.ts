#!/usr/bin/env node
/**
 * A 2025-era sessionful Streamable HTTP server on the v1 SDK, for the replay tests of the
 * client's own GET (listen stream) and DELETE (session end). Listens on 127.0.0.1, port 0, and
 * prints its URL on the first stdout line. Sessions are keyed by `Mcp-Session-Id`; what the
 * server sends outside any request goes on the session's GET stream:
 * - `announce {what}` logs `announcing <what>` and says the resource list changed, both as
 *   notifications on the GET stream (not tied to the tools/call);
 * - `confirm {action}` asks the client with `elicitation/create`, which the v1 SDK also sends
 *   on the GET stream.
 *
 * `--regression <name>[,<name>...]` seeds changes:
 *   get-notification-missing (announce no longer says the resource list changed),
 *   get-405 (the GET is answered 405: no listen stream),
 *   delete-405 (DELETE is answered 405: clients may not end their session),
 *   delete-404 (DELETE is answered 404, as if the session were gone),
 *   confirm-without-asking (confirm no longer sends elicitation/create: it proceeds unasked),
 *   elicitation-changed (confirm asks with other wording)
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

const argv = process.argv.slice(2);
const at = argv.indexOf('--regression');
const regressions = new Set(at !== -1 ? (argv[at + 1] ?? '').split(',') : []);
const seeded = (name: string) => regressions.has(name);

function createServer(): McpServer {
  const server = new McpServer(
    { name: 'sessionful-target', version: `1.0.${Math.floor(Math.random() * 1000)}` },
    { capabilities: { tools: {}, resources: { listChanged: true }, logging: {} } },
  );
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool(
    'announce',
    { description: 'Announces something on the listen stream', inputSchema: { what: z.string() } },
    async ({ what }) => {
      // Without a related request, the v1 SDK sends these on the session's GET stream.
      await server.server.sendLoggingMessage({ level: 'info', data: `announcing ${what} at ${new Date().toISOString()}` });
      if (!seeded('get-notification-missing')) await server.server.sendResourceListChanged();
      return { content: [{ type: 'text', text: `announced ${what}` }] };
    },
  );
  server.registerTool(
    'confirm',
    { description: 'Asks the user over the GET stream', inputSchema: { action: z.string() } },
    async ({ action }) => {
      if (seeded('confirm-without-asking')) return { content: [{ type: 'text', text: `${action} done without asking` }] };
      const answer = await server.server.elicitInput({
        message: seeded('elicitation-changed') ? `Do you really want to ${action}?` : `Really ${action}?`,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      return { content: [{ type: 'text', text: `answer=${answer.action} ok=${String(answer.content?.ok)}` }] };
    },
  );
  server.registerResource('readme', 'example://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'sessionful target readme' }],
  }));
  return server;
}

const transports = new Map<string, StreamableHTTPServerTransport>();

function refuse(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res
    .writeHead(status, { 'content-type': 'application/json', ...headers })
    .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const sid = req.headers['mcp-session-id'];
  const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
  if (req.method === 'GET' && seeded('get-405')) return refuse(res, 405, 'Method not allowed.', { allow: 'POST, DELETE' });
  if (req.method === 'DELETE' && seeded('delete-405')) return refuse(res, 405, 'Method not allowed.', { allow: 'GET, POST' });
  if (req.method === 'DELETE' && seeded('delete-404')) return refuse(res, 404, 'Session not found');
  if (existing) return existing.handleRequest(req, res);
  if (req.method !== 'POST') return refuse(res, 400, 'Bad Request: No valid session ID provided');
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (id) => {
      transports.set(id, transport);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) transports.delete(transport.sessionId);
  };
  await createServer().connect(transport);
  await transport.handleRequest(req, res);
}

const http = createHttpServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    if (!res.headersSent) refuse(res, 500, String(err));
    else res.destroy();
  });
});
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(0));
