import type { FrameInfo, RecordedMessage } from '../message.js';
import { writeBase64String, writeIndented, writeJsonString, type TextSink } from './json-emit.js';
import { scanPieces } from './json-scan.js';
import type { SpilledBytes } from './spill.js';

/**
 * A field of a message whose frame was spilled (spill.ts): the cassette writer streams it from the
 * spill file. Anything else that serialises it (`JSON.stringify`) gets the real value through
 * `toJSON`, at the memory cost the spill avoids.
 */
export abstract class SpilledField {
  constructor(readonly bytes: SpilledBytes) {}
  /** Writes the field's JSON text; `margin` is the indentation of its line. */
  abstract writeTo(sink: TextSink, margin: number): void;
  abstract toJSON(): unknown;
}

/** The frame parsed (`json`). */
export class SpilledJson extends SpilledField {
  writeTo(sink: TextSink, margin: number): void {
    writeIndented(this.bytes.pieces(), margin, sink);
  }

  toJSON(): unknown {
    return JSON.parse(this.bytes.read().toString('utf8'));
  }
}

/** The frame's exact text (`raw`). */
export class SpilledText extends SpilledField {
  writeTo(sink: TextSink): void {
    writeJsonString(this.bytes.pieces(), sink);
  }

  toJSON(): string {
    return this.bytes.read().toString('utf8');
  }
}

/** The frame's exact bytes, not UTF-8 (`rawBase64`). */
export class SpilledBase64 extends SpilledField {
  writeTo(sink: TextSink): void {
    writeBase64String(this.bytes.pieces(), sink);
  }

  toJSON(): string {
    return this.bytes.read().toString('base64');
  }
}

export function isSpilled(v: unknown): v is SpilledField {
  return v instanceof SpilledField;
}

/** The fields of a message that a spilled frame leaves in the spill file. */
const SPILLABLE = ['json', 'raw', 'rawBase64'] as const;

/** Whether a message holds any field in the spill file. */
export function hasSpilledField(m: object): boolean {
  const r = m as Record<string, unknown>;
  return SPILLABLE.some((key) => isSpilled(r[key]));
}

/** The message with its spilled fields read into memory (for code that needs the values, such as
 * the rules), at the memory cost the spill avoids; the message itself is left as it is. */
export function inMemory(m: RecordedMessage): RecordedMessage {
  if (!hasSpilledField(m)) return m;
  const out: Record<string, unknown> = { ...m };
  for (const key of SPILLABLE) {
    const v = out[key];
    if (isSpilled(v)) out[key] = v.toJSON();
  }
  return out as unknown as RecordedMessage;
}

/**
 * `frameToMessage` for a spilled frame: the same fields in the same order, the frame's text or
 * value left in the spill file. `parse: false` for frames that are never JSON (stderr).
 */
export function spilledToMessage(bytes: SpilledBytes, info: FrameInfo, parse = info.channel !== 'stderr'): RecordedMessage {
  const scan = scanPieces(bytes.pieces(), parse);
  const base = { seq: info.seq, t: info.t, direction: info.direction, channel: info.channel };
  // The placeholders stand where frameToMessage puts strings and values.
  const field = <T>(f: SpilledField): T => f as unknown as T;
  let msg: RecordedMessage;
  if (!scan.utf8) msg = { ...base, kind: 'text', bytes: bytes.length, rawBase64: field<string>(new SpilledBase64(bytes)) };
  else if (!scan.json) msg = { ...base, kind: 'text', bytes: bytes.length, raw: field<string>(new SpilledText(bytes)) };
  else if (scan.json.tooDeep) {
    // Not parsed at all (frameToMessage keeps the top-level scalars; a spilled frame is not in
    // memory to read them from): only the text, marked.
    msg = { ...base, kind: scan.json.kind, bytes: bytes.length, raw: field<string>(new SpilledText(bytes)), tooDeep: true };
  } else {
    msg = { ...base, kind: scan.json.kind, bytes: bytes.length, json: new SpilledJson(bytes) };
    if (!scan.json.canonical) msg.raw = field<string>(new SpilledText(bytes));
  }
  if (!info.terminated) msg.unterminated = true;
  if (info.http) msg.http = info.http;
  return msg;
}
