import { isUtf8 } from 'node:buffer';
import { deepStandIn, shallowEnvelope, textTooDeep } from './json-depth.js';

/**
 * The message model shared by every transport, the recorder, the validators and replay.
 * A frame's bytes are the truth; parsing is a view on them (STYLE guideline 4).
 */
export type Direction = 'client-to-server' | 'server-to-client';

/** Where a frame travelled: one of the three stdio pipes, or an HTTP body (see `http`). */
export type Channel = 'stdin' | 'stdout' | 'stderr' | 'http';

/** Where an HTTP frame sat: a request body, a JSON response body, or one event of an SSE stream. */
export interface HttpFrameInfo {
  /** The `id` of the exchange in the session's `exchanges`. */
  exchange: number;
  part: 'request' | 'response' | 'sse';
  /** The SSE event's fields, for `part: 'sse'`. */
  sse?: { id?: string; event?: string; retry?: number };
}

/**
 * What a frame is. `non-jsonrpc` parses as JSON but is no JSON-RPC 2.0 message; `text` does not
 * parse at all (a log line on stdout, a stderr line).
 */
export type MessageKind = 'request' | 'notification' | 'response' | 'error' | 'batch' | 'non-jsonrpc' | 'text';

/** One frame as stored in a cassette. `json` is kept when the frame parses; the exact bytes are
 * kept in `raw` (UTF-8 text) or `rawBase64` (not valid UTF-8) whenever they cannot be rebuilt as
 * `JSON.stringify(json)`, so a cassette stays readable and still holds every byte. */
export interface RecordedMessage {
  seq: number;
  /** Milliseconds since the session started, when the frame was complete. */
  t: number;
  direction: Direction;
  channel: Channel;
  kind: MessageKind;
  /** Frame length in bytes, without the terminating newline. */
  bytes: number;
  json?: unknown;
  raw?: string;
  rawBase64?: string;
  /** Present (true) only for trailing bytes that ended without a newline. */
  unterminated?: true;
  /** The frame is JSON nested deeper than MAX_JSON_DEPTH levels (lib/json-depth.ts): its bytes
   * are in `raw`, `json` keeps only its top-level members that are not objects or arrays, and
   * nothing walks into it (validators report it not judged; replay and serve compare `raw`). */
  tooDeep?: true;
  http?: HttpFrameInfo;
}

export function classify(json: unknown): MessageKind {
  if (Array.isArray(json)) return 'batch';
  if (json === null || typeof json !== 'object') return 'non-jsonrpc';
  const m = json as Record<string, unknown>;
  if (m.jsonrpc !== '2.0') return 'non-jsonrpc';
  if (typeof m.method === 'string') return 'id' in m ? 'request' : 'notification';
  if ('error' in m) return 'error';
  if ('result' in m) return 'response';
  return 'non-jsonrpc';
}

export interface FrameInfo {
  seq: number;
  t: number;
  direction: Direction;
  channel: Channel;
  terminated: boolean;
  http?: HttpFrameInfo;
}

/** Turns the exact bytes of one frame into its cassette form. */
export function frameToMessage(frame: Buffer, info: FrameInfo): RecordedMessage {
  // Object literals with the members in cassette order (seq, t, direction, channel, kind, bytes,
  // json, raw...): spreading a shared base object cost more than parsing the frame (live
  // validator profile, issue 17).
  const { seq, t, direction, channel } = info;
  let msg: RecordedMessage;
  if (!isUtf8(frame)) {
    msg = { seq, t, direction, channel, kind: 'text', bytes: frame.length, rawBase64: frame.toString('base64') };
  } else {
    const text = frame.toString('utf8');
    const json = channel === 'stderr' ? undefined : tryParse(text);
    if (json === undefined) {
      msg = { seq, t, direction, channel, kind: 'text', bytes: frame.length, raw: text };
    } else if (textTooDeep(text)) {
      msg = { seq, t, direction, channel, kind: classify(json.value), bytes: frame.length };
      const envelope = shallowEnvelope(json.value);
      if (envelope) msg.json = envelope;
      msg.raw = text;
      msg.tooDeep = true;
    } else {
      msg = { seq, t, direction, channel, kind: classify(json.value), bytes: frame.length, json: json.value };
      if (JSON.stringify(json.value) !== text) msg.raw = text;
    }
  }
  if (!info.terminated) msg.unterminated = true;
  if (info.http) msg.http = info.http;
  return msg;
}

function tryParse(text: string): { value: unknown } | undefined {
  // An empty line or bare whitespace is a frame too, but not a JSON value.
  if (text.trim() === '') return undefined;
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** The exact bytes of a recorded frame, newline excluded. */
export function messageBytes(msg: RecordedMessage): Buffer {
  if (msg.rawBase64 !== undefined) return Buffer.from(msg.rawBase64, 'base64');
  if (msg.raw !== undefined) return Buffer.from(msg.raw, 'utf8');
  return Buffer.from(JSON.stringify(msg.json), 'utf8');
}

/** Stand-ins for too-deep frames, made once each. */
const standIns = new WeakMap<RecordedMessage, unknown>();

/**
 * A recorded message's value for code that compares or matches values (replay, serve): `json`,
 * or for a too-deep frame its stand-in (lib/json-depth.ts DEEP_TEXT: the top-level scalars and
 * the whole text as one string), so no walk descends into it and any change is a change of text.
 */
export function messageValue(m: RecordedMessage): unknown {
  if (!m.tooDeep || typeof m.raw !== 'string') return m.json;
  let s = standIns.get(m);
  if (s === undefined) standIns.set(m, (s = deepStandIn(m.raw)));
  return s;
}
