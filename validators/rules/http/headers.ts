/** RULES.md §19, Streamable HTTP: the request headers, and what a modern server validates. */
import { type Interest, isObject, type Rule } from '../../rule.js';
import { revisionOf } from '../../session-state.js';
import { decodeHeaderValue, encodingProblem, exchangeOf } from '../support/http.js';
import { missingEnvelope } from '../support/messages.js';

/** For HTTP-MCP-NAME: how `header` carries `value` is HTTP-B64-SENTINEL's to report (a value
 * that needs Base64 and did not get it right, or wrong-case markers). */
const sentinelProblem = (header: string, value: string): boolean => encodingProblem('', header, value) !== undefined;

const missingEnvelopeOf = (request: Record<string, unknown>): boolean => missingEnvelope(request).length > 0;

const NAMED: Record<string, string> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

function modernPost(o: Parameters<Rule['check']>[0]) {
  if (o.msg.direction !== 'client-to-server' || !o.json || typeof o.json.method !== 'string' || !o.msg.http) return undefined;
  return revisionOf(o.json) ? o.json : undefined;
}

export const headersRules: Rule[] = [
  {
    id: 'HTTP-PV-PRESENT',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Protocol Version Header',
    title: 'Every POST carries MCP-Protocol-Version',
    on: ['client-request'],
    check(o, report, state) {
      const json = modernPost(o);
      if (json && 'id' in json && state.header(o.msg, 'mcp-protocol-version') === undefined)
        report('', `${String(json.method)} was POSTed without an MCP-Protocol-Version header`);
    },
  },
  {
    id: 'HTTP-PV-MATCH',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Protocol Version Header',
    title: "MCP-Protocol-Version equals the body's _meta protocolVersion",
    on: ['client-request', 'client-notification'],
    check(o, report, state) {
      const json = modernPost(o);
      const header = json ? state.header(o.msg, 'mcp-protocol-version') : undefined;
      if (json && header !== undefined && header !== revisionOf(json))
        // The header mirrors that member, so the member is what is pointed at (like Mcp-Method's /method).
        report(
          '/params/_meta/io.modelcontextprotocol~1protocolVersion',
          `MCP-Protocol-Version header ${header} but the body names ${String(revisionOf(json))}`,
        );
    },
  },
  {
    id: 'HTTP-MCP-METHOD',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Standard Request Headers',
    title: "Every request has an Mcp-Method header equal to the body's method",
    on: ['client-request'],
    check(o, report, state) {
      const json = modernPost(o);
      if (!json || !('id' in json)) return;
      const header = state.header(o.msg, 'mcp-method');
      if (header !== json.method)
        report(
          '/method',
          header === undefined
            ? `${String(json.method)} was POSTed without an Mcp-Method header`
            : `Mcp-Method ${header} but the body's method is ${String(json.method)}`,
        );
    },
  },
  {
    id: 'HTTP-MCP-NAME',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Standard Request Headers',
    title: 'tools/call, prompts/get and resources/read send Mcp-Name',
    on: Object.keys(NAMED).flatMap((m): Interest[] => [`client-request ${m}`, `client-notification ${m}`]),
    check(o, report, state) {
      const json = modernPost(o);
      const field = json && Object.hasOwn(NAMED, String(json.method)) ? NAMED[String(json.method)] : undefined;
      if (!json || !field) return;
      const params = isObject(json.params) ? json.params : {};
      const header = state.header(o.msg, 'mcp-name');
      // Base64 sentinel values are compared decoded; a badly encoded one is HTTP-B64-SENTINEL's.
      if (header !== undefined && typeof params[field] === 'string' && sentinelProblem(header, params[field] as string)) return;
      if ((header === undefined ? undefined : decodeHeaderValue(header)) !== params[field])
        report(
          `/params/${field}`,
          header === undefined
            ? `${String(json.method)} without an Mcp-Name header`
            : `Mcp-Name ${header} but params.${field} is ${JSON.stringify(params[field])}`,
        );
    },
  },
  {
    id: 'HTTP-400-MODERN',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Server Validation',
    title: '-32020, -32021, -32022 and a missing-envelope -32602 are sent with HTTP 400',
    on: ['server-error'],
    check(o, report, state) {
      const code = o.json && isObject(o.json.error) ? o.json.error.code : undefined;
      if (o.msg.direction !== 'server-to-client' || !o.msg.http || typeof code !== 'number') return;
      const x = state.exchanges.get(o.msg.http.exchange);
      const missingEnvelope = code === -32602 && o.request !== undefined && missingEnvelopeOf(o.request.json);
      if ((code === -32020 || code === -32021 || code === -32022 || missingEnvelope) && x?.status !== undefined && x.status !== 400)
        report('/error/code', `error ${code} came with HTTP status ${x.status}, not 400`);
    },
  },
  {
    id: 'HTTP-NO-SESSION',
    level: 'SHOULD',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Earlier Streamable HTTP Revisions',
    title: 'A 2026-07-28 exchange never mints or echoes Mcp-Session-Id',
    on: ['server-response'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.msg.http || !o.request || o.request.era !== 'modern') return;
      const x = state.exchanges.get(o.msg.http.exchange);
      if (x?.responseHeaders?.['mcp-session-id'] !== undefined)
        report('', 'a 2026-07-28 answer carries an Mcp-Session-Id header; the revision has no protocol sessions');
    },
  },
  {
    id: 'HTTP-ACCEPT',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'The Accept header lists application/json and text/event-stream',
    on: ['client-json'],
    check(o, report, state) {
      if (o.msg.direction !== 'client-to-server' || !o.msg.http || !o.json || !('id' in o.json)) return;
      const accept = state.header(o.msg, 'accept') ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream'))
        report('', `Accept is ${JSON.stringify(accept)}; it must list application/json and text/event-stream`);
    },
  },
  {
    id: 'HTTP-REQ-CT',
    level: 'MUST',
    obs: '1',
    era: 'all',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Sending Messages',
    title: 'A request is answered with application/json or text/event-stream',
    on: ['server'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      // The rule is about the answer to a POSTed request. A GET (the listen stream) refused with a
      // bare 405, as the transports page allows, has no MCP answer to type.
      if (o.msg.direction !== 'server-to-client' || !x || x.method !== 'POST' || !state.onceIn(x.id, 'ct')) return;
      const type = (x.contentType ?? '').toLowerCase();
      if (!type.startsWith('application/json') && !type.startsWith('text/event-stream'))
        report('', `the answer's Content-Type is ${JSON.stringify(x.contentType ?? '')}`);
    },
  },
  {
    // An SSE answer by which a 2025-era server turns a 2026-07-28 attempt away is judged by its
    // own era (validators/legacy-rejection.ts), which has no such rule.
    id: 'HTTP-XACCEL',
    level: 'SHOULD',
    obs: '1',
    era: 'modern',
    transport: 'streamable-http',
    source: 'basic/transports/streamable-http.mdx §Receiving Messages',
    title: 'SSE responses send X-Accel-Buffering: no',
    on: ['server'],
    check(o, report, state) {
      const x = exchangeOf(o, state);
      if (o.msg.direction !== 'server-to-client' || o.msg.http?.part !== 'sse' || !x || !state.onceIn(x.id, 'xaccel')) return;
      if (x.responseHeaders?.['x-accel-buffering'] !== 'no')
        report('', 'an SSE response without X-Accel-Buffering: no (proxies may buffer it)');
    },
  },
];
