import { isObject, since, type Rule } from '../rule.js';
import { revisionOf, type PendingRequest, type SessionState } from '../session-state.js';
import { clientCapabilities } from './envelope.js';

const META = 'io.modelcontextprotocol/';

function meta(json?: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = json && isObject(json.params) ? json.params : undefined;
  return params && isObject(params._meta) ? params._meta : undefined;
}

/** Which required envelope fields a modern request lacks. */
export function missingEnvelope(json: Record<string, unknown>): string[] {
  const m = meta(json);
  const missing: string[] = [];
  if (typeof m?.[`${META}protocolVersion`] !== 'string') missing.push(`${META}protocolVersion`);
  if (!isObject(m?.[`${META}clientCapabilities`])) missing.push(`${META}clientCapabilities`);
  return missing;
}

/** The MCP revisions there are: a version outside them is one no server implements. */
const KNOWN_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'];

/**
 * The protocol version a request names in its envelope when the server does not support it:
 * absent from the `supportedVersions` the server announced (`supported`, by default the session's
 * DiscoverResult), or, before any discover answer, no MCP revision at all. Such a request is to be
 * refused with -32022.
 */
export function unsupportedVersion(request: Record<string, unknown>, supported: readonly string[] | undefined): string | undefined {
  const version = revisionOf(request);
  if (version === undefined) return undefined;
  return (supported ? supported.includes(version) : KNOWN_REVISIONS.includes(version)) ? undefined : version;
}

/**
 * Why a server may refuse a request, if it may: the request broke a MUST (a violation of error
 * severity on it, such as a missing envelope field or a schema breach), or it names a protocol
 * version the server does not support. The rules that judge whether an answer should have been a
 * result (CAP-DECLARED-ANSWERS, TOOLS-ERR-EXECUTION) do not judge the answers to such requests.
 */
export function refusable(request: PendingRequest, state: SessionState): string | undefined {
  if (request.invalid) return `it broke ${request.invalid}`;
  const version = unsupportedVersion(request.json, state.supportedVersions);
  return version === undefined ? undefined : `it asked for protocol version ${version}, which the server does not support`;
}

const isModernRequest = (o: Parameters<Rule['check']>[0]): o is typeof o & { json: Record<string, unknown> } =>
  o.msg.direction === 'client-to-server' && o.json !== undefined && typeof o.json.method === 'string' && 'id' in o.json;

/** Whether a capability named as required is in fact declared (a `{}` names the whole capability). */
function declaredCovers(required: unknown, declared: unknown): boolean {
  if (declared === undefined) return false;
  if (!isObject(required) || Object.keys(required).length === 0) return true;
  if (!isObject(declared)) return false;
  return Object.keys(required).every((k) => declaredCovers(required[k], declared[k]));
}

/**
 * A request naming a version the server does not support (VER-UNSUPPORTED-32022), answered with a
 * result or another error. A discover answer is measured by its own `supportedVersions`; a
 * request that broke a MUST of its own may be refused for that instead.
 */
function servedUnsupported(o: Parameters<Rule['check']>[0], report: Parameters<Rule['check']>[1], state: SessionState): void {
  const req = o.request;
  if (!req || req.invalid || !o.json) return;
  const r = o.json.result;
  const own = req.method === 'server/discover' && isObject(r) && Array.isArray(r.supportedVersions) ? r.supportedVersions.filter((v): v is string => typeof v === 'string') : undefined;
  const supported = own ?? state.supportedVersions;
  const version = unsupportedVersion(req.json, supported);
  if (version === undefined) return;
  const why = supported ? `which is not among the server's supportedVersions (${supported.join(', ') || 'none'})` : 'which is no MCP revision';
  const e = isObject(o.json.error) ? o.json.error : undefined;
  if (e) report('/error/code', `request #${req.msg.seq} asked for protocol version ${version}, ${why}, and was answered with error ${String(e.code)} instead of -32022`);
  else report('/result', `request #${req.msg.seq} asked for protocol version ${version}, ${why}, and was served instead of refused with -32022`);
}

