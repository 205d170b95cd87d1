#!/usr/bin/env node
/**
 * A hand-rolled, modern-only (2026-07-28) MCP server for the probe tests, with no SDK in the way:
 * it does what every probe checks, and `--defect <name>` (repeatable, or comma-separated) seeds
 * exactly one misbehaviour per name (DEFECTS below).
 *   node probe-server.js stdio [--defect name]
 *   node probe-server.js http [port] [--defect name] [--token T]   (127.0.0.1; prints its URL)
 * With --token every HTTP request needs `Authorization: Bearer T`.
 */
import './coverage-off.js'; // first: a coverage run stops collecting here (coverage-off.ts)
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { readJsonBody, serveStdioLines } from './raw-io.js';

/** Each defect breaks one probe (the rule it fails is in the comment). */
export const DEFECTS = [
  'serve-unsupported-version', // VER-UNSUPPORTED-32022 (and HTTP-PV-UNSUPPORTED on HTTP)
  'accept-missing-version', // VER-META-MISSING-32602 (missing-protocol-version)
  'accept-missing-capabilities', // VER-META-MISSING-32602 (missing-client-capabilities)
  'ignore-missing-capability', // VER-MISSING-CAP-32021
  'infer-capabilities', // VER-NO-CAP-INFERENCE
  'unknown-tool-iserror', // TOOLS-ERR-PROTOCOL
  'no-input-validation', // TOOLS-ERR-EXECUTION + TOOLS-VALIDATE-INPUTS
  'unsigned-state', // MRTR-STATE-INTEGRITY
  'unbound-state', // MRTR-STATE-REPLAY
  'state-affinity', // MRTR-ANY-INSTANCE
  'list-varies', // STATE-LIST-INVARIANT
  'clientinfo-varies', // ENV-INFO-NOEFFECT
  'unknown-method-200', // CAP-UNDECLARED-32601 (stdio: -32603) / HTTP-404-METHOD (HTTP: 200)
  'init-no-versions', // VER-INIT-ERR-NAMES
  'ignore-eof', // STDIO-EOF-EXIT
  'no-header-check', // HTTP-HDR-VALIDATE
  'absent-pv-ok', // HTTP-PV-ABSENT
  'no-origin-check', // HTTP-ORIGIN
  'allow-get', // HTTP-405-GET-DELETE
  'accept-any-token', // AUTH-401
  'no-resource-metadata', // AUTH-PRM-LOCATION
] as const;

type Json = Record<string, unknown>;
const VERSION = '2026-07-28';
const META = 'io.modelcontextprotocol/';
const KEY = 'probe-server-shared-secret'; // shared by every instance: state is not tied to one process

const argv = process.argv.slice(2);
const mode = argv[0] ?? 'stdio';
const defects = new Set<string>();
let token: string | undefined;
let port = 0;
for (let i = 1; i < argv.length; i++) {
  if (argv[i] === '--defect') for (const d of (argv[++i] ?? '').split(',')) d && defects.add(d);
  else if (argv[i] === '--token') token = argv[++i];
  else if (/^\d+$/.test(argv[i]!)) port = Number(argv[i]);
}
for (const d of defects) if (!(DEFECTS as readonly string[]).includes(d)) throw new Error(`unknown defect ${d}`);
const has = (d: (typeof DEFECTS)[number]) => defects.has(d);

interface ConnState {
  seenCaps: Json;
  states: Map<string, Json>;
  calledTools: boolean;
}
const newConn = (): ConnState => ({ seenCaps: {}, states: new Map(), calledTools: false });

const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const b64 = (s: string) => Buffer.from(s).toString('base64url');
const mac = (s: string) => createHmac('sha256', KEY).update(s).digest('base64url');

function tools(clientName: string, conn: ConnState): Json[] {
  const list: Json[] = [
    {
      name: 'add',
      description: has('clientinfo-varies') ? `Add two numbers for ${clientName}` : 'Add two numbers',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'number' }, b: { type: 'number' } },
        required: ['a', 'b'],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: 'confirm_action',
      description: 'Asks the user to confirm (MRTR elicitation)',
      inputSchema: { type: 'object', properties: { action: { type: 'string' } }, required: ['action'] },
    },
  ];
  if (has('list-varies') && conn.calledTools) list.push({ name: 'extra_tool', inputSchema: { type: 'object' } });
  return list;
}

function mintState(action: string, conn: ConnState): string {
  const payload = { approval: 'pending', action };
  if (has('state-affinity')) {
    const id = randomUUID();
    conn.states.set(id, payload);
    return id;
  }
  const body = b64(JSON.stringify(payload));
  return has('unsigned-state') ? body : `${body}.${mac(body)}`;
}

