#!/usr/bin/env node
/**
 * A hand-rolled MCP server for the transport-parity and revision-parity tests and the
 * validation-recall bench, seeded with defects (DEFECTS below; each changes one answer, so
 * several combine), most of which only a rule needing more than one message sees. Like
 * probe-server.ts it has no SDK in the way: the official v2 server SDK refuses to emit most of
 * these (it checks structuredContent against the outputSchema, answers an unknown tool and a
 * throwing tool its own way, and serves every request with its own envelope checks).
 *   node defect-server.js stdio [--defect name[,name...]]
 *   node defect-server.js http [--sse]   (127.0.0.1, port 0; prints its URL, path /mcp)
 * Over HTTP one process serves every defect, each to its own user: `Authorization: Bearer
 * <defect>[+<defect>...]` picks them (`Bearer clean` for none; anything else is a 401). A
 * request with the 2026-07-28 `_meta` envelope is a stateless exchange, answered as JSON, or as
 * SSE with --sse; `initialize` opens a session (Mcp-Session-Id), whose requests are answered as
 * JSON. On both transports `initialize` gets the revision it offers when that is
 * 2024-11-05..2025-11-25 (else 2025-11-25), and the answers follow it (the code for a missing
 * resource).
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { readJsonBody, serveStdioLines } from './raw-io.js';

/** The revisions a client may speak to this server, newest first. */
export const REVISIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;
export type Revision = (typeof REVISIONS)[number];

/**
 * Each defect breaks one rule (`rule`), on the revisions that have it (`since` and later);
 * `legacyRule`: the rule it breaks on 2025-11-25 and earlier instead. On other revisions the same
 * answers are no violation (an outputSchema means nothing before 2025-06-18) or cannot happen
 * (2025 has no `_meta` envelope to leave out).
 */
export const DEFECTS = {
  // `lookup` returns structuredContent its outputSchema forbids
  'output-schema': { rule: 'TOOLS-OUTPUT-CONFORM', since: '2025-06-18' },
  // an unknown tool gets an isError result
  'unknown-tool-iserror': { rule: 'TOOLS-ERR-PROTOCOL' },
  // `fail`, a listed tool, fails as JSON-RPC error -32603
  'failure-as-error': { rule: 'TOOLS-ERR-EXECUTION' },
  // every second tools/list names the same tools in reverse order (a 2026-07-28 SHOULD)
  'list-order': { rule: 'TOOLS-LIST-ORDER', since: '2026-07-28' },
  // prompts are declared, prompts/list answers -32603
  'prompts-list-error': { rule: 'CAP-DECLARED-ANSWERS' },
  // a request without the _meta envelope is served
  'accept-missing-meta': { rule: 'VER-META-MISSING-32602', since: '2026-07-28' },
  // prompts/get without the argument prompts/list marks required is served, not refused -32602
  'prompt-args-served': { rule: 'PROMPTS-ERR-ARGS' },
  // a missing resource gets the other era's code: -32002 on 2026-07-28, -32602 before
  'notfound-code': { rule: 'RES-NOTFOUND-NOT-32002', legacyRule: 'RES-NOTFOUND-LEGACY-32002' },
  // the answer to `echo` carries an id no request has (the request's id + 1000)
  'id-mismatch': { rule: 'ENV-RES-ID-MATCH' },
} as const satisfies Record<string, { rule: string; legacyRule?: string; since?: Revision }>;
export type Defect = keyof typeof DEFECTS;

/** The rule a defect breaks in a session of `revision`, or undefined where it breaks none. */
export function ruleOf(defect: Defect, revision: Revision): string | undefined {
  const d: { rule: string; legacyRule?: string; since?: Revision } = DEFECTS[defect];
  if (d.since && revision < d.since) return undefined;
  return revision !== MODERN && d.legacyRule ? d.legacyRule : d.rule;
}

