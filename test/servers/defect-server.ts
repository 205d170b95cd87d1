#!/usr/bin/env node
/**
 * A hand-rolled MCP server for the transport-parity test, seeded with at most one defect that
 * only a rule needing more than one message sees (DEFECTS below). Like probe-server.ts it has no
 * SDK in the way: the official v2 server SDK refuses to emit most of these (it checks
 * structuredContent against the outputSchema, answers an unknown tool and a throwing tool its own
 * way, and serves every request with its own envelope checks).
 *   node defect-server.js stdio [--defect name]
 *   node defect-server.js http [--sse]   (127.0.0.1, port 0; prints its URL, path /mcp)
 * Over HTTP one process serves every defect, each to its own user: `Authorization: Bearer
 * <defect>` picks it (`Bearer clean` for none; anything else is a 401). A request with the
 * 2026-07-28 `_meta` envelope is a stateless exchange, answered as JSON, or as SSE with --sse;
 * `initialize` opens a 2025-11-25 session (Mcp-Session-Id), whose requests are answered as JSON.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { readJsonBody, serveStdioLines } from './raw-io.js';

/** Each defect breaks one rule (named in the comment). */
export const DEFECTS = {
  'output-schema': 'TOOLS-OUTPUT-CONFORM', // `lookup` returns structuredContent its outputSchema forbids
  'unknown-tool-iserror': 'TOOLS-ERR-PROTOCOL', // an unknown tool gets an isError result
  'failure-as-error': 'TOOLS-ERR-EXECUTION', // `fail`, a listed tool, fails as JSON-RPC error -32603
  'list-order': 'TOOLS-LIST-ORDER', // every second tools/list names the same tools in reverse order
  'prompts-list-error': 'CAP-DECLARED-ANSWERS', // prompts are declared, prompts/list answers -32603
  'accept-missing-meta': 'VER-META-MISSING-32602', // a request without the _meta envelope is served
} as const;
export type Defect = keyof typeof DEFECTS;

type Json = Record<string, unknown>;
const MODERN = '2026-07-28';
const LEGACY = '2025-11-25';
const META = 'io.modelcontextprotocol/';
const INFO = { name: 'defect-server', version: '1.0.0' };
const CAPABILITIES = { tools: {}, prompts: {}, resources: {} };

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One server as a client meets it: its defect and how many tools/list it has answered. */
interface Peer {
  defect: Defect | undefined;
  lists: number;
}

