/** RULES.md §2: version negotiation and discovery (VER). */
import { type Interest, isObject, type Rule, since } from '../rule.js';
import { revisionOf, type SessionState } from '../session-state.js';
import {
  clientCapabilities,
  clientRequest,
  extensionsOf,
  KEY,
  meta,
  META,
  metaOf,
  missingEnvelope,
  params,
  result,
  TASK_METHODS,
  TASKS,
  turnedAwayAnswer,
  unsupportedVersion,
} from './support/messages.js';
import { memoryOf } from './support/negotiated.js';
import { pointerToken } from '../../lib/json-pointer.js';

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
  if (!req || req.invalid || !o.json || turnedAwayAnswer(o)) return;
  const r = o.json.result;
  const own =
    req.method === 'server/discover' && isObject(r) && Array.isArray(r.supportedVersions)
      ? r.supportedVersions.filter((v): v is string => typeof v === 'string')
      : undefined;
  const supported = own ?? state.supportedVersions;
  const version = unsupportedVersion(req.json, supported);
  if (version === undefined) return;
  const why = supported
    ? `which is not among the server's supportedVersions (${supported.join(', ') || 'none'})`
    : 'which is no MCP revision';
  const e = isObject(o.json.error) ? o.json.error : undefined;
  if (e)
    report(
      '/error/code',
      `request #${req.msg.seq} asked for protocol version ${version}, ${why}, and was answered with error ${String(e.code)} instead of -32022`,
    );
  else
    report(
      '/result',
      `request #${req.msg.seq} asked for protocol version ${version}, ${why}, and was served instead of refused with -32022`,
    );
}