type Json = Record<string, unknown>;
const MODERN: Revision = '2026-07-28';
const META = 'io.modelcontextprotocol/';
const INFO = { name: 'defect-server', version: '1.0.0' };
const CAPABILITIES = { tools: {}, prompts: {}, resources: {} };

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One server as a client meets it: its defects, the revision it speaks (2026-07-28 until an
 * `initialize` says otherwise) and how many tools/list it has answered. */
interface Peer {
  defects: ReadonlySet<Defect>;
  revision: Revision;
  lists: number;
}

const newPeer = (defects: ReadonlySet<Defect>): Peer => ({ defects, revision: MODERN, lists: 0 });

/** What `initialize` settles on: the offered revision when it is one of 2025 or earlier. */
function negotiate(offered: unknown): Revision {
  const legacy = REVISIONS.find((r) => r !== MODERN && r === offered);
  return legacy ?? '2025-11-25';
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

/** How a result is dressed: the 2026-07-28 envelope (resultType, serverInfo) or none (2025 and
 * earlier); errors on 2026-07-28 HTTP carry the status of their code (`modernStatus`). */
function answers(modern: boolean) {
  const ok = (id: unknown, result: Json): Answer => ({
    status: 200,
    body: { jsonrpc: '2.0', id, result: modern ? { resultType: 'complete', ...result, _meta: { [`${META}serverInfo`]: INFO } } : result },
  });
  const err = (id: unknown, code: number, message: string, modernStatus = 200): Answer => ({
    status: modern ? modernStatus : 200,
    body: { jsonrpc: '2.0', id: id ?? null, error: { code, message } },
  });
  const list = (result: Json): Json => (modern ? { ...result, ttlMs: 0, cacheScope: 'public' } : result);
  return { ok, err, list };
}

function handle(msg: unknown, peer: Peer): Answer | undefined {
  if (!isObj(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string')
    return { status: 400, body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } } };
  if (!('id' in msg)) return undefined; // a notification
  const id = msg.id;
  const params = isObj(msg.params) ? msg.params : {};
  if (msg.method === 'initialize') peer.revision = negotiate(params.protocolVersion);
  const modern = peer.revision === MODERN;
  const { ok, err, list } = answers(modern);
  if (msg.method === 'initialize') return ok(id, { protocolVersion: peer.revision, capabilities: CAPABILITIES, serverInfo: INFO });
  if (modern) {
    const meta = isObj(params._meta) ? params._meta : {};
    const complete = typeof meta[`${META}protocolVersion`] === 'string' && isObj(meta[`${META}clientCapabilities`]);
    if (!complete && !peer.defects.has('accept-missing-meta'))
      return err(id, -32602, 'Invalid params: _meta lacks the protocol envelope', 400);
  }
  switch (msg.method) {
    case 'server/discover':
      return ok(id, { supportedVersions: [MODERN], capabilities: CAPABILITIES, ttlMs: 0, cacheScope: 'public' });
    case 'tools/list': {
      const reversed = peer.defects.has('list-order') && peer.lists++ % 2 === 1;
      return ok(id, list({ tools: reversed ? [...TOOLS].reverse() : TOOLS }));
    }
    case 'prompts/list':
      if (peer.defects.has('prompts-list-error')) return err(id, -32603, 'Internal error: the prompt store is unavailable', 500);
      return ok(id, list({ prompts: [{ name: 'greet', description: 'Greets someone', arguments: [{ name: 'name', required: true }] }] }));
    case 'prompts/get':
      return getPrompt(id, params, peer);
    case 'resources/list':
      return ok(id, list({ resources: [{ uri: 'test://readme', name: 'readme', mimeType: 'text/plain' }] }));
    case 'resources/read':
      return readResource(id, params, peer);
    case 'tools/call':
      return callTool(id, params, peer);
    default:
      return err(id, -32601, 'Method not found', 404);
  }
}

function getPrompt(id: unknown, params: Json, peer: Peer): Answer {
  const { ok, err } = answers(peer.revision === MODERN);
  const args = isObj(params.arguments) ? params.arguments : {};
  if (typeof args.name !== 'string' && !peer.defects.has('prompt-args-served'))
    return err(id, -32602, 'Invalid params: the argument "name" is required', 400);
  const text = `Say hello to ${typeof args.name === 'string' ? args.name : 'nobody'}`;
  return ok(id, { description: 'Greets someone', messages: [{ role: 'user', content: { type: 'text', text } }] });
}

/** A missing resource: -32602 on 2026-07-28, -32002 before (server/resources §Error Handling);
 * the `notfound-code` defect gives each era the other's code. */
function readResource(id: unknown, params: Json, peer: Peer): Answer {
  const modern = peer.revision === MODERN;
  const { ok, err } = answers(modern);
  if (params.uri === 'test://readme') return ok(id, { contents: [{ uri: 'test://readme', mimeType: 'text/plain', text: 'read me' }] });
  const legacyCode = modern === peer.defects.has('notfound-code');
  return legacyCode
    ? err(id, -32002, `Resource not found: ${String(params.uri)}`, 404)
    : err(id, -32602, `Invalid params: resource not found: ${String(params.uri)}`, 400);
}

function callTool(id: unknown, params: Json, peer: Peer): Answer {
  const { ok, err } = answers(peer.revision === MODERN);
  const args = isObj(params.arguments) ? params.arguments : {};
  const text = (t: string, isError = false): Json => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });
  switch (params.name) {
    case 'lookup': {
      const structured = peer.defects.has('output-schema') ? { count: 'three' } : { count: 3 };
      return ok(id, { ...text(JSON.stringify(structured)), structuredContent: structured });
    }
    case 'fail':
      return peer.defects.has('failure-as-error')
        ? err(id, -32603, 'Internal error: the backend is down', 500)
        : ok(id, text('the backend is down', true));
    case 'echo':
      return ok(peer.defects.has('id-mismatch') && typeof id === 'number' ? id + 1000 : id, text(String(args.text)));
    default:
      return peer.defects.has('unknown-tool-iserror')
        ? ok(id, text(`Unknown tool ${String(params.name)}`, true))
        : err(id, -32602, `Unknown tool: ${String(params.name)}`, 400);
  }
}

