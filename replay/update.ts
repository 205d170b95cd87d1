/**
 * `replay --update`: after a deliberate change to the server, re-record the cassette from the live
 * server. Every session that changed is replaced by what crossed the wire while it was replayed,
 * built with the cassette's own message model; every other session (unchanged, skipped, or never
 * replayed) stays byte for byte as it was.
 *
 * What the new session keeps from the recording:
 * - its `id`, `label`, place in the cassette and `startedAt` (so the cassette's order, which
 *   `record` keeps sorted by `startedAt`, does not move);
 * - the client side verbatim: each client message is the recorded one, except the values replay
 *   substitutes on the wire (the live `requestState` of an MRTR retry, the live pagination cursor),
 *   and with its recorded JSON-RPC id (live answers get the recorded request's id back, so the
 *   ids in the file stay the client's own and a diff shows only what the server changed);
 * - redactions: a value the recording holds as `[REDACTED]` stays masked in the new traffic, the
 *   server argv goes through the recorder's redaction (lib/redact.ts), HTTP response headers
 *   through its header masking (plus every header the cassette held masked and `--redact-header`).
 * What is new: the server's frames (exact bytes, unless an id was mapped back or a value masked),
 * timing, negotiated protocol facts, the HTTP exchanges, the server's exit. Live-validation
 * findings (`violations`) described the old traffic and are dropped; `mcp-cassette validate`
 * checks the new one.
 */
import type { Cassette, HttpTarget, RecordedSession, StdioTarget } from '../lib/cassette/cassette.js';
import { sessionFacts } from '../lib/cassette/session-info.js';
import { CassetteFile, loadCassette, withCassetteLock } from '../lib/cassette/store.js';
import { cassetteProblems } from '../lib/cassette/validate.js';
import { frameToMessage, messageValue, type RecordedMessage } from '../lib/message.js';
import { messageText } from '../lib/json-depth.js';
import { MASK, SECRET_HEADERS, redactArgv } from '../lib/redact.js';
import { packageVersion } from '../lib/version.js';
import { deepEqual, isObject } from './diff.js';
import type { LiveTape } from './live/tape.js';
import type { PlayOutcome } from './play-model.js';
import { carryArgvRedactions, carryRedactions, hasRedactions } from '../lib/masked-values.js';
import type { SessionResult, UpdateResult } from './types.js';

type Json = Record<string, unknown>;
const key = (v: unknown) => JSON.stringify(v);

/** What replaying one session produced that an update needs. */
export interface TapedSession {
  recorded: RecordedSession;
  result: SessionResult;
  tape: LiveTape;
  play: Pick<PlayOutcome, 'sent' | 'recordedIds'>;
}

export interface LiveTarget {
  command?: readonly string[];
  url?: string;
  cwd: string;
}

/** Header names to mask in live HTTP answers: the recorder's defaults, `--redact-header`, and every
 * header the cassette already holds masked (a `--redact-header` the recorder was given). */
export function secretHeadersOf(cassette: Cassette, extra: readonly string[] = []): string[] {
  const names = new Set([...SECRET_HEADERS, ...extra.map((h) => h.toLowerCase())]);
  for (const s of cassette.sessions) {
    for (const x of s.exchanges ?? []) {
      for (const headers of [x.requestHeaders, x.responseHeaders ?? {}]) {
        for (const [name, value] of Object.entries(headers)) {
          if ((Array.isArray(value) ? value : [value]).some((v) => v.includes(MASK))) names.add(name.toLowerCase());
        }
      }
    }
  }
  return [...names];
}

/** Whether a replayed session should be re-recorded: it changed (any verdict). */
export function needsUpdate(result: SessionResult): boolean {
  return result.outcome === 'breaking' || result.outcome === 'changed' || result.outcome === 'warning' || result.outcome === 'compatible';
}

/** The recorded messages a live server frame is paired with, for carrying redactions over. */
function recordedCounterparts(recorded: RecordedSession) {
  const responses = new Map<string, RecordedMessage>();
  const byMethod = new Map<string, RecordedMessage[]>();
  for (const m of recorded.messages) {
    if (m.direction !== 'server-to-client' || !isObject(m.json)) continue;
    if (m.kind === 'response' || m.kind === 'error') responses.set(key(m.json.id), m);
    else if (m.kind === 'request' || m.kind === 'notification') {
      const method = `${m.kind}:${String(m.json.method)}`;
      const list = byMethod.get(method);
      if (list) list.push(m);
      else byMethod.set(method, [m]);
    }
  }
  return { responses, byMethod };
}