export const versionRules: Rule[] = [
  {
    id: 'VER-EXT-ID',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'basic/versioning.mdx §Extension Negotiation',
    revisions: since('2026-07-28'),
    title: 'Extension ids carry a prefix and follow the `_meta` key rules',
    on: ['json'],
    check(o, report) {
      if (!o.json) return;
      const found: [Record<string, unknown>, string][] = [];
      const params = isObject(o.json.params) ? o.json.params : undefined;
      const caps = params && isObject(params._meta) ? params._meta['io.modelcontextprotocol/clientCapabilities'] : undefined;
      if (isObject(caps) && isObject(caps.extensions))
        found.push([caps.extensions, '/params/_meta/io.modelcontextprotocol~1clientCapabilities/extensions']);
      const result = isObject(o.json.result) ? o.json.result : undefined;
      if (result && isObject(result.capabilities) && isObject(result.capabilities.extensions))
        found.push([result.capabilities.extensions, '/result/capabilities/extensions']);
      for (const [ext, at] of found) {
        for (const id of Object.keys(ext))
          if (!id.includes('/') || !KEY.test(id))
            report(
              `${at}/${pointerToken(id)}`,
              `extension id ${JSON.stringify(id)} needs a prefix (like io.example/name) and a valid name`,
            );
      }
    },
  },
  {
    id: 'VER-META-REQUIRED',
    level: 'MUST',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §`_meta`',
    title: 'Every request carries protocolVersion and clientCapabilities in `params._meta`',
    on: ['client-request'],
    check(o, report) {
      if (!isModernRequest(o)) return;
      for (const key of missingEnvelope(o.json)) report('/params/_meta', `the request has no ${key} in params._meta`);
    },
  },
  {
    id: 'VER-META-MISSING-32602',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/index.mdx §`_meta`',
    title: 'A request missing an envelope field is answered with -32602, not served',
    on: ['server-response'],
    check(o, report) {
      if (o.msg.direction !== 'server-to-client' || !o.request || o.request.method === 'initialize' || !o.json) return;
      // A request nested past the validator's depth bound is known by its top-level scalars only:
      // its envelope is there, just not read (engine.ts #notJudged).
      if (o.request.msg.tooDeep) return;
      // -32602 is owed to a well-formed JSON-RPC request; one that is not (jsonrpc other than
      // "2.0", an id neither a string nor an integer, params that are no object) may get -32600.
      if (!wellFormed(o.request.json)) return;
      const missing = missingEnvelope(o.request.json);
      if (missing.length === 0) return;
      const code = isObject(o.json.error) ? o.json.error.code : undefined;
      if (code !== -32602) {
        report(
          code === undefined ? '/result' : '/error/code',
          `request #${o.request.msg.seq} lacked ${missing.join(' and ')} but was answered with ${code === undefined ? 'a result' : `error ${String(code)}`} instead of -32602`,
        );
      }
    },
  },
  {
    id: 'VER-CLIENTINFO',
    level: 'SHOULD',
    obs: '1',
    era: 'modern',
    source: 'basic/index.mdx §`_meta`',
    title: 'Every request carries `io.modelcontextprotocol/clientInfo`',
    on: ['client-request'],
    check(o, report) {
      if (isModernRequest(o) && missingEnvelope(o.json).length === 0 && !isObject(meta(o.json)?.[`${META}clientInfo`])) {
        report('/params/_meta', 'the request has no io.modelcontextprotocol/clientInfo');
      }
    },
  },
  {
    id: 'VER-DISCOVER-RESULT',
    level: 'MUST',
    obs: '1',
    era: 'all',
    source: 'server/discover.mdx §Response',
    revisions: since('2026-07-28'),
    title: 'A DiscoverResult has resultType "complete", supportedVersions, capabilities, ttlMs and cacheScope',
    on: ['result server/discover'],
    check(o, report) {
      if (o.request?.method !== 'server/discover' || !o.json || !isObject(o.json.result)) return;
      const r = o.json.result;
      if (r.resultType !== 'complete') report('/result/resultType', `resultType is ${JSON.stringify(r.resultType)}, not "complete"`);
      if (!Array.isArray(r.supportedVersions) || !r.supportedVersions.every((v) => typeof v === 'string'))
        report('/result/supportedVersions', '`supportedVersions` is not an array of strings');
      if (!isObject(r.capabilities)) report('/result/capabilities', '`capabilities` is missing or not an object');
      if (typeof r.ttlMs !== 'number') report('/result/ttlMs', '`ttlMs` is missing');
      if (typeof r.cacheScope !== 'string') report('/result/cacheScope', '`cacheScope` is missing');
    },
  },
  {
    id: 'VER-DISCOVER-SERVERINFO',
    level: 'SHOULD',
    obs: '1',
    era: 'all',
    source: 'server/discover.mdx §DiscoverResult',
    revisions: since('2026-07-28'),
    title: 'The DiscoverResult `_meta` includes serverInfo',
    on: ['result server/discover'],
    check(o, report) {
      if (o.request?.method !== 'server/discover' || !o.json || !isObject(o.json.result)) return;
      const m = o.json.result._meta;
      if (!isObject(m) || !isObject(m[`${META}serverInfo`]))
        report('/result/_meta', 'the DiscoverResult has no io.modelcontextprotocol/serverInfo');
    },
  },
  {
    id: 'VER-UNSUPPORTED-32022',
    level: 'MUST',
    obs: 'N',
    era: 'all',
    source: 'basic/versioning.mdx §Protocol Version Negotiation',
    title:
      'A request for a version the server does not support gets -32022, with `data.supported` (string[]) and `data.requested` (string)',
    on: ['server-response'],
    check(o, report, state) {
      if (o.msg.direction !== 'server-to-client' || !o.json) return;
      const e = isObject(o.json.error) ? o.json.error : undefined;
      if (e?.code !== -32022) return servedUnsupported(o, report, state);
      const data = isObject(e.data) ? e.data : undefined;
      if (!Array.isArray(data?.supported) || !data!.supported.every((v) => typeof v === 'string'))
        report('/error/data/supported', '-32022 without `data.supported`, the versions the server accepts');
      if (typeof data?.requested !== 'string')
        report('/error/data/requested', '-32022 without `data.requested`, the version that was asked for');
    },
  },
  {
    id: 'VER-32021-TRUTHFUL',
    level: 'derived',
    obs: 'N',
    era: 'modern',
    source: 'basic/index.mdx §`_meta`',
    title: '-32021 names only capabilities really absent from the request',
    on: ['server-error'],
    check(o, report) {
      const e = o.json && isObject(o.json.error) ? o.json.error : undefined;
      if (o.msg.direction !== 'server-to-client' || e?.code !== -32021 || !o.request) return;
      const required = isObject(e.data) && isObject(e.data.requiredCapabilities) ? e.data.requiredCapabilities : undefined;
      if (!required) return report('/error/data/requiredCapabilities', '-32021 without `data.requiredCapabilities`');
      const declared = clientCapabilities(o.request.json) ?? {};
      for (const name of Object.keys(required)) {
        if (declaredCovers(required[name], declared[name]))
          report(`/error/data/requiredCapabilities/${name}`, `-32021 names ${name}, which the request declared`);
      }
    },
  },
  {
    id: 'VER-32022-CONSISTENT',
    level: 'derived',
    obs: 'N',
    era: 'all',
    source: 'basic/versioning.mdx §Protocol Version Negotiation',
    revisions: since('2026-07-28'),
    title: '-32022 names the version that was sent, and does not list it as supported',
    on: ['error'],
    check(o, report) {
      const e = o.json && isObject(o.json.error) ? o.json.error : undefined;
      if (e?.code !== -32022 || !isObject(e.data) || !o.request) return;
      const sent =
        metaOf(o.request.json.params)?.['io.modelcontextprotocol/protocolVersion'] ??
        (isObject(o.request.json.params) ? o.request.json.params.protocolVersion : undefined);
      if (typeof e.data.requested === 'string' && sent !== undefined && e.data.requested !== sent)
        report('/error/data/requested', `data.requested is ${e.data.requested} but the request asked for ${String(sent)}`);
      if (Array.isArray(e.data.supported) && typeof sent === 'string' && e.data.supported.includes(sent))
        report(`/error/data/supported/${e.data.supported.indexOf(sent)}`, `${sent} was refused but is listed as supported`);
    },
  },
  {
    id: 'VER-CLIENT-RETRY',
    level: 'SHOULD',
    obs: 'N',
    era: 'all',
    source: 'basic/versioning.mdx §Protocol Version Negotiation',
    revisions: since('2026-07-28'),
    title: 'After -32022 the client uses a version from data.supported',
    on: ['client-request'],
    check(o, report, state) {
      const m = memoryOf(o, state);
      const req = clientRequest(o);
      if (!req || !m.refused) return;
      const version = revisionOf(req) ?? (req.method === 'initialize' ? params(req).protocolVersion : undefined);
      const { supported, requested, seq } = m.refused;
      if (
        typeof version !== 'string' ||
        (supported ? supported.includes(version) : version !== requested) ||
        !state.once(`VER-CLIENT-RETRY:${version}`)
      )
        return;
      report(
        revisionOf(req) ? '/params/_meta/io.modelcontextprotocol~1protocolVersion' : '/params/protocolVersion',
        `${String(req.method)} asks for ${version} after the server refused it (-32022 in message #${seq}${supported ? `, supported: ${supported.join(', ')}` : ''}); retry with a supported version or surface the error`,
      );
    },
  },
  {
    id: 'VER-EXT-FALLBACK',
    level: 'MUST',
    obs: 'N',
    era: 'modern',
    source: 'basic/versioning.mdx §Extension Negotiation',
    title: 'No extension methods to a server that did not declare the extension',
    on: [...TASK_METHODS].map((m): Interest => `client-request ${m}`),
    check(o, report, state) {
      const m = memoryOf(o, state);
      const req = clientRequest(o);
      if (!req || !TASK_METHODS.has(String(req.method)) || !m.discovered || TASKS in extensionsOf(m.discovered)) return;
      const taskId = params(req).taskId;
      if (typeof taskId === 'string' && m.taskIds.has(taskId)) return; // the server handed this task out itself
      report(
        '/method',
        `${String(req.method)} belongs to the ${TASKS} extension, which the server's server/discover capabilities do not declare; revert to core behaviour`,
      );
    },
  },
  {
    id: 'VER-DUAL-ERA',
    level: 'desc',
    obs: 'N',
    era: 'legacy',
    source: 'basic/versioning.mdx §Compatibility Matrix',
    title: 'A session opened with initialize gets legacy answers, never input_required',
    on: ['server-input_required'],
    check(o, report, state) {
      memoryOf(o, state);
      if (result(o)?.resultType === 'input_required' && o.request?.era === 'legacy') {
        report(
          '/result/resultType',
          `input_required answers ${o.request.method} in a session that initialize set to ${o.revision ?? 'a 2025 revision'}; legacy semantics ask through server requests (elicitation/create, sampling/createMessage, roots/list)`,
        );
      }
    },
  },
];

/** A JSON-RPC 2.0 request as the spec has it: `jsonrpc` "2.0", an id that is a string or an
 * integer, and `params` (when present) an object. */
function wellFormed(request: Record<string, unknown>): boolean {
  const id = request.id;
  return (
    request.jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isInteger(id)) &&
    (request.params === undefined || isObject(request.params))
  );
}
