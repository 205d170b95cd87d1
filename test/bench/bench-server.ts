#!/usr/bin/env node
/**
 * The minimal MCP server the benchmarks talk to: SDK-free, so the numbers measure the proxies and
 * not a framework. Its answers are valid MCP (live validation judges real, clean traffic).
 *
 *   node bench-server.js stdio              newline-delimited JSON-RPC on stdin/stdout; exits at EOF
 *   node bench-server.js http json|sse [sessions]
 *                                           Streamable HTTP on 127.0.0.1 (a free port; the first
 *                                           stdout line is the endpoint URL), answering every
 *                                           POSTed request as JSON or as an SSE stream; stateless,
 *                                           or with `sessions` an Mcp-Session-Id on each
 *                                           `initialize` answer (2025 sessions)
 *
 * A request carrying the 2026-07-28 envelope (`_meta` protocolVersion) is answered as that
 * revision asks (`resultType`, the server's info in `_meta`).
 *
 * Tools: `echo` ({n}) answers `n` as text; `big` ({mb}) answers a text of `mb` megabytes;
 * `stream` ({ms}) sends a progress notification at once and its answer `ms` later (over HTTP as
 * two events of one SSE stream: a proxy that buffers the stream delivers both together).
 * With BENCH_EXIT_LOG=<file>, the time it exits (epoch ms) is appended to that file.
 */
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

type Request = { jsonrpc: '2.0'; id?: string | number; method?: string; params?: Record<string, unknown> };

export const TOOLS = [
  { name: 'echo', description: 'Answers n', inputSchema: { type: 'object', properties: { n: { type: 'number' } } } },
  { name: 'big', description: 'Answers a large text', inputSchema: { type: 'object', properties: { mb: { type: 'number' } } } },
  {
    name: 'stream',
    description: 'Reports progress, then answers',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
  },
];

/** For `tools/call stream`: the progress notification sent before the answer (undefined otherwise). */
export function progressFor(msg: Request): { line: string; delayMs: number } | undefined {
  if (msg.method !== 'tools/call' || msg.params?.name !== 'stream' || msg.id === undefined) return undefined;
  const meta = msg.params._meta as { progressToken?: unknown } | undefined;
  const token = JSON.stringify(meta?.progressToken ?? msg.id);
  const args = (msg.params.arguments ?? {}) as { ms?: unknown };
  return {
    line: `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":${token},"progress":1,"total":2}}`,
    delayMs: Number(args.ms ?? 200),
  };
}

const MODERN_META = '"resultType":"complete","_meta":{"io.modelcontextprotocol/serverInfo":{"name":"bench-server","version":"1.0.0"}}';

const CACHE_HINTS = ',"ttlMs":0,"cacheScope":"public"';

/** The JSON-RPC answer to one request (undefined for a notification). */
export function answer(msg: Request): string | undefined {
  const text = legacyAnswer(msg);
  const meta = msg.params?._meta as Record<string, unknown> | undefined;
  if (text === undefined || meta?.['io.modelcontextprotocol/protocolVersion'] === undefined) return text;
  // 2026-07-28: every result says its type and the server.
  const at = text.indexOf('"result":{');
  if (at === -1) return text;
  const open = at + '"result":{'.length;
  // Discover and list results are cacheable: 2026-07-28 has them say for how long, and to whom.
  const cache = msg.method === 'server/discover' || msg.method === 'tools/list' ? CACHE_HINTS : '';
  return text.slice(0, open) + MODERN_META + cache + (text[open] === '}' ? '' : ',') + text.slice(open);
}

