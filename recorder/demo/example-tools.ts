/**
 * The example server's tools, resources and prompts, shared by every way example-server.ts
 * serves them.
 */
import { McpServer, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import * as z from 'zod';

export function createExampleServer(): McpServer {
  const server = new McpServer(
    { name: 'mcp-cassette-example', version: '1.0.0' },
    { capabilities: { tools: {}, resources: {}, prompts: {}, logging: {} } },
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
  server.registerTool(
    'count_slowly',
    {
      description:
        'Counts to n, sending a progress notification per step (and a log message, when the request asks for logs) before the result',
      inputSchema: z.object({ n: z.number().int().min(1).max(100) }),
    },
    async ({ n }, ctx) => {
      const token = ctx.mcpReq._meta?.progressToken;
      for (let i = 1; i <= n; i++) {
        if (token !== undefined) {
          await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: n } });
        }
        // The SDK's log() sends only what was asked for: on 2026-07-28 only to a request whose _meta
        // carries io.modelcontextprotocol/logLevel (and at or above it), on 2025 per logging/setLevel.
        await ctx.mcpReq.log('info', `step ${i} of ${n}`);
      }
      return { content: [{ type: 'text', text: `counted to ${n}` }] };
    },
  );
  server.registerResource('readme', 'example://readme', { mimeType: 'text/plain', description: 'A static text' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'hello from the example server' }],
  }));
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hi to ${name}` } }],
  }));
  return server;
}
