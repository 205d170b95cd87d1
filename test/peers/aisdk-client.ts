#!/usr/bin/env node
/**
 * `node22 aisdk-client.js [--sessions N] <command> [args...]`: the independent @ai-sdk/mcp client
 * (Node 22) over stdio. It probes `server/discover` in place with a 1 s budget and falls back to
 * `initialize` on the same pipe. Prints one JSON line with what it saw.
 *
 * With `--sessions N` it is a host: one process starting N servers at once, as Claude Desktop,
 * Cursor and VS Code start every configured server at startup. It prints one JSON array, one entry
 * per server, in start order.
 */
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

let argv = process.argv.slice(2);
let sessions: number | undefined;
if (argv[0] === '--sessions') {
  sessions = Number(argv[1]);
  argv = argv.slice(2);
}
const [command, ...args] = argv;

/** One session; `{i}` in an argument becomes the session's index (each its own cassette). */
async function session(i: number): Promise<unknown> {
  const client = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({
      command: command!,
      args: args.map((a) => a.replaceAll('{i}', String(i))),
      stderr: 'ignore',
    }),
    name: 'mcp-cassette-aisdk-test',
    version: '1.0.0',
  });
  try {
    const tools = await client.listTools();
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    return {
      serverInfo: client.serverInfo,
      protocolVersion: (client.initializeResult as { protocolVersion?: string } | undefined)?.protocolVersion,
      tools: tools.tools.map((t) => t.name),
      add: (add as { structuredContent?: unknown }).structuredContent ?? (add as { content?: unknown }).content,
    };
  } finally {
    await client.close();
  }
}

const out = sessions === undefined ? await session(0) : await Promise.all(Array.from({ length: sessions }, (_, i) => session(i)));
process.stdout.write(JSON.stringify(out) + '\n');
