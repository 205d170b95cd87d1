/**
 * The HTTP side of `serve --listen` that is not MCP: reading a bounded request body, error
 * answers, SSE events, and which client headers go on to a real server behind a bridge. Shared by
 * the listener (http.ts) and the POST handling (http-post.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { messageText } from '../../lib/json-depth.js';
import type { Json } from './interactions.js';

export const JSON_TYPE = { 'content-type': 'application/json' };

export function jsonError(res: ServerResponse, status: number, message: string, code = -32000, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...JSON_TYPE, ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
}

export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > limit) {
        resolve(undefined);
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** What a real Streamable HTTP server behind a bridge may need from the client's request. */
const FORWARDED = /^(authorization|mcp-method|mcp-name|mcp-param-.*|mcp-protocol-version|x-api-key)$/;

export function forwardedHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string' && FORWARDED.test(name)) out[name] = value;
  }
  return out;
}

export function sseEvent(frame: Json): string {
  return `event: message\ndata: ${messageText(frame)}\n\n`;
}
