#!/usr/bin/env node
/**
 * A small stdio MCP server (official v2 SDK, both eras) for replay tests. Its answers carry fresh
 * UUIDs and timestamps on every run. `--regression <name>` (or REPLAY_REGRESSION) switches on one
 * seeded change, so a cassette recorded from the plain server can be replayed against each:
 *   tool-removed, new-required-input, enum-shrunk, description-changed, is-error,
 *   error-code-changed, content-changed, readonly-lost, tool-added, crash, hang
 * Any other argument (a test's `--marker=…`) is ignored.
 */
import { randomUUID } from 'node:crypto';
import { McpServer, ProtocolError, acceptedContent, inputRequired } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import * as z from 'zod';

const argv = process.argv.slice(2);
const flag = argv.indexOf('--regression');
const regression = (flag !== -1 ? argv[flag + 1] : undefined) ?? process.env.REPLAY_REGRESSION ?? 'none';

function createServer(): McpServer {
  const server = new McpServer(
    { name: 'replay-target', version: `1.0.${Math.floor(Math.random() * 1000)}` },
    { capabilities: { tools: {}, resources: {}, prompts: {} } },
  );
  const searchInput = {
    query: z.string().describe('What to look for'),
    mode: z.enum(regression === 'enum-shrunk' ? ['fast'] : ['fast', 'deep']).optional(),
    ...(regression === 'new-required-input' ? { limit: z.number().int() } : {}),
  };
  server.registerTool(
    'search',
    {
      title: 'Search',
      description: regression === 'description-changed' ? 'Searches the whole catalogue, slowly' : 'Searches the catalogue',
      inputSchema: z.object(searchInput),
      outputSchema: z.object({ hits: z.number(), mode: z.string() }),
      annotations: { readOnlyHint: regression !== 'readonly-lost' },
    },
    async ({ query, mode }) => {
      if (regression === 'crash') process.exit(3);
      if (regression === 'hang') await new Promise(() => {});
      if (regression === 'is-error') return { content: [{ type: 'text', text: 'search backend is down' }], isError: true };
      const hits = regression === 'content-changed' ? 4 : 3;
      return { content: [{ type: 'text', text: `${hits} hits for ${query}` }], structuredContent: { hits, mode: mode ?? 'fast' } };
    },
  );
  if (regression !== 'tool-removed') {
    server.registerTool(
      'stamp',
      {
        description: 'Returns a fresh id and the current time',
        inputSchema: z.object({}),
        outputSchema: z.object({ id: z.string(), at: z.string(), createdAtMs: z.number() }),
      },
      async () => {
        const id = randomUUID();
        const at = new Date().toISOString();
        return { content: [{ type: 'text', text: `stamp ${id} at ${at}` }], structuredContent: { id, at, createdAtMs: Date.now() } };
      },
    );
  }
  server.registerTool(
    'confirm_action',
    {
      description: 'Asks the user to confirm (MRTR input_required on 2026-07-28, elicitation/create on 2025)',
      inputSchema: z.object({ action: z.string() }),
    },
    async ({ action }, ctx) => {
      const got = acceptedContent<{ ok: boolean }>(ctx.mcpReq.inputResponses, 'confirm');
      if (!got) {
        return inputRequired({
          requestState: `state-${randomUUID()}`,
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
  if (regression === 'tool-added') {
    server.registerTool('export', { description: 'Exports the catalogue', inputSchema: z.object({ format: z.string().optional() }) }, async () => ({ content: [{ type: 'text', text: 'exported' }] }));
  }
  server.registerResource('readme', 'example://readme', { mimeType: 'text/plain' }, async (uri) => ({
    contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'replay target readme' }],
  }));
  server.registerResource('locked', 'example://locked', { mimeType: 'text/plain' }, async () => {
    if (regression === 'error-code-changed') throw new ProtocolError(-32603, 'internal failure reading example://locked');
    throw new ProtocolError(-32602, 'example://locked is not readable');
  });
  server.registerPrompt('greet', { description: 'Greets someone', argsSchema: z.object({ name: z.string() }) }, ({ name }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Say hi to ${name}` } }],
  }));
  return server;
}

serveStdio(() => createServer());
