/**
 * The JSON-RPC error replies the HTTP recording proxy sends itself (a refused request, an upstream
 * it cannot reach, its own failure): shared by the request intake and the upstream exchange.
 */
import type { ServerResponse } from 'node:http';

/** The id of a JSON-RPC request body, so the error answers it; null when there is none. */
export function requestId(body: Buffer): string | number | null {
  try {
    const id = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

export function sendJsonRpcError(res: ServerResponse, status: number, id: string | number | null, message: string, data?: unknown): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32000, message, ...(data ? { data } : {}) } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}
