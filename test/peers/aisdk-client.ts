#!/usr/bin/env node
/**
 * `node22 aisdk-client.js <command> [args...]`: the independent @ai-sdk/mcp client (Node 22)
 * over stdio. It probes `server/discover` in place with a 1 s budget and falls back to
 * `initialize` on the same pipe. Prints one JSON line with what it saw.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

const [command, ...args] = process.argv.slice(2);
const client = await createMCPClient({
  transport: new Experimental_StdioMCPTransport({ command: command!, args, stderr: 'ignore' }),
  name: 'mcp-cassette-aisdk-test',
  version: '1.0.0',
});
try {
  const tools = await client.listTools();
  const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
  process.stdout.write(
    JSON.stringify({
      serverInfo: client.serverInfo,
      protocolVersion: (client.initializeResult as { protocolVersion?: string } | undefined)?.protocolVersion,
      tools: tools.tools.map((t) => t.name),
      add: (add as { structuredContent?: unknown }).structuredContent,
    }) + '\n',
  );
} finally {
  await client.close();
}
