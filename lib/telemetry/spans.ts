import { isObject } from '../plain-object.js';
import { progressTokenOf } from '../progress-token.js';
import type { PayloadRedaction } from '../payload-redact.js';
import { noRedactionCounts, redactJson, redactText } from '../payload-redact.js';
import { maskCredentialsInUri, maskSecretsInText } from '../secret-text.js';
import { ListedNames, metricAttributes } from './metric-attributes.js';
import type { Direction } from '../message.js';
import type { Violation } from '../violation.js';

/**
 * The one mapping from MCP traffic to OpenTelemetry spans, by the OpenTelemetry semantic
 * conventions for MCP (semantic-conventions-genai, docs/gen-ai/mcp.md, status Development).
 * `export --format otlp-json` feeds it a cassette's sessions; `record --otel` feeds it the frames
 * the recorder writes, as they are written. It knows nothing of the SDK or of OTLP: it hands out
 * plain span data (McpSpanData) that the two writers encode.
 *
 * The proxy sits in the client's seat as the server sees it, so a request the client sends is a
 * CLIENT span (timed from the request crossing the proxy to its answer, as
 * `mcp.client.operation.duration`), and a request the server sends (sampling, elicitation,
 * roots) is a SERVER span (`mcp.server.operation.duration`). Notifications are spans of no
 * duration of the same kinds; progress and list-changed notifications are also events on the
 * request span they concern.
 */

export type AttributeValue = string | number;
export type Attributes = Record<string, AttributeValue>;

export interface SpanEventData {
  name: string;
  /** Epoch milliseconds. */
  time: number;
  attributes: Attributes;
}

export interface McpSpanData {
  name: string;
  kind: 'client' | 'server';
  /** Epoch milliseconds. */
  start: number;
  end: number;
  attributes: Attributes;
  events: SpanEventData[];
  /** Set when `error.type` is: the JSON-RPC error message, when there is one. */
  error?: { message?: string };
  /** From `params._meta.traceparent`: the host's span this one is a child of. */
  parent?: { traceId: string; spanId: string; sampled: boolean };
  /** A request (with an answer or not), as opposed to a notification: only these are timed. */
  request: boolean;
  /** A request's attributes as the duration metrics carry them, each bounded
   * (metric-attributes.ts); set when the span ends. */
  metric?: Attributes;
}

/** What is true of every span of one session (or, live, of one recorder). */
export interface SpanBase {
  transport: 'stdio' | 'streamable-http';
  /** The upstream server's host and port (HTTP). */
  server?: { address: string; port: number };
  /** `gen_ai.tool.call.arguments` and `.result`, masked by this redaction (its paths are pointers
   * into the whole message); absent: left out. Text from the traffic that every span may carry
   * (a resource URI, an error or progress message) is masked by it too, or by the credential
   * shapes without it; a URI's credentials are always masked. */
  payloads?: PayloadRedaction;
}

/** Where and when one message was heard. */
export interface MessageSite {
  /** Epoch milliseconds. */
  time: number;
  /** The cassette's seq (stdio and export), or the HTTP exchange and the message's position in it. */
  seq?: number;
  exchange?: number;
  position?: number;
  /** The 2025-era `Mcp-Session-Id` the message belongs to. */
  sessionId?: string;
  /** The protocol revision, when known for this message. */
  protocolVersion?: string;
}

/** The revision from which `mcp.session.id` MUST NOT be set. */
const SESSIONLESS_FROM = '2026-07-28';

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** A W3C `traceparent` value, when valid (all-zero ids and version ff are not). */
export function parseTraceparent(value: unknown): McpSpanData['parent'] | undefined {
  if (typeof value !== 'string') return undefined;
  const m = TRACEPARENT.exec(value.trim().toLowerCase());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, sampled: (Number.parseInt(m[4]!, 16) & 1) === 1 };
}

interface Open {
  span: McpSpanData;
  fromClient: boolean;
  progressToken?: string;
}

/** Keys kept for late violations and open requests are forgotten past this many. */
const MAX_KEPT = 10_000;

/** A bounded map that forgets its oldest entries. */
class Bounded<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    if (!this.has(key) && this.size >= MAX_KEPT) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}

export class McpSpanMapper {
  readonly #open = new Bounded<Open>();
  /** Message key (seq, or exchange and position) → its span, for violations that come later. */
  readonly #byMessage = new Bounded<McpSpanData>();
  /** The most recent span, for violations on messages that have no span of their own. */
  #last: McpSpanData | undefined;
  /** Protocol revisions learned from `initialize` answers, by session (stdio: ''). */
  readonly #versions = new Bounded<string>();
  /** Tool and prompt names the server listed: the metrics' bound on those attributes. */
  readonly #listed = new ListedNames();

