#!/usr/bin/env node
/**
 * The built-in example MCP server (official v2 SDK): what `npm start` records, and the server
 * most tests put behind the proxy. `stdio` answers both eras (`server/discover` for 2026-07-28,
 * `initialize` for 2025); `stdio-legacy` is a hand-wired 2025-only server, which answers
 * `server/discover` with -32601 so clients fall back to `initialize`.
 */
import { McpServer, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

export function createExampleServer(): McpServer {
  const server = new McpServer(
    { name: 'mcp-cassette-example', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  server.registerTool(
    'add',
    {
      title: 'Add',
      description: 'Add two numbers',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      outputSchema: z.object({ sum: z.number() }),
    },
    async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
  );
  server.registerTool(
    'confirm_action',
    {
      description: 'Asks the user to confirm an action (MRTR input_required on 2026-07-28, elicitation/create on 2025)',
      inputSchema: z.object({ action: z.string() }),
    },
    async ({ action }, ctx) => {
      const got = acceptedContent<{ ok: boolean }>(ctx.mcpReq.inputResponses, 'confirm');
      if (!got) {
        return inputRequired({
          requestState: 'round-1',
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Really ${action}?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            }),
          },
        });
      }
      return { content: [{ type: 'text', text: `confirmed=${String(got.ok)} action=${action}` }] };
    },
  );
  server.registerResource(
    'readme',
    'example://readme',
    { mimeType: 'text/plain', description: 'A static text' },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from the example server' }] }),
  );
  server.registerPrompt(
    'greet',
    { description: 'Greets someone', argsSchema: z.object({ name: z.string() }) },
    ({ name }) => ({ messages: [{ role: 'user', content: { type: 'text', text: `Say hi to ${name}` } }] }),
  );
  return server;
}

const mode = process.argv[2] ?? 'stdio';
if (mode === 'stdio') {
  serveStdio(() => createExampleServer());
} else if (mode === 'stdio-legacy') {
  await createExampleServer().connect(new StdioServerTransport());
} else {
  process.stderr.write(`example-server: unknown mode ${mode}; use stdio or stdio-legacy\n`);
  process.exit(2);
}
