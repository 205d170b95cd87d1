/**
 * Streamable HTTP round trip: sequential JSON-RPC POSTs (one in flight) against a minimal
 * upstream answering JSON or SSE, directly, through the node:http floor and through
 * `mcp-cassette record --upstream`, alternating blocks of requests between the variants.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { cli, node, root } from '../helpers/paths.js';

export type HttpVariant = 'direct' | 'http floor' | 'mcp-cassette record' | 'record --no-validate';
export const HTTP_VARIANTS: HttpVariant[] = ['direct', 'http floor', 'mcp-cassette record', 'record --no-validate'];

function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    child.stdout!.on('data', (c: Buffer) => {
      text += c.toString();
      if (text.includes('\n')) resolve(text.split('\n')[0]!.trim());
    });
  });
}

export async function httpRoundTrips(format: 'json' | 'sse', count: number, blocks: number): Promise<Record<HttpVariant, number[]>> {
  const upstream = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString()) as { id: number }).id;
      const body = JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'ok' }] } });
      if (format === 'json') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.end(`event: message\ndata: ${body}\n\n`);
      }
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const direct = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/mcp`;
  const dir = mkdtempSync(join(tmpdir(), 'mcpc-bench-'));
  const floor = spawn(node, [join(root, 'dist', 'test', 'bench', 'http-floor.js'), direct], { stdio: ['ignore', 'pipe', 'inherit'] });
  const proxy = spawn(node, [cli, 'record', '--log-level', 'silent', '--upstream', direct, '--cassette', join(dir, 'http.cassette.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const plain = spawn(node, [cli, 'record', '--log-level', 'silent', '--no-validate', '--upstream', direct, '--cassette', join(dir, 'plain.cassette.json')], { stdio: ['ignore', 'pipe', 'inherit'] });
  const urls: Record<HttpVariant, string> = { direct, 'http floor': await firstLine(floor), 'mcp-cassette record': await firstLine(proxy), 'record --no-validate': await firstLine(plain) };
  const agent = new Agent({ keepAliveTimeout: 30_000, connections: 1 });
  const out: Record<HttpVariant, number[]> = { direct: [], 'http floor': [], 'mcp-cassette record': [], 'record --no-validate': [] };
  let id = 0;
  const once = async (v: HttpVariant): Promise<void> => {
    const res = await request(urls[v], { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: `{"jsonrpc":"2.0","id":${++id},"method":"tools/call","params":{"name":"echo","arguments":{}}}` });
    await res.body.text();
  };
  try {
    for (const v of HTTP_VARIANTS) for (let w = 0; w < 300; w++) await once(v);
    for (let b = 0; b < blocks; b++) {
      for (const v of HTTP_VARIANTS) {
        for (let i = 0; i < count / blocks; i++) {
          const t0 = performance.now();
          await once(v);
          out[v].push((performance.now() - t0) * 1000);
        }
      }
    }
  } finally {
    await agent.close();
    floor.kill();
    proxy.kill('SIGINT');
    plain.kill('SIGINT');
    await Promise.all([new Promise((r) => proxy.on('close', r)), new Promise((r) => plain.on('close', r))]);
    upstream.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return out;
}
