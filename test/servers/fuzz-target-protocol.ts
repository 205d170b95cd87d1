/**
 * The JSON-RPC side of test/servers/fuzz-target.ts: one message in, the answer out, for both
 * protocol eras, with no SDK in between (an SDK would validate the arguments before the seeded
 * handlers of fuzz-target-tools.ts ever saw them). Everything here is meant to be right, so that
 * a fuzzer's protocol mutations (ids, `_meta`, versions, envelopes, unknown methods, a call before
 * the handshake) find nothing and the findings are the seeded ones:
 * - 2026-07-28: no handshake; each request carries `_meta` `io.modelcontextprotocol/protocolVersion`
 *   and `clientCapabilities` (-32602 without them, -32022 for another version), `server/discover`,
 *   results with `resultType` and `_meta` serverInfo, lists with `ttlMs` and `cacheScope`; over
 *   HTTP the standard headers are checked (-32020) and errors carry their status.
 * - 2025-11-25 / 2025-06-18: `initialize` settles the revision (another offer gets 2025-11-25),
 *   then plain results, for the process (stdio) or the HTTP session.
 * A dual-era server serves a request with the modern `_meta` statelessly even after `initialize`
 * (VER-DUAL-ERA); a request with neither the modern `_meta` nor a handshake before it is refused
 * as a 2026-07-28 request without its `_meta` (-32602).
 */
import { callTool, isTool, listTools, type Fixes, type ToolIo } from './fuzz-target-tools.js';

type Json = Record<string, unknown>;

export const MODERN = '2026-07-28';
/** The 2025-era revisions `initialize` accepts, newest first (the first is the counter-offer). */
export const LEGACY = ['2025-11-25', '2025-06-18'] as const;
const META = 'io.modelcontextprotocol/';
const PV = `${META}protocolVersion`;
const CAPS = `${META}clientCapabilities`;
const INFO = { name: 'fuzz-target', version: '1.0.0' };
const CAPABILITIES = { tools: {} };

/** One client as the server knows it: the 2025 revision `initialize` settled, if any (on stdio
 * for the process, over HTTP for the session). */
export interface Peer {
  legacy?: string;
}

/** An answer: its HTTP status (stdio ignores it) and body; `hang`: none, ever; no body and no
 * hang: a notification or a response, accepted (HTTP 202). */
export interface Answer {
  status: number;
  body?: Json;
  hang?: true;
}

/** Where a message came from: its peer, what was fixed, the tools' I/O, and over HTTP the
 * request's headers (lower-case names). */
export interface Context {
  peer: Peer;
  fixes: Fixes;
  io: ToolIo;
  headers?: Record<string, string | undefined>;
}

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === 'string' || (typeof v === 'number' && Number.isInteger(v));
const short = (v: unknown): string => {
  const s = typeof v === 'string' ? v : typeof v;
  return JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);
};

/** The HTTP status of a 2026-07-28 error (basic/transports/streamable-http.mdx; HTTP-400-MODERN). */
function modernStatus(code: number): number {
  if (code === -32601) return 404;
  if (code === -32603) return 500;
  return 400;
}

export const error = (id: unknown, code: number, message: string, status: number, data?: unknown): Answer => ({
  status,
  body: { jsonrpc: '2.0', id: isId(id) ? id : null, error: { code, message, ...(data !== undefined ? { data } : {}) } },
});

/** A message that is no JSON-RPC request at all: -32600, HTTP 400, in either era. */
const invalidRequest = (id: unknown, why: string): Answer => error(id, -32600, `Invalid Request: ${why}`, 400);

/** How an era dresses its answers. */
interface Era {
  modern: boolean;
  ok(id: unknown, result: Json): Answer;
  err(id: unknown, code: number, message: string, data?: unknown): Answer;
  list(result: Json): Json;
}

const MODERN_ERA: Era = {
  modern: true,
  ok: (id, result) => ({
    status: 200,
    body: { jsonrpc: '2.0', id, result: { resultType: 'complete', ...result, _meta: { [`${META}serverInfo`]: INFO } } },
  }),
  err: (id, code, message, data) => error(id, code, message, modernStatus(code), data),
  list: (result) => ({ ...result, ttlMs: 0, cacheScope: 'public' }),
};

const LEGACY_ERA: Era = {
  modern: false,
  ok: (id, result) => ({ status: 200, body: { jsonrpc: '2.0', id, result } }),
  err: (id, code, message, data) => error(id, code, message, 200, data),
  list: (result) => result,
};

/** Whether a request carries the 2026-07-28 `_meta` (either of its fields): served statelessly,
 * whatever session or process it arrives in. */
export function carriesModernMeta(msg: unknown): boolean {
  const meta = isObj(msg) && isObj(msg.params) && isObj(msg.params._meta) ? msg.params._meta : undefined;
  return meta !== undefined && (PV in meta || CAPS in meta);
}