function legacyAnswer(msg: Request): string | undefined {
  if (msg.id === undefined) return undefined;
  const id = JSON.stringify(msg.id);
  switch (msg.method) {
    case 'initialize': {
      const version = typeof msg.params?.protocolVersion === 'string' ? msg.params.protocolVersion : '2025-11-25';
      return `{"jsonrpc":"2.0","id":${id},"result":{"protocolVersion":${JSON.stringify(version)},"capabilities":{"tools":{}},"serverInfo":{"name":"bench-server","version":"1.0.0"}}}`;
    }
    case 'ping':
      return `{"jsonrpc":"2.0","id":${id},"result":{}}`;
    case 'server/discover':
      return `{"jsonrpc":"2.0","id":${id},"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"bench-server","version":"1.0.0"}}}`;
    case 'tools/list':
      return `{"jsonrpc":"2.0","id":${id},"result":{"tools":${JSON.stringify(TOOLS)}}}`;
    case 'tools/call': {
      const args = (msg.params?.arguments ?? {}) as { n?: unknown; mb?: unknown };
      if (msg.params?.name === 'big') {
        const text = 'x'.repeat(Math.round(Number(args.mb ?? 50) * 1024 * 1024));
        return `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"${text}"}]}}`;
      }
      return `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":${JSON.stringify(String(args.n ?? 'ok'))}}]}}`;
    }
    default:
      return `{"jsonrpc":"2.0","id":${id},"error":{"code":-32601,"message":"Method not found"}}`;
  }
}

function stdio(): void {
  let pending: Buffer[] = [];
  process.stdin.on('data', (chunk: Buffer) => {
    let start = 0;
    let nl = chunk.indexOf(0x0a);
    const out: string[] = [];
    while (nl !== -1) {
      const line = pending.length > 0 ? Buffer.concat([...pending, chunk.subarray(start, nl)]) : chunk.subarray(start, nl);
      pending = [];
      try {
        const msg = JSON.parse(line.toString('utf8')) as Request;
        const progress = progressFor(msg);
        const a = answer(msg);
        if (progress) {
          out.push(progress.line + '\n');
          setTimeout(() => process.stdout.write(a + '\n'), progress.delayMs);
        } else if (a !== undefined) out.push(a + '\n');
      } catch {
        process.stderr.write('bench-server: a line that is not JSON\n');
      }
      start = nl + 1;
      nl = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
    // One write per chunk read, like a server answering each request as it parses it.
    if (out.length > 0) process.stdout.write(out.length === 1 ? out[0]! : out.join(''));
  });
  process.stdin.on('end', () => {
    process.stdin.destroy();
    process.exitCode = 0;
  });
}

/** Writes `body` as chunks of at most 1 MiB, waiting for the socket to drain between them. */
export async function writeChunked(res: import('node:http').ServerResponse, body: string): Promise<void> {
  const step = 1024 * 1024;
  for (let i = 0; i < body.length; i += step) {
    if (!res.write(body.slice(i, i + step))) await new Promise((r) => res.once('drain', r));
  }
}

function http(format: 'json' | 'sse', sessions: boolean): void {
  let session = 0;
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let body: string | undefined;
      let progress: ReturnType<typeof progressFor>;
      let method: string | undefined;
      try {
        const msg = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request;
        method = msg.method;
        progress = progressFor(msg);
        body = answer(msg);
      } catch {
        res
          .writeHead(400, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
        return;
      }
      if (body === undefined) {
        res.writeHead(202).end();
        return;
      }
      if (progress) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.write(`event: message\ndata: ${progress.line}\n\n`);
        setTimeout(() => res.end(`event: message\ndata: ${body}\n\n`), progress.delayMs);
        return;
      }
      if (sessions && method === 'initialize') res.setHeader('mcp-session-id', `bench-${process.pid}-${++session}`);
      if (format === 'json') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        if (body.length <= 1024 * 1024) res.end(body);
        else void writeChunked(res, body).then(() => res.end());
      } else {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const event = `event: message\ndata: ${body}\n\n`;
        if (event.length <= 1024 * 1024) res.end(event);
        else void writeChunked(res, event).then(() => res.end());
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`));
  process.on('SIGTERM', () => process.exit(0));
}

// The lifecycle bench compares when the proxy exits with when its server did (epoch ms).
if (process.env.BENCH_EXIT_LOG) {
  const log = process.env.BENCH_EXIT_LOG;
  process.on('exit', () => appendFileSync(log, `${performance.timeOrigin + performance.now()}\n`));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [mode = 'stdio', format = 'json', state] = process.argv.slice(2);
  if (mode === 'http') http(format === 'sse' ? 'sse' : 'json', state === 'sessions');
  else stdio();
}
