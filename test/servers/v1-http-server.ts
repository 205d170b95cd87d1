/**
 * A 2025-era sessionful Streamable HTTP server on the legacy v1 SDK, for tests: `Mcp-Session-Id`,
 * a standalone GET SSE stream, DELETE to end a session. Its `confirm` tool asks the client with a
 * server→client `elicitation/create` that is not tied to the POST, so the v1 SDK sends it on the
 * GET stream while the tools/call POST stream is still open.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import * as z from 'zod';

function createServer(): McpServer {
  const server = new McpServer({ name: 'v1-http-test-server', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.registerTool('add', { description: 'Add two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.registerTool(
    'confirm',
    { description: 'Asks the user over the GET stream', inputSchema: { action: z.string() } },
    async ({ action }) => {
      const answer = await server.server.elicitInput({
        message: `Really ${action}?`,
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      return { content: [{ type: 'text', text: `answer=${answer.action} ok=${String(answer.content?.ok)}` }] };
    },
  );
  return server;
}

/** A node handler serving sessions keyed by `Mcp-Session-Id`, each with a server from `make`. */
export function v1SessionfulHandler(make: () => McpServer = createServer): (req: IncomingMessage, res: ServerResponse) => void {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  return (req, res) => {
    void (async () => {
      const sid = req.headers['mcp-session-id'];
      const existing = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (existing) {
        await existing.handleRequest(req, res);
        return;
      }
      if (req.method !== 'POST') {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: No valid session ID provided' }, id: null }));
        return;
      }
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          transports.set(id, transport);
        },
      });
      transport.onclose = () => {
        if (transport.sessionId) transports.delete(transport.sessionId);
      };
      await make().connect(transport);
      await transport.handleRequest(req, res);
    })();
  };
}