/** `clean`, a defect, or several joined by `,` or `+` (each changes a step of its own). */
function defectsOf(names: string | undefined): ReadonlySet<Defect> {
  if (names === undefined || names === 'clean') return new Set();
  const defects = names.split(/[,+]/);
  for (const name of defects)
    if (!(name in DEFECTS)) throw new Error(`unknown defect ${name}; one of ${Object.keys(DEFECTS).join(', ')}, clean`);
  return new Set(defects as Defect[]);
}

function serveStdio(defects: ReadonlySet<Defect>): void {
  const peer = newPeer(defects);
  serveStdioLines((msg) => handle(msg, peer)?.body);
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
    const user = /^Bearer ([\w+-]+)$/.exec(req.headers.authorization ?? '')?.[1];
    let defects: ReadonlySet<Defect>;
    try {
      if (user === undefined) throw new Error('no user');
      defects = defectsOf(user);
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
          return send(handle(msg, peer) ?? { status: 202 });
        }
        if (isObj(msg) && msg.method === 'initialize') {
          const id = randomUUID();
          const peer = newPeer(defects);
          sessions.set(id, peer);
          return send(handle(msg, peer)!, { 'mcp-session-id': id });
        }
        let peer = peers.get(user!);
        if (!peer) peers.set(user!, (peer = newPeer(defects)));
        const a = handle(msg, peer);
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
  if (mode === 'stdio') serveStdio(defectsOf(opt('--defect') ?? process.env.DEFECT));
  else if (mode === 'http') serveHttp(argv.includes('--sse'));
  else {
    process.stderr.write(`defect-server: unknown mode ${mode}; use stdio or http\n`);
    process.exit(2);
  }
}
