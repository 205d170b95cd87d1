#!/usr/bin/env node
/**
 * `node22 aisdk-client.mjs [--sessions N] [--await-discover] <command> [args...]`: the independent
 * @ai-sdk/mcp client (Node 22) over stdio. It probes `server/discover` in place with a 1 s budget
 * and falls back to `initialize` on the same pipe. Prints one JSON line with what it saw.
 *
 * The 1 s counts from the spawn, so it covers the server's start: on a busy machine a server that
 * speaks 2026-07-28 may miss it and be met with 2025-11-25. `--await-discover` waits for the
 * probe's answer instead (the transport's `waitsForProtocolVersionDiscovery`, as over HTTP): a
 * legacy server still says -32601 and gets `initialize`, and the revision no longer depends on load.
 *
 * With `--sessions N` it is a host: one process starting N servers at once, as Claude Desktop,
 * Cursor and VS Code start every configured server at startup. It prints one JSON array, one entry
 * per server, in start order.
 */
// Plain JavaScript beside its own node_modules: it runs on Node 22 only, from this folder's
// install (package.json here), never compiled with the project.
import { createMCPClient } from '@ai-sdk/mcp';
import { Experimental_StdioMCPTransport } from '@ai-sdk/mcp/mcp-stdio';

let argv = process.argv.slice(2);
/** @type {number | undefined} */
let sessions;
let awaitDiscover = false;
for (;;) {
  if (argv[0] === '--sessions') {
    sessions = Number(argv[1]);
    argv = argv.slice(2);
  } else if (argv[0] === '--await-discover') {
    awaitDiscover = true;
    argv = argv.slice(1);
  } else break;
}
const [command, ...args] = argv;

/** One session; `{i}` in an argument becomes the session's index (each its own cassette). */
async function session(i) {
  const transport = new Experimental_StdioMCPTransport({
    command,
    args: args.map((a) => a.replaceAll('{i}', String(i))),
    stderr: 'ignore',
  });
  const client = await createMCPClient({
    transport: awaitDiscover ? Object.assign(transport, { waitsForProtocolVersionDiscovery: true }) : transport,
    name: 'mcp-cassette-aisdk-test',
    version: '1.0.0',
  });
  try {
    const tools = await client.listTools();
    const add = await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } });
    return {
      serverInfo: client.serverInfo,
      protocolVersion: client.initializeResult?.protocolVersion,
      tools: tools.tools.map((t) => t.name),
      add: add.structuredContent ?? add.content,
    };
  } finally {
    await client.close();
  }
}

const out = sessions === undefined ? await session(0) : await Promise.all(Array.from({ length: sessions }, (_, i) => session(i)));
process.stdout.write(JSON.stringify(out) + '\n');