/** §2 of RULES.md: version negotiation and discovery. */
export const versionRules: Rule[] = [
  {
    id: 'VER-META-REQUIRED', level: 'MUST', obs: '1', era: 'modern', source: 'basic/index.mdx §`_meta`',
    title: 'Every request carries protocolVersion and clientCapabilities in `params._meta`',
    on: ['client-request'],
    check(o, report) {
      if (!isModernRequest(o)) return;
      for (const key of missingEnvelope(o.json)) report('/params/_meta', `the request has no ${key} in params._meta`);
    },
  },
  {
    id: 'VER-META-MISSING-32602', level: 'MUST', obs: 'N', era: 'modern', source: 'basic/index.mdx §`_meta`',
    title: 'A request missing an envelope field is answered with -32602, not served',
    on: ['server-response'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !o.request || o.request.method === 'initialize' || !o.json) return;
      const missing = missingEnvelope(o.request.json);
      if (missing.length === 0) return;
      const code = isObject(o.json.error) ? o.json.error.code : undefined;
      if (code !== -32602) {
        report(code === undefined ? '/result' : '/error/code', `request #${o.request.msg.seq} lacked ${missing.join(' and ')} but was answered with ${code === undefined ? 'a result' : `error ${String(code)}`} instead of -32602`);
      }
    },
  },
  {
    id: 'VER-CLIENTINFO', level: 'SHOULD', obs: '1', era: 'modern', source: 'basic/index.mdx §`_meta`',
    title: 'Every request carries `io.modelcontextprotocol/clientInfo`',
    on: ['client-request'],
    check(o, report) {
      if (isModernRequest(o) && missingEnvelope(o.json).length === 0 && !isObject(meta(o.json)?.[`${META}clientInfo`])) {
        report('/params/_meta', 'the request has no io.modelcontextprotocol/clientInfo');
      }
    },
  },
  {
    id: 'VER-DISCOVER-RESULT', level: 'MUST', obs: '1', era: 'all', source: 'server/discover.mdx §Response',
    revisions: since('2026-07-28'),
    title: 'A DiscoverResult has resultType "complete", supportedVersions, capabilities, ttlMs and cacheScope',
    on: ['result server/discover'],
    check(o, report) {
      if (o.request?.method !== 'server/discover' || !o.json || !isObject(o.json.result)) return;
      const r = o.json.result;
      if (r.resultType !== 'complete') report('/result/resultType', `resultType is ${JSON.stringify(r.resultType)}, not "complete"`);
      if (!Array.isArray(r.supportedVersions) || !r.supportedVersions.every((v) => typeof v === 'string')) report('/result/supportedVersions', '`supportedVersions` is not an array of strings');
      if (!isObject(r.capabilities)) report('/result/capabilities', '`capabilities` is missing or not an object');
      if (typeof r.ttlMs !== 'number') report('/result/ttlMs', '`ttlMs` is missing');
      if (typeof r.cacheScope !== 'string') report('/result/cacheScope', '`cacheScope` is missing');
    },
  },
  {
    id: 'VER-DISCOVER-SERVERINFO', level: 'SHOULD', obs: '1', era: 'all', source: 'server/discover.mdx §DiscoverResult',
    revisions: since('2026-07-28'),
    title: 'The DiscoverResult `_meta` includes serverInfo',
    on: ['result server/discover'],
    check(o, report) {
      if (o.request?.method !== 'server/discover' || !o.json || !isObject(o.json.result)) return;
      const m = o.json.result._meta;
      if (!isObject(m) || !isObject(m[`${META}serverInfo`])) report('/result/_meta', 'the DiscoverResult has no io.modelcontextprotocol/serverInfo');
    },
  },
  {
    id: 'VER-UNSUPPORTED-32022', level: 'MUST', obs: 'N', era: 'all', source: 'basic/versioning.mdx §Protocol Version Negotiation',
    title: 'A request for a version the server does not support gets -32022, with `data.supported` (string[]) and `data.requested` (string)',
    on: ['server-response'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      const e = isObject(o.json.error) ? o.json.error : undefined;
      if (e?.code !== -32022) return servedUnsupported(o, report, state);
      const data = isObject(e.data) ? e.data : undefined;
      if (!Array.isArray(data?.supported) || !data!.supported.every((v) => typeof v === 'string')) report('/error/data/supported', '-32022 without `data.supported`, the versions the server accepts');
      if (typeof data?.requested !== 'string') report('/error/data/requested', '-32022 without `data.requested`, the version that was asked for');
    },
  },
  {
    id: 'VER-32021-TRUTHFUL', level: 'derived', obs: 'N', era: 'modern', source: 'basic/index.mdx §`_meta`',
    title: '-32021 names only capabilities really absent from the request',
    on: ['server-error'],
    check(o, report) {
      const e = o.json && isObject(o.json.error) ? o.json.error : undefined;
      if (o.msg.direction !== 'server-to-client' || e?.code !== -32021 || !o.request) return;
      const required = isObject(e.data) && isObject(e.data.requiredCapabilities) ? e.data.requiredCapabilities : undefined;
      if (!required) return report('/error/data/requiredCapabilities', '-32021 without `data.requiredCapabilities`');
      const declared = clientCapabilities(o.request.json) ?? {};
      for (const name of Object.keys(required)) {
        if (declaredCovers(required[name], declared[name])) report(`/error/data/requiredCapabilities/${name}`, `-32021 names ${name}, which the request declared`);
      }
    },
  },
];
