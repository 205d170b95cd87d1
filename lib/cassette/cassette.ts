import type { RecordedMessage } from '../message.js';
import type { Violation } from '../violation.js';

/** How a host reaches a server: a child process's pipes, or Streamable HTTP (one name for it everywhere). */
export type TransportKind = 'stdio' | 'streamable-http';

/**
 * Cassette format v1: one JSON file holding one or more recorded sessions, each a flat ordered
 * stream of frames. Pairs (request/response) are derived when reading, never stored, so
 * server-initiated messages keep their place in the stream. The JSON Schema is
 * lib/cassette/cassette.schema.json; `version` lets later formats migrate old files.
 */
export const CASSETTE_FORMAT = 'mcp-cassette';
export const CASSETTE_VERSION = 2;
/** The additive changes to format 2 this release knows (new optional fields), in `minorVersion`
 * (absent: 0). A cassette of a newer minor is read all the same: store.ts, docs/cassette-format.md.
 * 1 added `finding` (a cassette `mcp-cassette fuzz` wrote); only a cassette that holds one says so. */
export const CASSETTE_MINOR_VERSION = 1;

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
   * journal of a proxy that died before it could finish the cassette; `continued`: the session
   * went on in the next cassette of a `record --cassette-dir` directory. */
  reason: 'exit' | 'recovered' | 'continued';
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

export interface HttpTarget {
  /** The upstream MCP endpoint the proxy forwarded to. */
  url: string;
  /** The proxy's own endpoint that clients used. */
  listen: string;
}

export type HttpHeaders = Record<string, string | string[]>;

/**
 * One HTTP request/response exchange through the proxy. Its JSON-RPC messages are in the
 * session's `messages` with `http.exchange` set to this `id`. Secret headers (Authorization,
 * cookies, `--redact-header`) keep their scheme and lose their value before anything is written.
 */
export interface HttpExchange {
  id: number;
  /** Milliseconds since the session started, when the request arrived. */
  t: number;
  method: string;
  path: string;
  requestHeaders: HttpHeaders;
  status?: number;
  responseHeaders?: HttpHeaders;
  contentType?: string;
  /** When the response ended (or was cut). */
  endT?: number;
  /** `complete`; `client-aborted` (the client dropped the connection, which on 2026-07-28 means
   * cancellation; the upstream request was aborted); `upstream-error` (unreachable, reset);
   * `refused` (the proxy answered itself: Host/Origin check, body too large); `continued` (the
   * proxy moved on to the next cassette of its directory while the exchange was in flight,
   * `record --cassette-dir`: the rest of it is in that cassette). */
  outcome: 'complete' | 'client-aborted' | 'upstream-error' | 'refused' | 'continued';
  error?: string;
  /** False for traffic outside the MCP endpoint (OAuth discovery, health checks): forwarded and
   * noted, bodies not parsed. */
  mcp: boolean;
  /** Outside the MCP endpoint, the body of an OAuth Protected Resource Metadata answer (GET
   * /.well-known/oauth-protected-resource[/…]) when it is UTF-8 and at most 64 KB, for the
   * authorization rules. No other non-MCP body is kept. */
  responseBody?: string;
  /** The `iss` and `aud` claims of a JWT bearer token, read before the Authorization header was
   * masked. Never the token itself, never any other claim. */
  tokenClaims?: TokenClaims;
  /** Who asked: a truncated SHA-256 of the request's Authorization value, salted per proxy run
   * (never the value; equal within one recording for equal credentials). The validator keys its
   * server context by it. */
  caller?: string;
}

/** The non-secret claims kept of a JWT access token (AUTH-OWN-AS-ONLY). */
export interface TokenClaims {
  iss?: string;
  aud?: string | string[];
}

export interface RecordedSession {
  id: string;
  label?: string;
  transport: TransportKind;
  startedAt: string;
  endedAt?: string;
  durationMs?: number;
  target: StdioTarget | HttpTarget;
  /** The 2025-era `Mcp-Session-Id` that groups this session's exchanges. Stateless exchanges
   * (2026-07-28, or 2025 servers without sessions) each get a session of their own. */
  mcpSessionId?: string;
  protocol: ProtocolInfo;
  clientInfo?: PeerInfo;
  serverInfo?: PeerInfo;
  proxy: { pid: number; version: string };
  end?: SessionEnd;
  /** Spec violations the live validator raised while the session was recorded. */
  violations?: Violation[];
  exchanges?: HttpExchange[];
  messages: RecordedMessage[];
}

/** The shape of `calibration`; versioned on its own, so it can change without a new cassette
 * format (a cassette without it is untouched). Version 1 stored whole paths only; version 2 adds
 * token templates and keeps paths for keys that come and go. Both are read. */
export const CALIBRATION_VERSION = 2;

/** What `replay --calibrate` learned about one recorded request. `method` and `name` say which
 * request the key points at; replay applies what was learned only while they still match. */
export interface CalibratedInteraction {
  method: string;
  name?: string;
  /** Left out of the comparison: keys with a scalar value that come and go between runs (in a
   * version 1 calibration: any path whose value differed). */
  paths: string[];
  /** Per JSON Pointer, the string with its varying tokens as holes (replay/templates.ts). */
  templates?: Record<string, string>;
}

/** `replay --calibrate`'s findings: per session id, per request (keyed by its 1-based index among
 * the client's requests in that session, which `replay --update` keeps). */
export interface Calibration {
  version: 1 | typeof CALIBRATION_VERSION;
  /** How many live runs the paths were learned from. */
  runs: number;
  calibratedAt: string;
  sessions: Record<string, Record<string, CalibratedInteraction>>;
}

/** What `mcp-cassette fuzz` saw the server do wrong; lib/fuzz-finding.ts says how each is seen. */
export type FindingKind = 'crash' | 'hang' | 'stderr-panic' | 'stdout-noise' | 'rule' | 'error-misuse';

/**
 * A cassette that `mcp-cassette fuzz` wrote holds one finding, shrunk to its minimal session.
 * Replaying it checks whether the finding is still there (exit 1) or fixed (exit 0), rather than
 * comparing the answers: the recorded answers are the faulty ones.
 */
export interface CassetteFinding {
  kind: FindingKind;
  /** `rule` and `error-misuse`: the rule ID in the rule catalogue. */
  rule?: string;
  /** What makes two findings the same one: the kind, the rule or the crash's signature, and the
   * method and tool it happened on. */
  signature: string;
  /** One line: what the server did. */
  message: string;
  /** The `seq`, in the session, of the request that drew it. */
  seq: number;
  method: string;
  tool?: string;
  /** The request's arguments broke the tool's or prompt's recorded schema (what `error-misuse`
   * expects depends on it). */
  invalidArguments?: true;
  /** `hang`: how long the request went unanswered before it counted as hung, in ms. */
  timeoutMs?: number;
  /** How the fuzzer got there: rerun with the same seed to get the same cases. */
  fuzz: { seed: number; case: string; mutation: string; change: string; version: string };
}

export interface Cassette {
  format: typeof CASSETTE_FORMAT;
  version: typeof CASSETTE_VERSION;
  /** Written by a release that added optional fields to format 2; absent: 0. */
  minorVersion?: number;
  calibration?: Calibration;
  /** Format 2.1: a finding of `mcp-cassette fuzz` (its replay checks the finding). */
  finding?: CassetteFinding;
  sessions: RecordedSession[];
}

export function emptyCassette(): Cassette {
  return { format: CASSETTE_FORMAT, version: CASSETTE_VERSION, sessions: [] };
}