/** Builds the session that replaces `recorded`: the live traffic in the cassette's message model. */
export function rebuildSession(taped: TapedSession, target: LiveTarget): RecordedSession {
  const { recorded, tape, play } = taped;
  const counterparts = recordedCounterparts(recorded);
  const seen = new Map<string, number>();
  let client = 0;
  const messages: RecordedMessage[] = [];
  for (const frame of tape.messages) {
    const info = {
      seq: frame.seq,
      t: frame.t,
      direction: frame.direction,
      channel: frame.channel,
      terminated: frame.unterminated !== true,
      ...(frame.http ? { http: frame.http } : {}),
    };
    const isClientFrame = frame.direction === 'client-to-server' && (frame.channel === 'stdin' || frame.http?.part === 'request');
    if (isClientFrame) {
      const sent = play.sent[client++];
      messages.push(sent ? clientMessage(frame, sent, play, info) : frame);
      continue;
    }
    if (frame.direction !== 'server-to-client' || !isObject(frame.json) || frame.channel === 'stderr') {
      messages.push(frame);
      continue;
    }
    messages.push(serverMessage(frame, play, counterparts, seen, info));
  }

  const facts = sessionFacts(messages);
  if (!facts.protocol.revision && recorded.transport === 'streamable-http') {
    const header = tape.exchanges.map((x) => x.requestHeaders['mcp-protocol-version']).find(Boolean);
    if (header) facts.protocol.revision = Array.isArray(header) ? header[0]! : header;
  }
  const duration = tape.durationMs;
  const session: RecordedSession = {
    id: recorded.id,
    ...(recorded.label !== undefined ? { label: recorded.label } : {}),
    transport: recorded.transport,
    startedAt: recorded.startedAt,
    endedAt: new Date(Date.parse(recorded.startedAt) + duration).toISOString(),
    durationMs: duration,
    target: liveTarget(recorded, target),
    ...(tape.mcpSessionId !== undefined ? { mcpSessionId: tape.mcpSessionId } : {}),
    protocol: facts.protocol,
    ...(facts.clientInfo ? { clientInfo: facts.clientInfo } : {}),
    ...(facts.serverInfo ? { serverInfo: facts.serverInfo } : {}),
    proxy: { pid: process.pid, version: packageVersion() },
    ...(tape.exit
      ? { end: { reason: 'exit' as const, exitCode: tape.exit.code, signal: tape.exit.signal, initiatedBy: 'host-eof' as const } }
      : {}),
    ...(recorded.transport === 'streamable-http' ? { exchanges: tape.exchanges } : {}),
    messages,
  };
  return session;
}

type FrameInfo = Parameters<typeof frameToMessage>[1];

/** A client frame of the live run: what the client sent, with the recorded ids back in place;
 * the recorded bytes when it is exactly what was recorded. */
function clientMessage(
  frame: RecordedMessage,
  sent: PlayOutcome['sent'][number],
  play: TapedSession['play'],
  info: FrameInfo,
): RecordedMessage {
  const json = structuredClone(sent.json);
  if (typeof json.method === 'string' && 'id' in json) json.id = play.recordedIds.get(key(json.id)) ?? json.id;
  if (json.method === 'notifications/cancelled' && isObject(json.params) && json.params.requestId !== undefined) {
    json.params.requestId = play.recordedIds.get(key(json.params.requestId)) ?? json.params.requestId;
  }
  if (!sent.synthetic && deepEqual(json, messageValue(sent.recorded))) {
    // Exactly what the client sent when it was recorded: keep its bytes.
    const { unterminated: _u, http: _h, ...kept } = sent.recorded;
    return { ...kept, seq: frame.seq, t: frame.t, ...(frame.http ? { http: frame.http } : {}) };
  }
  return frameToMessage(Buffer.from(messageText(json), 'utf8'), { ...info, terminated: true });
}

/** A server frame of the live run: answers carry the recorded ids, and what the recorded
 * counterpart held masked stays masked. `seen` counts server requests and notifications by method. */