function readState(state: unknown, conn: ConnState): Json | undefined {
  if (typeof state !== 'string') return undefined;
  if (has('state-affinity')) return conn.states.get(state);
  let body = state;
  if (!has('unsigned-state')) {
    const [b, m] = state.split('.');
    if (!b || !m) return undefined;
    const want = Buffer.from(mac(b));
    const got = Buffer.from(m);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return undefined;
    body = b;
  }
  try {
    const p = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as unknown;
    return isObj(p) ? p : undefined;
  } catch {
    return undefined;
  }
}

interface Answer {
  status: number;
  body?: Json;
}
const ok = (id: unknown, result: Json): Answer => ({
  status: 200,
  body: {
    jsonrpc: '2.0',
    id,
    result: { resultType: 'complete', ...result, _meta: { [`${META}serverInfo`]: { name: 'probe-server', version: '1.0.0' } } },
  },
});
const err = (id: unknown, code: number, message: string, data?: unknown, status = 400): Answer => ({
  status,
  body: { jsonrpc: '2.0', id: id ?? null, error: { code, message, ...(data !== undefined ? { data } : {}) } },
});

function handle(msg: unknown, conn: ConnState, headers?: Record<string, string | undefined>): Answer | undefined {
  if (!isObj(msg) || msg.jsonrpc !== '2.0' || typeof msg.method !== 'string') return err(null, -32600, 'Invalid Request');
  const id = msg.id;
  if (!('id' in msg)) return undefined; // a notification
  const params = isObj(msg.params) ? msg.params : {};
  if (msg.method === 'initialize') {
    return has('init-no-versions')
      ? err(id, -32600, 'initialize is not supported')
      : err(id, -32022, `Unsupported protocol version: this server speaks only ${VERSION}`, {
          supported: [VERSION],
          requested: params.protocolVersion,
        });
  }
  const meta = isObj(params._meta) ? params._meta : {};
  const version = meta[`${META}protocolVersion`];
  let caps = meta[`${META}clientCapabilities`];
  if (typeof version !== 'string' && !has('accept-missing-version'))
    return err(id, -32602, 'Invalid params: _meta lacks io.modelcontextprotocol/protocolVersion');
  if (!isObj(caps) && !has('accept-missing-capabilities'))
    return err(id, -32602, 'Invalid params: _meta lacks io.modelcontextprotocol/clientCapabilities');
  if (typeof version === 'string' && version !== VERSION && !has('serve-unsupported-version'))
    return err(id, -32022, `Unsupported protocol version: ${version}`, { supported: [VERSION], requested: version });
  if (headers) {
    const pv = headers['mcp-protocol-version'];
    if (pv === undefined && !has('absent-pv-ok')) return err(id, -32020, 'Header mismatch: MCP-Protocol-Version is absent');
    if (!has('no-header-check')) {
      if (pv !== undefined && pv !== version)
        return err(id, -32020, `Header mismatch: MCP-Protocol-Version ${pv} vs body ${String(version)}`);
      if (headers['mcp-method'] !== msg.method)
        return err(id, -32020, `Header mismatch: Mcp-Method ${String(headers['mcp-method'])} vs body ${msg.method}`);
    }
  }
  caps = isObj(caps) ? caps : {};
  if (has('infer-capabilities')) {
    Object.assign(conn.seenCaps, caps);
    caps = { ...conn.seenCaps };
  }
  const info = meta[`${META}clientInfo`];
  const clientName = isObj(info) && typeof info.name === 'string' ? info.name : 'unknown';
  switch (msg.method) {
    case 'server/discover':
      return ok(id, {
        supportedVersions: [VERSION],
        capabilities: { tools: {}, prompts: {}, resources: {} },
        ttlMs: 0,
        cacheScope: 'public',
      });
    case 'tools/list':
      return ok(id, { tools: tools(clientName, conn), ttlMs: 0, cacheScope: 'public' });
    case 'prompts/list':
      return ok(id, { prompts: [{ name: 'greet', arguments: [{ name: 'name', required: true }] }], ttlMs: 0, cacheScope: 'public' });
    case 'resources/list':
      return ok(id, { resources: [{ uri: 'test://readme', name: 'readme' }], ttlMs: 0, cacheScope: 'public' });
    case 'tools/call':
      return callTool(id, params, caps as Json, conn);
    default:
      return has('unknown-method-200')
        ? { ...err(id, -32603, `no handler for ${msg.method}`), status: 200 }
        : err(id, -32601, 'Method not found', undefined, 404);
  }
}