  constructor(
    private readonly base: SpanBase,
    /** Called once per span, when it ends. */
    private readonly emit: (span: McpSpanData) => void,
  ) {}

  /** One frame's JSON (a batch is its members). */
  message(direction: Direction, json: unknown, site: MessageSite): void {
    if (Array.isArray(json)) {
      for (const m of json) this.message(direction, m, site);
      return;
    }
    if (!isObject(json) || json.jsonrpc !== '2.0') return;
    const fromClient = direction === 'client-to-server';
    const hasId = typeof json.id === 'string' || typeof json.id === 'number';
    if (typeof json.method === 'string') {
      const span = this.#start(json.method, json, fromClient, site, hasId);
      this.#mark(site, span);
      if (!hasId) {
        this.#notificationEvents(json.method, json, site);
        this.#end(span, site.time);
        return;
      }
      const token = progressTokenOf(json);
      this.#open.set(this.#pendingKey(fromClient, json.id as string | number, site), {
        span,
        fromClient,
        ...(typeof token === 'string' || typeof token === 'number' ? { progressToken: String(token) } : {}),
      });
      return;
    }
    if (!hasId) return;
    // An answer travels the other way: a client's request is answered by the server.
    const key = this.#pendingKey(!fromClient, json.id as string | number, site);
    const open = this.#open.get(key);
    if (!open) return;
    this.#open.delete(key);
    this.#mark(site, open.span);
    this.#answer(open.span, json, site);
    this.#end(open.span, site.time);
  }

  /** A stored or live violation: an event on the span of the message it is about (or the latest). */
  violation(v: Violation, at: { seq?: number; exchange?: number; position?: number }, time: number): void {
    const span = this.#byMessage.get(messageKey(at)) ?? this.#last;
    if (!span) return;
    span.events.push({
      name: 'mcp_cassette.violation',
      time: Math.min(Math.max(time, span.start), span.end === Number.POSITIVE_INFINITY ? time : span.end),
      attributes: {
        'mcp_cassette.rule.id': v.rule,
        'mcp_cassette.severity': v.severity,
        'mcp_cassette.message': v.message,
        ...(v.path ? { 'mcp_cassette.path': v.path } : {}),
        ...(v.seq ? { 'mcp_cassette.seq': v.seq } : {}),
      },
    });
  }

  /** An HTTP exchange ended: the client requests it carried get no answer there any more. */
  exchangeEnd(exchange: number, time: number): void {
    const prefix = `c:${exchange}:`;
    for (const [key, open] of [...this.#open]) {
      if (!key.startsWith(prefix)) continue;
      this.#open.delete(key);
      this.#end(open.span, time);
    }
  }

  /** The session or the recording ended: requests still waiting end unanswered. */
  finish(time: number): void {
    for (const open of this.#open.values()) this.#end(open.span, time);
    this.#open.clear();
  }

  #pendingKey(clientRequest: boolean, id: string | number, site: MessageSite): string {
    // On HTTP a client's request is answered in its own exchange; a server's request is answered
    // by a later POST of the same session.
    return clientRequest ? `c:${site.exchange ?? ''}:${JSON.stringify(id)}` : `s:${site.sessionId ?? ''}:${JSON.stringify(id)}`;
  }

  #mark(site: MessageSite, span: McpSpanData): void {
    const key = messageKey(site);
    if (key) this.#byMessage.set(key, span);
  }

  #start(method: string, json: Record<string, unknown>, fromClient: boolean, site: MessageSite, hasId: boolean): McpSpanData {
    const params = isObject(json.params) ? json.params : {};
    const attributes: Attributes = { 'mcp.method.name': method };
    let target: string | undefined;
    if (hasId) attributes['jsonrpc.request.id'] = String(json.id);
    if (method === 'tools/call' && typeof params.name === 'string') {
      attributes['gen_ai.tool.name'] = params.name;
      attributes['gen_ai.operation.name'] = 'execute_tool';
      target = params.name;
      const masked = this.#masked(json);
      const args = isObject(masked.params) ? masked.params.arguments : undefined;
      if (this.base.payloads && args !== undefined) attributes['gen_ai.tool.call.arguments'] = JSON.stringify(args);
    } else if (method === 'prompts/get' && typeof params.name === 'string') {
      attributes['gen_ai.prompt.name'] = params.name;
      target = params.name;
    } else if (typeof params.uri === 'string' && (method.startsWith('resources/') || method === 'notifications/resources/updated')) {
      const uri = this.#text(maskCredentialsInUri(params.uri).text);
      attributes['mcp.resource.uri'] = uri;
      target = uri;
    }
    const meta = isObject(params._meta) ? params._meta : undefined;
    const version =
      site.protocolVersion ??
      (typeof meta?.['io.modelcontextprotocol/protocolVersion'] === 'string'
        ? (meta['io.modelcontextprotocol/protocolVersion'] as string)
        : undefined) ??
      this.#versions.get(site.sessionId ?? '');
    if (version) attributes['mcp.protocol.version'] = version;
    // The conventions: MUST NOT be set on 2026-07-28, which has no sessions.
    if (site.sessionId && !(version && version >= SESSIONLESS_FROM)) attributes['mcp.session.id'] = site.sessionId;
    attributes['network.transport'] = this.base.transport === 'stdio' ? 'pipe' : 'tcp';
    if (this.base.server && fromClient) {
      attributes['server.address'] = this.base.server.address;
      attributes['server.port'] = this.base.server.port;
    }
    const parent = parseTraceparent(meta?.traceparent);
    const span: McpSpanData = {
      name: target ? `${method} ${target}` : method,
      kind: fromClient ? 'client' : 'server',
      start: site.time,
      end: Number.POSITIVE_INFINITY,
      attributes,
      events: [],
      request: hasId,
      ...(parent ? { parent } : {}),
    };
    this.#last = span;
    return span;
  }

  #answer(span: McpSpanData, json: Record<string, unknown>, site: MessageSite): void {
    if (isObject(json.error)) {
      const code = String(json.error.code ?? '_OTHER');
      span.attributes['error.type'] = code;
      span.attributes['rpc.response.status_code'] = code;
      span.error = typeof json.error.message === 'string' ? { message: this.#text(json.error.message) } : {};
      return;
    }
    const result = isObject(json.result) ? json.result : undefined;
    this.#listed.listed(span.attributes['mcp.method.name'], result);
    if (span.attributes['mcp.method.name'] === 'initialize' && typeof result?.protocolVersion === 'string') {
      this.#versions.set(site.sessionId ?? '', result.protocolVersion);
      span.attributes['mcp.protocol.version'] ??= result.protocolVersion;
    }
    if (span.attributes['mcp.method.name'] !== 'tools/call') return;
    if (result?.isError === true) {
      span.attributes['error.type'] = 'tool_error';
      span.error = {};
    } else if (this.base.payloads && result !== undefined) {
      span.attributes['gen_ai.tool.call.result'] = JSON.stringify(this.#masked(json).result);
    }
  }

  /** A whole message masked by the payload redaction (its paths point into the message). */
  #masked(json: Record<string, unknown>): Record<string, unknown> {
    return this.base.payloads ? (redactJson(this.base.payloads, json, noRedactionCounts()) as Record<string, unknown>) : json;
  }

  /** Text from the traffic as a span may carry it. */
  #text(text: string): string {
    const r = this.base.payloads;
    return r ? redactText(r, text, noRedactionCounts()) : maskSecretsInText(text).text;
  }

  /** Progress and list-changed notifications as events on the request span they concern. */
  #notificationEvents(method: string, json: Record<string, unknown>, site: MessageSite): void {
    const params = isObject(json.params) ? json.params : {};
    if (method === 'notifications/progress') {
      const token = params.progressToken;
      const open = [...this.#open.values()].find((o) => o.progressToken !== undefined && o.progressToken === String(token));
      if (!open) return;
      const attributes: Attributes = { 'mcp.method.name': method };
      for (const k of ['progress', 'total'] as const) if (typeof params[k] === 'number') attributes[`mcp_cassette.${k}`] = params[k];
      if (typeof params.message === 'string') attributes['mcp_cassette.progress.message'] = this.#text(params.message);
      open.span.events.push({ name: method, time: site.time, attributes });
      return;
    }
    if (!method.endsWith('/list_changed')) return;
    // The request in flight most recently started (a tool call that changed the list, say).
    let latest: Open | undefined;
    for (const o of this.#open.values()) if (!latest || o.span.start >= latest.span.start) latest = o;
    latest?.span.events.push({ name: method, time: site.time, attributes: { 'mcp.method.name': method } });
  }

  #end(span: McpSpanData, time: number): void {
    span.end = Math.max(span.start, time);
    if (span.request) span.metric = metricAttributes(span, this.#listed);
    this.emit(span);
  }
}

function messageKey(at: { seq?: number; exchange?: number; position?: number }): string {
  if (at.exchange !== undefined && at.position !== undefined) return `x:${at.exchange}:${at.position}`;
  return at.seq !== undefined ? `s:${at.seq}` : '';
}