function serverMessage(
  frame: RecordedMessage,
  play: TapedSession['play'],
  counterparts: ReturnType<typeof recordedCounterparts>,
  seen: Map<string, number>,
  info: FrameInfo,
): RecordedMessage {
  let json: Json = messageValue(frame) as Json;
  let counterpart: RecordedMessage | undefined;
  if (frame.kind === 'response' || frame.kind === 'error') {
    const recordedId = play.recordedIds.get(key(json.id));
    if (recordedId !== undefined) {
      json = { ...json, id: recordedId };
      counterpart = counterparts.responses.get(key(recordedId));
    }
  } else if (frame.kind === 'request' || frame.kind === 'notification') {
    const method = `${frame.kind}:${String(json.method)}`;
    const n = seen.get(method) ?? 0;
    seen.set(method, n + 1);
    counterpart = counterparts.byMethod.get(method)?.[n];
  }
  if (counterpart && hasRedactions(counterpart.json)) {
    const masked = carryRedactions(counterpart.json, json, { rehash: true }) as Json;
    if (!deepEqual(masked, json)) json = masked;
  }
  return json === messageValue(frame) ? frame : frameToMessage(Buffer.from(messageText(json), 'utf8'), info);
}

/** The live target as the recorder would store it: secrets in argv and URLs masked, and every
 * argument the recording held masked (a `--redact-arg`) masked again. */
function liveTarget(recorded: RecordedSession, live: LiveTarget): StdioTarget | HttpTarget {
  if (recorded.transport === 'streamable-http' || live.url !== undefined) {
    const was = recorded.target as Partial<HttpTarget>;
    const url = live.url ?? was.url ?? '';
    return { url: redactArgv([url])[0]!, listen: was.listen ?? '' };
  }
  const was = recorded.target as Partial<StdioTarget>;
  const command = redactArgv(live.command ?? []);
  return { command: was.command ? carryArgvRedactions(was.command, command) : command, cwd: live.cwd };
}

/**
 * Rewrites a cassette under its lock, atomically (a temporary file, renamed over it): the file is
 * read again under the lock and `edit` changes that copy, so sessions other recorders appended
 * meanwhile are kept; `edit` returns false to write nothing. Every session `edit` leaves alone is
 * written back byte for byte. `what` names the caller in the error for an invalid result.
 */
export async function rewriteCassette(path: string, what: string, edit: (current: Cassette) => Cassette | false): Promise<boolean> {
  return withCassetteLock(path, async () => {
    const next = edit(loadCassette(path));
    if (next === false) return false;
    const problems = cassetteProblems(next);
    if (problems.length) throw new Error(`${what} built an invalid cassette (nothing was written): ${problems.slice(0, 3).join('; ')}`);
    await new CassetteFile(path).write(next);
    return true;
  });
}

/** The sessions of `loaded` (as read before a replay), by id, as text: what `changedMeanwhile` compares. */
export function sessionTexts(loaded: Cassette): Map<string, string> {
  return new Map(loaded.sessions.map((s) => [s.id, key(s)]));
}

/** Why a session of the file being rewritten can no longer take what the replay found for it. */
export function changedMeanwhile(current: Cassette, before: ReadonlyMap<string, string>, id: string): string | undefined {
  const now = current.sessions.find((s) => s.id === id);
  if (!now) return 'the session was removed from the cassette while the replay ran';
  if (key(now) !== before.get(id)) return 'the session was changed by another process while the replay ran';
  return undefined;
}

/**
 * Replaces the changed sessions in the cassette file (see rewriteCassette). A session that was
 * removed or changed by someone else since the replay read it is not overwritten (a conflict).
 */
export async function writeUpdate(
  path: string,
  loaded: Cassette,
  replacements: ReadonlyMap<string, RecordedSession>,
): Promise<Pick<UpdateResult, 'written' | 'conflicts'>> {
  const before = sessionTexts(loaded);
  const conflicts: UpdateResult['conflicts'] = [];
  const written = await rewriteCassette(path, 'replay --update', (current) => {
    let replaced = 0;
    for (const [id, session] of replacements) {
      const reason = changedMeanwhile(current, before, id);
      if (reason) {
        conflicts.push({ id, reason });
        continue;
      }
      current.sessions[current.sessions.findIndex((s) => s.id === id)] = session;
      replaced += 1;
    }
    return replaced > 0 && current;
  });
  return { written, conflicts };
}
