#!/usr/bin/env node
/**
 * The server of the soak benchmark: the official v1 SDK's McpServer behind its sessionful
 * Streamable HTTP transport (each POST answered as an SSE stream, as the SDK does by default), on
 * 127.0.0.1 at a free port. The first stdout line is the endpoint URL.
 *
 * Tool `echo` ({text}) answers the text it was given, so a request and its answer are the same size.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import * as z from 'zod';
import { v1SessionfulHandler } from '../servers/v1-http-server.js';

function soakServer(): McpServer {
  const server = new McpServer({ name: 'mcp-cassette-soak', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.registerTool('echo', { description: 'Answers the text it was given', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
}

const http = createServer(v1SessionfulHandler(soakServer));
http.keepAliveTimeout = 60_000;
http.listen(0, '127.0.0.1', () => {
  process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`);
});
for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));
