/**
 * The Obs `P` rules of the rule catalogue (RULES.md) that the probes judge, with the level that decides a
 * failure's severity (MUST, desc and derived: error; SHOULD: warning) and the spec section.
 */
import type { Severity } from '../../lib/violation.js';
import { SPEC_BASE, specLink, type Rule } from '../rule.js';
import type { ProbeOutcome, ProbeResult } from './types.js';
import type { TransportKind } from '../../lib/cassette/cassette.js';

export interface ProbeRuleInfo {
  id: string;
  level: 'MUST' | 'SHOULD' | 'desc' | 'derived';
  source: string;
  title: string;
  transport?: TransportKind;
}

const R = (
  id: string,
  level: ProbeRuleInfo['level'],
  source: string,
  title: string,
  transport?: ProbeRuleInfo['transport'],
): ProbeRuleInfo => ({ id, level, source, title, ...(transport ? { transport } : {}) });

export const PROBE_RULES: readonly ProbeRuleInfo[] = [
  R(
    'VER-UNSUPPORTED-32022',
    'MUST',
    'basic/versioning.mdx §Protocol Version Negotiation',
    'An unsupported protocol version gets -32022 with data.supported and data.requested',
  ),
  R(
    'HTTP-PV-UNSUPPORTED',
    'MUST',
    'basic/transports/streamable-http.mdx §Protocol Version Header',
    'An unsupported version gets HTTP 400 with -32022',
    'streamable-http',
  ),
  R(
    'VER-META-MISSING-32602',
    'MUST',
    'basic/index.mdx §_meta',
    'A request without protocolVersion or clientCapabilities in _meta gets -32602',
  ),
  R(
    'VER-MISSING-CAP-32021',
    'MUST',
    'basic/index.mdx §_meta',
    'A request that needs an undeclared client capability gets -32021 naming it',
  ),
  R('VER-NO-CAP-INFERENCE', 'MUST', 'basic/index.mdx §_meta', 'Capabilities are never inferred from earlier requests'),
  R(
    'VER-INIT-ERR-NAMES',
    'SHOULD',
    'basic/versioning.mdx §Backward Compatibility with Initialization-Based Versions',
    "A modern-only server's error to initialize names the versions it supports",
  ),
  R('TOOLS-ERR-PROTOCOL', 'desc', 'server/tools.mdx §Error Handling', 'An unknown tool gets a JSON-RPC error, not an isError result'),
  R(
    'TOOLS-ERR-EXECUTION',
    'SHOULD',
    'server/tools.mdx §Error Handling',
    'Invalid tool arguments give an isError result (conflict C3: -32602 is only a warning)',
  ),
  R(
    'TOOLS-VALIDATE-INPUTS',
    'MUST',
    'server/tools.mdx §Security Considerations',
    'Arguments that violate inputSchema never succeed silently',
  ),
  R('MRTR-STATE-INTEGRITY', 'MUST', 'basic/patterns/mrtr.mdx §Server Requirements', 'A tampered requestState is rejected'),
  R(
    'MRTR-STATE-REPLAY',
    'SHOULD',
    'basic/patterns/mrtr.mdx §Server Requirements',
    'A requestState replayed on another request is rejected',
  ),
  R('MRTR-ANY-INSTANCE', 'derived', 'basic/patterns/mrtr.mdx §Basic Workflow', 'An MRTR retry is served on a fresh connection or process'),
  R(
    'STATE-LIST-INVARIANT',
    'MUST',
    'server/tools.mdx §Capabilities',
    'tools/list, prompts/list and resources/list do not vary per connection or after other requests',
  ),
  R('ENV-INFO-NOEFFECT', 'SHOULD', 'basic/index.mdx §_meta', 'The answer does not depend on clientInfo'),
  R('CAP-UNDECLARED-32601', 'desc', 'server/utilities/completion.mdx §Error Handling', 'An unknown method gets -32601', 'stdio'),
  R(
    'HTTP-HDR-VALIDATE',
    'MUST',
    'basic/transports/streamable-http.mdx §Server Validation',
    'A header that disagrees with the body gets 400 with -32020',
    'streamable-http',
  ),
  R(
    'HTTP-PV-ABSENT',
    'MUST',
    'basic/transports/streamable-http.mdx §Protocol Version Header',
    'A missing MCP-Protocol-Version header gets 400 with -32020',
    'streamable-http',
  ),
  R('HTTP-ORIGIN', 'MUST', 'basic/transports/streamable-http.mdx §Security', 'A foreign Origin gets 403', 'streamable-http'),
  R(
    'HTTP-405-GET-DELETE',
    'SHOULD',
    'basic/transports/streamable-http.mdx §Earlier Streamable HTTP Revisions',
    'A modern-only server answers GET and DELETE with 405',
    'streamable-http',
  ),
  R(
    'HTTP-404-METHOD',
    'MUST',
    'basic/transports/streamable-http.mdx §Protocol Version Header',
    'An unknown method gets HTTP 404 with -32601',
    'streamable-http',
  ),
  R('AUTH-401', 'MUST', 'basic/authorization/index.mdx §Token Handling', 'A missing or invalid token gets 401', 'streamable-http'),
  R(
    'AUTH-PRM-LOCATION',
    'MUST',
    'basic/authorization/authorization-server-discovery.mdx §Protected Resource Metadata Discovery Requirements',
    'A 401 names the Protected Resource Metadata (WWW-Authenticate resource_metadata, or the well-known URL)',
    'streamable-http',
  ),
  R('STDIO-EOF-EXIT', 'SHOULD', 'basic/transports/stdio.mdx §Shutdown', 'The server exits promptly once stdin is closed', 'stdio'),
];

const BY_ID = new Map(PROBE_RULES.map((r) => [r.id, r]));

export function probeRule(id: string): ProbeRuleInfo {
  const r = BY_ID.get(id);
  if (!r) throw new Error(`no probe rule ${id} in the catalogue`); // our bug, not bad traffic
  return r;
}

export function severityFor(id: string): Severity {
  const level = probeRule(id).level;
  return level === 'SHOULD' ? 'warning' : 'error';
}

/** Builds one result; the severity and spec link come from the catalogue. */
export function result(
  probe: string,
  rule: string,
  outcome: ProbeOutcome,
  reason: string,
  extra: { sent?: unknown; received?: unknown } = {},
): ProbeResult {
  return {
    probe,
    rule,
    outcome,
    severity: severityFor(rule),
    reason,
    ...(extra.sent !== undefined ? { sent: extra.sent } : {}),
    ...(extra.received !== undefined ? { received: extra.received } : {}),
    spec: specLink(probeRule(rule).source),
  };
}

/** The catalogue as validator rules, so validate's report formats can render probe results. */
export function probeRulesForReports(): Rule[] {
  return PROBE_RULES.map((r) => ({
    id: r.id,
    level: r.level,
    obs: 'P' as const,
    era: 'modern' as const,
    source: r.source,
    title: r.title,
    ...(r.transport ? { transport: r.transport } : {}),
    check: () => {},
  }));
}

export { SPEC_BASE };
