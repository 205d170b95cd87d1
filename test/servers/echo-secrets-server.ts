#!/usr/bin/env node
/**
 * A real MCP server (official v2 SDK, both eras) for the production-capture tests: whatever a
 * client hands `echo` comes back in the result (text and structuredContent), in a log
 * notification and on stderr, so a credential planted in the arguments travels every path a
 * recording keeps. `add` is an ordinary tool. Over stdio, or over Streamable HTTP (stateless) on
 * 127.0.0.1 with `--http` (prints its URL on the first stdout line;
 * `--log-headers` writes each request's Authorization and X-Api-Key to stderr).
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { serveV2 } from './serve-v2.js';

function createServer(): McpServer {
  const server = new McpServer({ name: 'echo-secrets', version: '1.0.0' }, { capabilities: { tools: {}, logging: {} } });
  server.registerTool(
    'echo',
    {
      description: 'Says back what it was given, in its result, a log message and on stderr',
      inputSchema: z.object({ text: z.string(), note: z.string().optional() }),
      outputSchema: z.object({ echoed: z.string() }),
    },
    async ({ text }, ctx) => {
      await ctx.mcpReq.log('info', `echoing ${text}`).catch(() => {});
      // One line on stderr, newlines escaped, as a JSON logger writes it.
      process.stderr.write(`${JSON.stringify({ msg: 'echo', text })}\n`);
      return { content: [{ type: 'text', text: `you said: ${text}` }], structuredContent: { echoed: text } };
    },
  );
  server.registerTool(
    'add',
    { description: 'Adds two numbers', inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }),
  );
  return server;
}

// --log-headers: each HTTP request's credential headers as a JSON line on stderr, so a test can
// see what reached the server.
serveV2(createServer, process.argv, (req) => {
  if (!process.argv.includes('--log-headers')) return;
  const { authorization, 'x-api-key': apiKey } = req.headers;
  process.stderr.write(`${JSON.stringify({ headers: { authorization: authorization ?? null, 'x-api-key': apiKey ?? null } })}\n`);
});
