/**
 * An independent (non-SDK) server for tests: tmcp over its HTTP transport. It answers
 * 2026-07-28 requests as SSE-framed streams and 2025 clients with sessions.
 */
import { McpServer } from 'tmcp';
import { ValibotJsonSchemaAdapter } from '@tmcp/adapter-valibot';
import { HttpTransport } from '@tmcp/transport-http';
import * as v from 'valibot';
import { fetchHandler } from '../helpers/fetch-handler.js';

export function tmcpHandler() {
  const server = new McpServer(
    { name: 'tmcp-test-server', version: '1.0.0', description: 'tmcp through mcp-cassette' },
    { adapter: new ValibotJsonSchemaAdapter(), capabilities: { tools: { listChanged: true } } },
  );
  server.tool(
    { name: 'add', description: 'Add two numbers', schema: v.object({ a: v.number(), b: v.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  const transport = new HttpTransport(server, { path: '/mcp' });
  return fetchHandler((request) => transport.respond(request));
}