const TOOLS: Json[] = [
  {
    name: 'lookup',
    description: 'Counts the things of a kind',
    inputSchema: { type: 'object', properties: { what: { type: 'string' } }, required: ['what'] },
    outputSchema: { type: 'object', properties: { count: { type: 'number' } }, required: ['count'] },
  },
  {
    name: 'fail',
    description: 'Always fails inside the tool',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'echo',
    description: 'Echoes a text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  },
];

interface Answer {
  status: number;
  body?: Json;
}

/** How a result is dressed: the 2026-07-28 envelope (resultType, serverInfo) or none (2025). */
function answers(modern: boolean) {
  const ok = (id: unknown, result: Json): Answer => ({
    status: 200,
    body: { jsonrpc: '2.0', id, result: modern ? { resultType: 'complete', ...result, _meta: { [`${META}serverInfo`]: INFO } } : result },
  });
  const err = (id: unknown, code: number, message: string, status = 200): Answer => ({
    status,
    body: { jsonrpc: '2.0', id: id ?? null, error: { code, message } },
  });
  const list = (result: Json): Json => (modern ? { ...result, ttlMs: 0, cacheScope: 'public' } : result);
  return { ok, err, list };
}

function handle(msg: unknown, peer: Peer, modern: boolean): Answer | undefined {
  const { ok, err, list } = answers(modern);
  if (!isObj(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') return err(null, -32600, 'Invalid Request', 400);
  if (!('id' in msg)) return undefined; // a notification
  const id = msg.id;
  const params = isObj(msg.params) ? msg.params : {};
  if (msg.method === 'initialize') return ok(id, { protocolVersion: LEGACY, capabilities: CAPABILITIES, serverInfo: INFO });
  if (modern) {
    const meta = isObj(params._meta) ? params._meta : {};
    const complete = typeof meta[`${META}protocolVersion`] === 'string' && isObj(meta[`${META}clientCapabilities`]);
    if (!complete && peer.defect !== 'accept-missing-meta')
      return err(id, -32602, 'Invalid params: _meta lacks the protocol envelope', 400);
  }
  switch (msg.method) {
    case 'server/discover':
      return ok(id, { supportedVersions: [MODERN], capabilities: CAPABILITIES, ttlMs: 0, cacheScope: 'public' });
    case 'tools/list': {
      const reversed = peer.defect === 'list-order' && peer.lists++ % 2 === 1;
      return ok(id, list({ tools: reversed ? [...TOOLS].reverse() : TOOLS }));
    }
    case 'prompts/list':
      if (peer.defect === 'prompts-list-error')
        return err(id, -32603, 'Internal error: the prompt store is unavailable', modern ? 500 : 200);
      return ok(id, list({ prompts: [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] }] }));
    case 'prompts/get':
      return ok(id, {
        description: 'Greets someone',
        messages: [
          {
            role: 'user',
            content: { type: 'text', text: `Say hello to ${String(isObj(params.arguments) ? params.arguments.name : 'nobody')}` },
          },
        ],
      });
    case 'resources/list':
      return ok(id, list({ resources: [{ uri: 'test://readme', name: 'readme', mimeType: 'text/plain' }] }));
    case 'tools/call':
      return callTool(id, params, peer, modern);
    default:
      return err(id, -32601, 'Method not found', modern ? 404 : 200);
  }
}

function callTool(id: unknown, params: Json, peer: Peer, modern: boolean): Answer {
  const { ok, err } = answers(modern);
  const args = isObj(params.arguments) ? params.arguments : {};
  const text = (t: string, isError = false): Json => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
  switch (params.name) {
    case 'lookup': {
      const structured = peer.defect === 'output-schema' ? { count: 'three' } : { count: 3 };
      return ok(id, { ...text(JSON.stringify(structured)), structuredContent: structured });
    }
    case 'fail':
      return peer.defect === 'failure-as-error'
        ? err(id, -32603, 'Internal error: the backend is down', modern ? 500 : 200)
        : ok(id, text('the backend is down', true));
    case 'echo':
      return ok(id, text(String(args.text)));
    default:
      return peer.defect === 'unknown-tool-iserror'
        ? ok(id, text(`Unknown tool ${String(params.name)}`, true))
        : err(id, -32602, `Unknown tool: ${String(params.name)}`, modern ? 400 : 200);
  }
}

function defectOf(name: string | undefined): Defect | undefined {
  if (name === undefined || name === 'clean') return undefined;
  if (!(name in DEFECTS)) throw new Error(`unknown defect ${name}; one of ${Object.keys(DEFECTS).join(', ')}, clean`);
  return name as Defect;
}

function serveStdio(defect: Defect | undefined): void {
  const peer: Peer = { defect, lists: 0 };
  let modern = true;
  serveStdioLines((msg) => {
    if (isObj(msg) && msg.method === 'initialize') modern = false;
    return handle(msg, peer, modern)?.body;
  });
  process.stdin.on('end', () => process.exit(0));
}

function serveHttp(sse: boolean): void {
  const peers = new Map<string, Peer>();
  /** 2025 sessions by Mcp-Session-Id; stateless peers by user. */
  const sessions = new Map<string, Peer>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const send = (a: Answer, extra: Record<string, string> = {}, stream = false): void => {
      if (stream && a.body) {
        res.writeHead(a.status, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-accel-buffering': 'no', ...extra });
        res.end(`event: message\ndata: ${JSON.stringify(a.body)}\n\n`);
        return;
      }
      res.writeHead(a.status, { ...(a.body ? { 'content-type': 'application/json' } : {}), ...extra });
      res.end(a.body ? JSON.stringify(a.body) : undefined);
    };
    if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') return send({ status: 404 });
    const user = /^Bearer ([\w-]+)$/.exec(req.headers.authorization ?? '')?.[1];
    let defect: Defect | undefined;
    try {
      if (user === undefined) throw new Error('no user');
      defect = defectOf(user);
    } catch {
      return send(
        { status: 401, body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Unauthorized' } } },
        { 'www-authenticate': 'Bearer' },
      );
    }
    const sid = req.headers['mcp-session-id'];
    if (req.method === 'DELETE' && typeof sid === 'string' && sessions.delete(sid)) return send({ status: 200 });
    if (req.method !== 'POST')
      return send(
        { status: 405, body: { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'Method not allowed' } } },
        { allow: 'POST' },
      );
    readJsonBody(
      req,
      (msg) => {
        if (typeof sid === 'string') {
          const peer = sessions.get(sid);
          if (!peer)
            return send({ status: 404, body: { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } } });
          return send(handle(msg, peer, false) ?? { status: 202 });
        }
        if (isObj(msg) && msg.method === 'initialize') {
          const id = randomUUID();
          const peer: Peer = { defect, lists: 0 };
          sessions.set(id, peer);
          return send(handle(msg, peer, false)!, { 'mcp-session-id': id });
        }
        let peer = peers.get(user!);
        if (!peer) peers.set(user!, (peer = { defect, lists: 0 }));
        const a = handle(msg, peer, true);
        send(a ?? { status: 202 }, {}, sse);
      },
      () => send({ status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } } }),
    );
  });
  server.listen(0, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`));
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(0));
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const argv = process.argv.slice(2);
  const opt = (name: string): string | undefined => {
    const i = argv.indexOf(name);
    return i === -1 ? undefined : argv[i + 1];
  };
  const mode = argv[0] ?? 'stdio';
  if (mode === 'stdio') serveStdio(defectOf(opt('--defect') ?? process.env.DEFECT));
  else if (mode === 'http') serveHttp(argv.includes('--sse'));
  else {
    process.stderr.write(`defect-server: unknown mode ${mode}; use stdio or http\n`);
    process.exit(2);
  }
}
