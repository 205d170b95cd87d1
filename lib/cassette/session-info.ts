import { isSpilled } from '../framing/spilled-message.js';
import type { RecordedMessage } from '../message.js';
import type { PeerInfo, ProtocolInfo } from './cassette.js';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';

export interface SessionFacts {
  protocol: ProtocolInfo;
  clientInfo?: PeerInfo;
  serverInfo?: PeerInfo;
}

type Json = Record<string, unknown>;

/**
 * Reads what a session negotiated from its frames. Responses are matched to the request sent in
 * the opposite direction, because 2025-era server→client requests reuse the client's ids.
 */
export function sessionFacts(messages: readonly RecordedMessage[]): SessionFacts {
  const facts: SessionFacts = { protocol: {} };
  const p = facts.protocol;
  const pending = { 'client-to-server': new Map<string, string>(), 'server-to-client': new Map<string, string>() };

  for (const msg of messages) {
    const m = asObject(msg.json);
    if (!m) continue;
    if (msg.kind === 'request') {
      pending[msg.direction].set(JSON.stringify(m.id), m.method as string);
      if (msg.direction !== 'client-to-server') continue;
      const params = asObject(m.params);
      const meta = asObject(params?._meta);
      if (m.method === 'initialize') {
        if (typeof params?.protocolVersion === 'string') p.requested = params.protocolVersion;
        facts.clientInfo ??= asObject(params?.clientInfo) as PeerInfo | undefined;
      } else if (meta && typeof meta[META_VERSION] === 'string') {
        facts.clientInfo ??= asObject(meta[META_CLIENT_INFO]) as PeerInfo | undefined;
        if (m.method !== 'server/discover' && p.revision === undefined) {
          p.revision = meta[META_VERSION] as string;
          p.era = 'modern';
          p.negotiation ??= 'envelope';
        }
      }
      continue;
    }
    if (msg.kind !== 'response' && msg.kind !== 'error') continue;
    const other = msg.direction === 'server-to-client' ? 'client-to-server' : 'server-to-client';
    const key = JSON.stringify(m.id);
    const method = pending[other].get(key);
    pending[other].delete(key);
    if (msg.direction !== 'server-to-client') continue;
    const result = asObject(m.result);
    const metaInfo = asObject(asObject(result?._meta)?.[META_SERVER_INFO]);
    if (metaInfo) facts.serverInfo ??= metaInfo as PeerInfo;
    if (method === 'server/discover') {
      if (result && Array.isArray(result.supportedVersions)) {
        p.discover = { supportedVersions: result.supportedVersions.filter((v): v is string => typeof v === 'string') };
        p.negotiation = 'discover';
        p.era ??= 'modern';
      } else {
        const code = asObject(m.error)?.code;
        if (typeof code === 'number') p.discover = { errorCode: code };
      }
    } else if (method === 'initialize' && result) {
      if (typeof result.protocolVersion === 'string') {
        p.revision = result.protocolVersion;
        p.era = 'legacy';
        p.negotiation = 'initialize';
      }
      facts.serverInfo ??= asObject(result.serverInfo) as PeerInfo | undefined;
    }
  }
  // A discover answer with no later modern request (a probe process) still tells the revision
  // the server offered; take the newest it listed.
  if (p.revision === undefined && p.discover?.supportedVersions?.length) {
    p.revision = [...p.discover.supportedVersions].sort().at(-1);
  }
  if (p.requested !== undefined && p.requested === p.revision) delete p.requested;
  if (facts.clientInfo === undefined) delete facts.clientInfo;
  if (facts.serverInfo === undefined) delete facts.serverInfo;
  return facts;
}

function asObject(v: unknown): Json | undefined {
  // A spilled frame (over 4 MB, still in the spill file) tells nothing of the handshake.
  return v !== null && typeof v === 'object' && !Array.isArray(v) && !isSpilled(v) ? (v as Json) : undefined;
}
