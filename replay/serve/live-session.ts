/**
 * What the serve engine (engine.ts) and its front ends and fallbacks share about one live client:
 * the session (revision, waiters for its answers, cancelled requests), the outlet server frames
 * are written to, and the contract of a real server behind the cassette.
 */
import type { Json } from './interactions.js';

/** Where the engine writes server frames for one request (a stdio pipe, an SSE stream, a JSON body). */
export interface Outlet {
  send(frame: Json): void;
  /** True once the client went away (HTTP connection closed). */
  closed?(): boolean;
  /** HTTP: the headers of the client's request this outlet answers (lower-case names), which a
   * real Streamable HTTP server may need too (`Authorization`, `Mcp-Method`, `Mcp-Param-*`). */
  requestHeaders?: Record<string, string>;
}

/** Answers what the cassette does not hold by asking the real server (record mode
 * `new_episodes`; with an empty cassette, every request: recording and passthrough bridges). */
export interface Fallback {
  forward(request: Json, live: LiveSession, outlet: Outlet): Promise<void>;
  /** A client notification, for the real server when this client already talks to it. */
  notify?(message: Json, live: LiveSession): Promise<void>;
  /** A client→server response that may belong to a request the real server sent. */
  deliver(message: Json, live: LiveSession): boolean;
  /** The client ended its session (HTTP DELETE): end the real server's side of it. */
  release?(live: LiveSession): Promise<void>;
  close(): Promise<void>;
}

/** One live client connection (a stdio process, an HTTP session or the stateless HTTP side). */
export class LiveSession {
  revision?: string;
  /** The live `initialize` request, which a fallback server needs for its own handshake. */
  initialize?: Json;
  /** Where frames that belong to no request go (stdout; HTTP: the session's GET stream). */
  outlet?: Outlet;
  /** Waiters for the client's answers to server→client requests; `undefined` means the client
   * went away first. */
  readonly pending = new Map<string, (answer: Json | undefined) => void>();
  readonly cancelled = new Set<string>();
  constructor(readonly id: string) {}
}
