/**
 * The server under probe, named by the user: a command (a fresh process per connection) or a
 * Streamable HTTP URL (a fresh TCP connection per connection). A connection speaks one era:
 * 2026-07-28 connections send each request as it is; 2025-era connections first repeat the
 * recorded `initialize` (with a 2025 session id on HTTP).
 */
import type { Agent } from 'undici';
import { RawStdioProcess } from '../../lib/raw-client/stdio.js';
import { freshConnection, rawHttp, type RawHttpResponse } from '../../lib/raw-client/http.js';
import { isObject } from '../rule.js';
import { META, PV, paramsOf, type Json } from './plan.js';
import type { TransportKind } from '../../lib/cassette/cassette.js';

export interface SendOptions {
  /** HTTP: headers set on top of (or instead of) the standard ones. */
  headers?: Record<string, string>;
  /** HTTP: standard headers to leave out. */
  dropHeaders?: string[];
  /** HTTP: derive the standard headers from this message instead of the one sent. */
  headersFrom?: Json;
}

export interface Exchange {
  /** What went on the wire: the message, and on HTTP the method and headers. */
  sent: { message: unknown; http?: { method: string; headers: Record<string, string> } };
  response?: Json;
  status?: number;
  headers?: Record<string, string>;
  timedOut?: boolean;
  /** The transport failed: unreachable, the process died or could not start. */
  error?: string;
}

export interface Conn {
  era: 'modern' | 'legacy';
  request(message: Json, options?: SendOptions): Promise<Exchange>;
  /** A fresh request id on this connection. */
  nextId(): string;
  close(): Promise<void>;
}

export interface OpenOptions {
  clientInfo?: Json;
  /** 2025 era: capabilities for `initialize` instead of the recorded ones. */
  capabilities?: Json;
}

export type Opened = { conn: Conn } | { error: string; exchange?: Exchange };

export interface Target {
  transport: TransportKind;
  label: string;
  command?: string[];
  url?: string;
  /** Extra headers for every HTTP request (a real token, for instance). */
  extraHeaders: Record<string, string>;
  open(era: 'modern' | 'legacy', initialize: Json | undefined, options?: OpenOptions): Promise<Opened>;
  /** What a probe got back, for the report. */
  describe(ex: Exchange): unknown;
}

let idCounter = 0;
const newId = () => `mcp-cassette-probe-${++idCounter}`;

function initializeMessage(id: string, recorded: Json | undefined, options: OpenOptions): Json {
  const params: Json = {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'mcp-cassette-probe', version: '0.0.0' },
    ...(recorded ?? {}),
  };
  if (options.clientInfo) params.clientInfo = options.clientInfo;
  if (options.capabilities) params.capabilities = options.capabilities;
  return { jsonrpc: '2.0', id, method: 'initialize', params };
}

function describe(ex: Exchange): unknown {
  if (ex.error) return { error: ex.error };
  if (ex.timedOut) return { timedOut: true, ...(ex.status !== undefined ? { status: ex.status } : {}) };
  return {
    ...(ex.status !== undefined ? { status: ex.status } : {}),
    ...(ex.headers?.['www-authenticate'] ? { 'www-authenticate': ex.headers['www-authenticate'] } : {}),
    ...(ex.response ? { response: ex.response } : {}),
  };
}

export function stdioTarget(command: string[], timeoutMs: number, cwd?: string): Target {
  return {
    transport: 'stdio',
    label: command.join(' '),
    command,
    extraHeaders: {},
    describe,
    async open(era, initialize, options = {}) {
      const proc = new RawStdioProcess({ command, ...(cwd ? { cwd } : {}) });
      const conn: Conn = {
        era,
        nextId: newId,
        async request(message) {
          const r = await proc.request(message, timeoutMs);
          return {
            sent: { message },
            ...(r.response ? { response: r.response } : {}),
            ...(r.timedOut ? { timedOut: true } : {}),
            ...(r.gone ? { error: r.gone } : {}),
          };
        },
        async close() {
          await proc.close(500);
        },
      };
      if (era === 'modern') return { conn };
      const ex = await conn.request(initializeMessage(newId(), initialize, options));
      if (!isObject(ex.response?.result)) {
        await conn.close();
        return { error: `the 2025 initialize handshake failed: ${JSON.stringify(describe(ex)).slice(0, 300)}`, exchange: ex };
      }
      proc.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return { conn };
    },
  };
}

