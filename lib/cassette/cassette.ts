import type { RecordedMessage } from '../message.js';

/**
 * Cassette format v1: one JSON file holding one or more recorded sessions, each a flat ordered
 * stream of frames. Pairs (request/response) are derived when reading, never stored, so
 * server-initiated messages keep their place in the stream. The JSON Schema is
 * lib/cassette/cassette.schema.json; `version` lets later formats migrate old files.
 */
export const CASSETTE_FORMAT = 'mcp-cassette';
export const CASSETTE_VERSION = 1;

export type Era = 'modern' | 'legacy';

export interface ProtocolInfo {
  /** The revision the session ran on, when it could be decided from the traffic. */
  revision?: string;
  era?: Era;
  /** How the revision was settled: an `initialize` handshake, a `server/discover` answer, or
   * the first enveloped request of a 2026-07-28 session that skipped both. */
  negotiation?: 'initialize' | 'discover' | 'envelope';
  /** What a `server/discover` probe got, when the client sent one. */
  discover?: { supportedVersions?: string[]; errorCode?: number };
  /** The revision the client asked for in `initialize`, when it differs from the answer. */
  requested?: string;
}

export interface PeerInfo {
  name?: string;
  version?: string;
  [key: string]: unknown;
}

export interface SessionEnd {
  /** `exit`: the server ended by itself or after EOF/signal; `recovered`: rebuilt from the
   * journal of a proxy that died before it could finish the cassette. */
  reason: 'exit' | 'recovered';
  exitCode: number | null;
  signal: string | null;
  /** What started the shutdown, when the proxy did. */
  initiatedBy?: 'host-eof' | 'proxy-signal' | 'host-gone';
  /** The journal ended inside a record: the last frame may be cut short. */
  torn?: true;
}

export interface StdioTarget {
  /** argv of the server, with secrets masked. Environment values are never stored. */
  command: string[];
  cwd: string;
}

export interface RecordedSession {
  id: string;
  label?: string;
  transport: 'stdio';
  startedAt: string;
  endedAt?: string;
  durationMs?: number;
  target: StdioTarget;
  protocol: ProtocolInfo;
  clientInfo?: PeerInfo;
  serverInfo?: PeerInfo;
  proxy: { pid: number; version: string };
  end?: SessionEnd;
  messages: RecordedMessage[];
}

export interface Cassette {
  format: typeof CASSETTE_FORMAT;
  version: typeof CASSETTE_VERSION;
  sessions: RecordedSession[];
}

export function emptyCassette(): Cassette {
  return { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, sessions: [] };
}
