#!/usr/bin/env node
/**
 * The built-in example MCP server (official v2 SDK): what `npm start` records, and the server
 * most tests put behind the proxy.
 *   stdio                 both eras: `server/discover` (2026-07-28) and `initialize` (2025)
 *   stdio-legacy          a hand-wired 2025-only server; `server/discover` gets -32601
 *   http <port> [reject]  Streamable HTTP on 127.0.0.1 (createMcpHandler: 2026-07-28, and 2025
 *                         served statelessly unless `reject`); prints its URL. Requests whose
 *                         Host or Origin is not loopback get 403 (DNS rebinding protection).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createExampleServer } from './example-tools.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function loopbackOnly(value: string | undefined, asUrl: boolean): boolean {
  if (value === undefined) return true;
  try {
    return LOOPBACK.has(new URL(asUrl ? value : `http://${value}`).hostname);
  } catch {
    return false;
  }
}

const [mode = 'stdio', port = '0', legacy] = process.argv.slice(2);
if (mode === 'stdio') {
  serveStdio(() => createExampleServer());
} else if (mode === 'stdio-legacy') {
  await createExampleServer().connect(new StdioServerTransport());
} else if (mode === 'http') {
  const handler = toNodeHandler(createMcpHandler(() => createExampleServer(), { legacy: legacy === 'reject' ? 'reject' : 'stateless' }));
  const server = createServer((req, res) => {
    if (!loopbackOnly(req.headers.host, false) || !loopbackOnly(req.headers.origin, true)) {
      res.writeHead(403, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Forbidden: Host or Origin is not loopback' } }));
      return;
    }
    void handler(req, res);
  });
  server.listen(Number(port), '127.0.0.1', () => {
    process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`);
  });
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(0));
} else {
  process.stderr.write(`example-server: unknown mode ${mode}; use stdio, stdio-legacy or http <port>\n`);
  process.exit(2);
}