/** The standard 2026-07-28 headers for a request body (streamable-http.mdx §Standard Request Headers). */
export function modernHeaders(message: Json): Record<string, string> {
  const h: Record<string, string> = {};
  const meta = isObject(paramsOf(message)._meta) ? (paramsOf(message)._meta as Json) : {};
  if (typeof meta[PV] === 'string') h['mcp-protocol-version'] = meta[PV];
  if (typeof message.method === 'string') h['mcp-method'] = message.method;
  const p = paramsOf(message);
  const name =
    message.method === 'resources/read' ? p.uri : message.method === 'tools/call' || message.method === 'prompts/get' ? p.name : undefined;
  // Non-ASCII names would need the base64 sentinel form; recorded names are sent as they are.
  if (typeof name === 'string' && /^[\x20-\x7e]*$/.test(name)) h['mcp-name'] = name;
  return h;
}

export function httpTarget(url: string, timeoutMs: number, extraHeaders: Record<string, string> = {}): Target {
  const target: Target = {
    transport: 'streamable-http',
    label: url,
    url,
    extraHeaders,
    describe,
    async open(era, initialize, options = {}) {
      const agent: Agent = freshConnection();
      let sessionId: string | undefined;
      let negotiated: string | undefined;
      const post = async (message: Json, o: SendOptions = {}): Promise<Exchange> => {
        let headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
        if (era === 'modern') Object.assign(headers, modernHeaders(o.headersFrom ?? message));
        else {
          if (negotiated) headers['mcp-protocol-version'] = negotiated;
          if (sessionId) headers['mcp-session-id'] = sessionId;
        }
        for (const [k, v] of Object.entries(extraHeaders)) headers[k.toLowerCase()] = v;
        for (const [k, v] of Object.entries(o.headers ?? {})) headers[k.toLowerCase()] = v;
        for (const d of o.dropHeaders ?? []) delete headers[d.toLowerCase()];
        headers = Object.fromEntries(Object.entries(headers));
        const res: RawHttpResponse = await rawHttp({
          url,
          method: 'POST',
          headers,
          body: message,
          timeoutMs,
          dispatcher: agent,
          ...('id' in message ? { untilId: message.id } : {}),
        });
        const response =
          res.messages.find(
            (m): m is Json => isObject(m) && !('method' in m) && JSON.stringify(m.id ?? null) === JSON.stringify(message.id ?? null),
          ) ?? res.messages.find((m): m is Json => isObject(m) && 'error' in m && (m.id === null || m.id === undefined));
        return {
          sent: { message, http: { method: 'POST', headers } },
          ...(res.status !== undefined ? { status: res.status } : {}),
          headers: res.headers,
          ...(response ? { response } : {}),
          ...(res.timedOut ? { timedOut: true } : {}),
          ...(res.error ? { error: `could not reach ${url}: ${res.error}` } : {}),
        };
      };
      const conn: Conn = {
        era,
        nextId: newId,
        request: post,
        async close() {
          if (sessionId) {
            await rawHttp({
              url,
              method: 'DELETE',
              headers: { 'mcp-session-id': sessionId, ...extraHeaders },
              timeoutMs: Math.min(timeoutMs, 2000),
              dispatcher: agent,
              headersOnly: true,
            });
          }
          await agent.close().catch(() => {});
        },
      };
      if (era === 'modern') return { conn };
      const ex = await post(initializeMessage(newId(), initialize, options));
      const result = ex.response?.result;
      if (!isObject(result)) {
        await conn.close();
        return { error: `the 2025 initialize handshake failed: ${JSON.stringify(describe(ex)).slice(0, 300)}`, exchange: ex };
      }
      sessionId = ex.headers?.['mcp-session-id'];
      negotiated = typeof result.protocolVersion === 'string' ? result.protocolVersion : undefined;
      await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
      return { conn };
    },
  };
  return target;
}

/** A copy of a recorded request with a new id and `_meta` edited by `edit`. */
export function withMeta(request: Json, id: string, edit: (meta: Json) => void): Json {
  const params: Json = { ...paramsOf(request) };
  const meta: Json = isObject(params._meta) ? { ...params._meta } : {};
  edit(meta);
  params._meta = meta;
  return { ...request, id, params };
}

/** A copy of a recorded request with a new id and edited params. */
export function withParams(request: Json, id: string, edit: (params: Json) => void): Json {
  const params: Json = structuredClone(paramsOf(request));
  edit(params);
  return { ...request, id, params };
}

export { META };
