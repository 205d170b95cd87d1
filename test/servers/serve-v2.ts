import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { createServer as createHttpServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, type McpServer } from '@modelcontextprotocol/server';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

/** Serves a v2 SDK server (both eras): over Streamable HTTP (stateless, 127.0.0.1, a free port,
 * its URL on the first stdout line) when `--http` is in argv, else over stdio. */
export function serveV2(
  createServer: () => McpServer,
  argv: readonly string[] = process.argv,
  onRequest?: (req: IncomingMessage) => void,
): void {
  if (argv.includes('--http')) {
    const handler = toNodeHandler(createMcpHandler(() => createServer(), { legacy: 'stateless' }));
    const http = createHttpServer((req, res) => {
      onRequest?.(req);
      void handler(req, res);
    });
    http.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp\n`));
    for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(0));
  } else {
    serveStdio(() => createServer(), { legacy: 'serve' });
  }
}
