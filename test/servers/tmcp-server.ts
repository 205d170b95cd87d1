/**
 * An independent (non-SDK) server for tests: tmcp over its HTTP transport (mounted by the tests)
 * or over stdio (`node tmcp-server.js stdio`). It answers 2026-07-28 requests as SSE-framed
 * streams over HTTP and 2025 clients with sessions.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { McpServer } from 'tmcp';
import { ValibotJsonSchemaAdapter } from '@tmcp/adapter-valibot';
import { HttpTransport } from '@tmcp/transport-http';
import * as v from 'valibot';
import { fetchHandler } from '../helpers/fetch-handler.js';

export function createTmcpServer(): McpServer {
  const server = new McpServer(
    { name: 'tmcp-test-server', version: '1.0.0', description: 'tmcp through mcp-cassette' },
    { adapter: new ValibotJsonSchemaAdapter(), capabilities: { tools: { listChanged: true }, prompts: {} } },
  );
  server.tool({ name: 'add', description: 'Add two numbers', schema: v.object({ a: v.number(), b: v.number() }) }, async ({ a, b }) => ({
    content: [{ type: 'text', text: String(a + b) }],
  }));
  server.prompt({ name: 'greet', description: 'Greets' }, async () => ({
    messages: [{ role: 'user', content: { type: 'text', text: 'Say hi' } }],
  }));
  return server;
}

export function tmcpHandler() {
  const transport = new HttpTransport(createTmcpServer(), { path: '/mcp' });
  return fetchHandler((request) => transport.respond(request));
}

if (process.argv[2] === 'stdio') {
  const { StdioTransport } = await import('@tmcp/transport-stdio');
  new StdioTransport(createTmcpServer()).listen();
}