/** Answers one parsed message (a value JSON.parse gave), or says it needs none. */
export function handle(msg: unknown, ctx: Context): Answer | undefined {
  if (Array.isArray(msg)) return invalidRequest(null, 'a JSON array (batch) is not an MCP message');
  if (!isObj(msg)) return invalidRequest(null, 'not a JSON object');
  const id = msg.id;
  if (msg.jsonrpc !== '2.0') return invalidRequest(id, 'jsonrpc must be "2.0"');
  if (typeof msg.method !== 'string') {
    // A response (the server never asks, so it answers nothing of ours): accepted, ignored.
    if ('id' in msg && ('result' in msg || 'error' in msg)) return undefined;
    return invalidRequest(id, 'method must be a string');
  }
  // A notification (initialized, cancelled, or one it does not know): nothing to answer. A hung
  // call stays hung when cancelled, which the spec allows.
  if (!('id' in msg)) return undefined;
  if (!isId(id)) return invalidRequest(null, 'id must be a string or an integer');
  if ('params' in msg && !isObj(msg.params)) return error(id, -32602, 'Invalid params: params must be an object', 400);
  const params = isObj(msg.params) ? msg.params : {};
  if (msg.method === 'initialize') return initialize(id, params, ctx);
  const modern = ctx.peer.legacy === undefined || carriesModernMeta(msg);
  const meta = isObj(params._meta) ? params._meta : {};
  return modern ? modernRequest(id, msg.method, params, meta, ctx) : legacyRequest(id, msg.method, params, ctx);
}

/** The 2025 handshake: the offered revision when it is one of LEGACY, else the newest of them. */
function initialize(id: string | number, params: Json, ctx: Context): Answer {
  if (ctx.peer.legacy !== undefined) return invalidRequest(id, 'initialize was already sent');
  if (typeof params.protocolVersion !== 'string') return error(id, -32602, 'Invalid params: protocolVersion must be a string', 400);
  if (!isObj(params.capabilities)) return error(id, -32602, 'Invalid params: capabilities must be an object', 400);
  const offered = params.protocolVersion;
  const version = (LEGACY as readonly string[]).includes(offered) ? offered : LEGACY[0];
  ctx.peer.legacy = version;
  return LEGACY_ERA.ok(id, { protocolVersion: version, capabilities: CAPABILITIES, serverInfo: INFO });
}

function legacyRequest(id: string | number, method: string, params: Json, ctx: Context): Answer {
  const pv = ctx.headers?.['mcp-protocol-version'];
  if (pv !== undefined && pv !== ctx.peer.legacy)
    return invalidRequest(id, `MCP-Protocol-Version ${short(pv)} is not the session's ${String(ctx.peer.legacy)}`);
  switch (method) {
    case 'ping':
      return LEGACY_ERA.ok(id, {});
    case 'tools/list':
      return LEGACY_ERA.ok(id, { tools: listTools() });
    case 'tools/call':
      return toolsCall(id, params, ctx, LEGACY_ERA);
    default:
      return LEGACY_ERA.err(id, -32601, 'Method not found');
  }
}

function modernRequest(id: string | number, method: string, params: Json, meta: Json, ctx: Context): Answer {
  const e = MODERN_ERA;
  const version = meta[PV];
  if (typeof version !== 'string') return e.err(id, -32602, `Invalid params: _meta lacks ${PV} (a string)`);
  if (version !== MODERN)
    return e.err(id, -32022, `Unsupported protocol version: ${short(version)}`, { supported: [MODERN], requested: version });
  if (!isObj(meta[CAPS])) return e.err(id, -32602, `Invalid params: _meta lacks ${CAPS} (an object)`);
  if (ctx.headers) {
    const mismatch = headerMismatch(method, params, ctx.headers, version);
    if (mismatch) return e.err(id, -32020, `Header mismatch: ${mismatch}`);
  }
  switch (method) {
    case 'server/discover':
      return e.ok(id, e.list({ supportedVersions: [MODERN], capabilities: CAPABILITIES }));
    case 'tools/list':
      return e.ok(id, e.list({ tools: listTools() }));
    case 'tools/call':
      return toolsCall(id, params, ctx, e);
    default:
      return e.err(id, -32601, 'Method not found');
  }
}

/** A header value as sent: `=?base64?…?=` decoded (streamable-http.mdx §Value Encoding). */
function headerValue(v: string | undefined): string | undefined {
  const m = v === undefined ? null : /^=\?base64\?([A-Za-z0-9+/=]*)\?=$/.exec(v);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : v;
}

/** What is wrong with a 2026-07-28 request's standard headers (HTTP-HDR-VALIDATE), if anything. */
function headerMismatch(method: string, params: Json, headers: Record<string, string | undefined>, version: string): string | undefined {
  const pv = headers['mcp-protocol-version'];
  if (pv === undefined) return 'MCP-Protocol-Version is missing';
  if (pv !== version) return `MCP-Protocol-Version ${short(pv)} is not the body's ${short(version)}`;
  const m = headers['mcp-method'];
  if (m === undefined) return 'Mcp-Method is missing';
  if (m !== method) return `Mcp-Method ${short(m)} is not the body's ${short(method)}`;
  if (method === 'tools/call') {
    const name = headerValue(headers['mcp-name']);
    if (name === undefined) return 'Mcp-Name is missing';
    if (name !== params.name) return `Mcp-Name ${short(name)} is not the body's ${short(params.name)}`;
  }
  return undefined;
}

function toolsCall(id: string | number, params: Json, ctx: Context, e: Era): Answer {
  if (typeof params.name !== 'string') return e.err(id, -32602, 'Invalid params: name must be a string');
  if ('arguments' in params && !isObj(params.arguments)) return e.err(id, -32602, 'Invalid params: arguments must be an object');
  if (!isTool(params.name)) return e.err(id, -32602, `Unknown tool: ${short(params.name)}`);
  const outcome = callTool(params.name, isObj(params.arguments) ? params.arguments : {}, ctx.fixes, ctx.io);
  if ('hang' in outcome) return { status: 200, hang: true };
  if ('error' in outcome) return e.err(id, outcome.error.code, outcome.error.message);
  return e.ok(id, outcome.result);
}
