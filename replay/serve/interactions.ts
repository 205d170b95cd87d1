/**
 * Reads a cassette as a mock server needs it: every client message (request or notification) with
 * the server frames it caused, in recorded order. Pairs are derived here, never stored (the
 * cassette is a flat stream, see lib/cassette/cassette.ts), so server-initiated frames keep their
 * place: progress, log and list-changed notifications and 2025-era server→client requests are
 * sent while the request is open (`during`) or right after its answer (`after`), as recorded.
 */
import type { Cassette, RecordedSession } from '../../lib/cassette/cassette.js';
import { messageValue, type RecordedMessage } from '../../lib/message.js';
import { progressTokenOf } from '../../lib/progress-token.js';
import { storedHeader } from '../../lib/http-headers.js';
import type { TransportKind } from '../../lib/cassette/cassette.js';

export type Json = Record<string, unknown>;

/** One server→client frame to play, with the time it was recorded at (ms since session start). */
export interface ServerFrame {
  json: Json;
  t: number;
  kind: 'notification' | 'request' | 'response' | 'error';
  /** For a server→client request: what the client answered when it was recorded. */
  clientAnswer?: Json;
}

export interface Interaction {
  /** Position in the whole cassette's order (sessions by start time, then seq). */
  index: number;
  /** 1-based session number and the request's seq, as `mcp-cassette show` numbers them. */
  session: number;
  sessionId: string;
  seq: number;
  revision?: string;
  transport: TransportKind;
  method: string;
  /** A client notification (no answer) rather than a request. */
  notification: boolean;
  request: Json;
  t: number;
  /** Server frames recorded while the request was open, in order. */
  during: ServerFrame[];
  /** The answer (absent when none was recorded: a cut session). */
  response?: ServerFrame;
  /** Server frames recorded after the answer and before the client's next message. */
  after: ServerFrame[];
  /** HTTP recordings: the content type the answer came with. */
  contentType?: string;
  /** HTTP recordings: the answer carried an `Mcp-Session-Id` (a stateful 2025 server). */
  httpSessionId?: string;
  /** A stdio recording or a stateful HTTP one: server→client requests can reach the client. */
  stateful: boolean;
}

/** A JSON-RPC id as a map key (an absent id counts as null). */
export const idKey = (v: unknown): string => JSON.stringify(v ?? null);

function isJsonRpc(m: RecordedMessage): boolean {
  return (
    (m.json !== undefined || m.tooDeep === true) &&
    m.channel !== 'stderr' &&
    (m.kind === 'request' || m.kind === 'notification' || m.kind === 'response' || m.kind === 'error')
  );
}

/** Every interaction of every session, in recorded order. */
export function interactionsOf(cassette: Cassette): Interaction[] {
  const out: Interaction[] = [];
  cassette.sessions.forEach((session, i) => {
    for (const it of sessionInteractions(session, i + 1)) out.push({ ...it, index: out.length });
  });
  return out;
}

function sessionInteractions(session: RecordedSession, number: number): Interaction[] {
  const out: Interaction[] = [];
  const exchanges = new Map((session.exchanges ?? []).map((e) => [e.id, e]));
  const open = new Map<string, Interaction>();
  /** Server→client requests still waiting for the client's answer. */
  const serverRequests = new Map<string, ServerFrame>();
  const byExchange = new Map<number, Interaction>();
  let last: Interaction | undefined;
  const http = session.transport === 'streamable-http';

  for (const m of session.messages.filter(isJsonRpc)) {
    const json = messageValue(m) as Json;
    if (m.direction === 'client-to-server') {
      if (m.kind === 'request' || m.kind === 'notification') {
        const ex = m.http ? exchanges.get(m.http.exchange) : undefined;
        const it: Interaction = {
          index: 0,
          session: number,
          sessionId: session.id,
          seq: m.seq,
          ...(session.protocol.revision ? { revision: session.protocol.revision } : {}),
          transport: session.transport,
          method: String(json.method),
          notification: m.kind === 'notification',
          request: json,
          t: m.t,
          during: [],
          after: [],
          ...(ex?.contentType ? { contentType: ex.contentType } : {}),
          stateful: !http,
        };
        const sid = storedHeader(ex?.responseHeaders, 'mcp-session-id') ?? session.mcpSessionId;
        if (sid) {
          it.httpSessionId = sid;
          it.stateful = true;
        }
        out.push(it);
        last = it;
        if (m.kind === 'request') open.set(idKey(json.id), it);
        if (m.http) byExchange.set(m.http.exchange, it);
      } else {
        // The client's answer to a server→client request.
        const req = serverRequests.get(idKey(json.id));
        if (req) {
          req.clientAnswer = json;
          serverRequests.delete(idKey(json.id));
        }
      }
      continue;
    }
    const frame: ServerFrame = { json, t: m.t, kind: m.kind as ServerFrame['kind'] };
    if (m.kind === 'response' || m.kind === 'error') {
      const it = open.get(idKey(json.id));
      if (it && !it.response) {
        it.response = frame;
        open.delete(idKey(json.id));
        continue;
      }
      // An answer to nothing we know (a torn recording): keep it where it fell.
      (last?.response ? last.after : last?.during)?.push(frame);
      continue;
    }
    if (m.kind === 'request') serverRequests.set(idKey(json.id), frame);
    const owner = ownerOf(frame, m, open, byExchange, http);
    if (owner) owner.during.push(frame);
    else if (last) last.after.push(frame);
  }
  return out;
}

/** Which open request a server-initiated frame belongs to: its SSE stream's (HTTP), else its
 * progress token's, else the most recent open request. A frame on the standalone GET stream
 * while a request is open is that request's (a server→client request the tool waits on, as the
 * v1 SDK sends elicitation). Frames with no owner follow the client's last message. */
function ownerOf(
  frame: ServerFrame,
  m: RecordedMessage,
  open: Map<string, Interaction>,
  byExchange: Map<number, Interaction>,
  http: boolean,
): Interaction | undefined {
  if (http) {
    const it = m.http ? byExchange.get(m.http.exchange) : undefined;
    if (it) return !it.response && !it.notification ? it : undefined;
  }
  const method = frame.json.method;
  if (method === 'notifications/progress') {
    const token = (frame.json.params as Json | undefined)?.progressToken;
    for (const it of open.values()) if (token !== undefined && idKey(progressTokenOf(it.request)) === idKey(token)) return it;
  }
  let latest: Interaction | undefined;
  for (const it of open.values()) latest = it;
  return latest;
}