function callTool(id: unknown, params: Json, caps: Json, conn: ConnState): Answer {
  conn.calledTools = true;
  const a = isObj(params.arguments) ? params.arguments : {};
  if (params.name === 'add') {
    if ((typeof a.a !== 'number' || typeof a.b !== 'number') && !has('no-input-validation')) {
      return ok(id, { content: [{ type: 'text', text: 'Invalid arguments: a and b must be numbers' }], isError: true });
    }
    return ok(id, { content: [{ type: 'text', text: String((a.a as number) + (a.b as number)) }] });
  }
  if (params.name === 'confirm_action') {
    const action = String(a.action);
    const responses = isObj(params.inputResponses) ? params.inputResponses : undefined;
    if (!responses) {
      if (!isObj(caps.elicitation) && !has('ignore-missing-capability')) {
        return err(id, -32021, 'Missing required client capability: elicitation', { requiredCapabilities: { elicitation: {} } });
      }
      return ok(id, {
        resultType: 'input_required',
        inputRequests: {
          confirm: {
            method: 'elicitation/create',
            params: {
              mode: 'form',
              message: `Really ${action}?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
            },
          },
        },
        requestState: mintState(action, conn),
      });
    }
    const state = readState(params.requestState, conn);
    if (!state) return err(id, -32602, 'Invalid params: requestState is invalid, tampered or unknown here');
    if (state.action !== action && !has('unbound-state'))
      return err(id, -32602, 'Invalid params: requestState was issued for another request');
    const confirm = isObj(responses.confirm) && isObj(responses.confirm.content) ? responses.confirm.content.ok : undefined;
    return ok(id, {
      content: [{ type: 'text', text: `confirmed=${String(confirm)} action=${action} approval=${String(state.approval)}` }],
    });
  }
  if (has('unknown-tool-iserror'))
    return ok(id, { content: [{ type: 'text', text: `Unknown tool ${String(params.name)}` }], isError: true });
  return err(id, -32602, `Unknown tool: ${String(params.name)}`);
}

function serveStdio(): void {
  const conn = newConn();
  serveStdioLines((msg) => handle(msg, conn)?.body);
  process.stdin.on('end', () => {
    if (has('ignore-eof')) setInterval(() => {}, 1 << 30);
    else process.exit(0);
  });
}

function serveHttp(): void {
  const conns = new WeakMap<object, ConnState>();
  const server = createServer((req: IncomingMessage, res) => {
    const self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const send = (a: Answer, extra: Record<string, string> = {}) => {
      res.writeHead(a.status, { ...(a.body ? { 'content-type': 'application/json' } : {}), ...extra });
      res.end(a.body ? JSON.stringify(a.body) : undefined);
    };
    const url = new URL(req.url ?? '/', self);
    if (url.pathname.startsWith('/.well-known/oauth-protected-resource')) {
      if (!token || has('no-resource-metadata')) return send({ status: 404 });
      return send({ status: 200, body: { resource: `${self}/mcp`, authorization_servers: ['https://auth.example'] } });
    }
    if (url.pathname !== '/mcp') return send({ status: 404 });
    const origin = req.headers.origin;
    if (origin !== undefined && !/^https?:\/\/(127\.0\.0\.1|localhost)(:\d+)?$/.test(origin) && !has('no-origin-check')) {
      return send(err(null, -32000, 'Forbidden: foreign Origin', undefined, 403));
    }
    if (token) {
      const auth = req.headers.authorization;
      if (auth !== `Bearer ${token}` && !(has('accept-any-token') && auth?.startsWith('Bearer '))) {
        const challenge = has('no-resource-metadata')
          ? 'Bearer'
          : `Bearer resource_metadata="${self}/.well-known/oauth-protected-resource/mcp"`;
        return send(err(null, -32000, 'Unauthorized', undefined, 401), { 'www-authenticate': challenge });
      }
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      return has('allow-get') ? send({ status: 200 }) : send(err(null, -32000, 'Method not allowed', undefined, 405), { allow: 'POST' });
    }
    if (req.method !== 'POST') return send(err(null, -32000, 'Method not allowed', undefined, 405), { allow: 'POST' });
    let conn = conns.get(req.socket);
    if (!conn) conns.set(req.socket, (conn = newConn()));
    readJsonBody(
      req,
      (msg) => {
        const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
        const a = handle(msg, conn!, headers);
        send(a ?? { status: 202 });
      },
      () => send(err(null, -32700, 'Parse error')),
    );
  });
  server.listen(port, '127.0.0.1', () => process.stdout.write(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp\n`));
  for (const s of ['SIGINT', 'SIGTERM'] as const) process.on(s, () => process.exit(0));
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (!isMain) {
  // Imported (by a test, for DEFECTS): serve nothing.
} else if (mode === 'stdio') serveStdio();
else if (mode === 'http') serveHttp();
else {
  process.stderr.write(`probe-server: unknown mode ${mode}; use stdio or http [port]\n`);
  process.exit(2);
}
