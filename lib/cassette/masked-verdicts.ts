/**
 * Verdicts that survive redaction: the one home of "stored live verdicts with masked evidence".
 *
 * The live validator judges the traffic as it crossed the proxy; the capture filter then masks
 * what the cassette keeps (the credential shapes, `--redact-path`, `--redact-value`, `--capture
 * metadata|hashed`). Re-judging the stored messages (`validate`, `check`) cannot see what was
 * masked, so a verdict about it (SEC-SECRET-LEAK on a leaked key) would vanish. A stored verdict
 * that re-judging does not reproduce is kept, marked `evidence: 'masked'`, when the place it
 * points at (its message by seq, the value by JSON Pointer) was masked at capture: masked values
 * carry their marker (lib/masked-values.ts). A stored verdict whose evidence is still there and
 * that re-judging no longer finds is dropped, as ever: re-judging is the truth, and a verdict
 * stored by an older release may differ.
 */
import { pointerKeys } from '../json-pointer.js';
import type { RecordedMessage } from '../message.js';
import { CAPTURE_META, hasRedactions, isMasked } from '../masked-values.js';
import { isObject } from '../plain-object.js';
import type { Violation } from '../violation.js';
import type { RecordedSession } from './cassette.js';

/** What every report says of such a verdict. */
export const MASKED_EVIDENCE_NOTE = 'seen live; evidence masked';

/** A verdict as the reports carry it: `evidence: 'masked'` when it comes from the live validator
 * and the cassette holds its evidence masked. */
export type Verdict = Violation & { evidence?: 'masked' };

/** The message of a verdict as the text reports print it: with the note when its evidence is masked. */
export function verdictText(v: Pick<Verdict, 'message' | 'evidence'>): string {
  return v.evidence === 'masked' ? `${v.message} (${MASKED_EVIDENCE_NOTE})` : v.message;
}

/** Whether `--capture metadata|hashed` reduced this JSON message: it says so in its `_meta`
 * (params, result), its `error.data`, or at its top (a frame that was not JSON-RPC). */
function reducedAtCapture(json: unknown): boolean {
  if (Array.isArray(json)) return json.some(reducedAtCapture);
  if (!isObject(json)) return false;
  const marked = (o: unknown): boolean => isObject(o) && (CAPTURE_META in o || (isObject(o._meta) && CAPTURE_META in o._meta));
  return marked(json) || marked(json.params) || marked(json.result) || (isObject(json.error) && marked(json.error.data));
}

/** The frame's text when it is not walked as JSON (a stderr line, non-JSON stdout, too deep). */
function frameText(m: RecordedMessage): string {
  if (m.raw !== undefined) return m.raw;
  return m.rawBase64 !== undefined ? Buffer.from(m.rawBase64, 'base64').toString('latin1') : '';
}

/**
 * Whether the evidence at `path` of the stored message `m` was masked at capture: the value
 * there holds a masked value, the path runs into one (a `--redact-path` that masked a whole
 * object), or the message was reduced by `--capture metadata|hashed`.
 */
export function evidenceMasked(m: RecordedMessage | undefined, path: string): boolean {
  if (!m) return false;
  if (m.json === undefined || m.tooDeep) return isMasked(frameText(m));
  if (reducedAtCapture(m.json)) return true;
  let v: unknown = m.json;
  for (const key of pointerKeys(path)) {
    if (typeof v === 'string') return isMasked(v);
    const next = Array.isArray(v) ? v[Number(key)] : isObject(v) ? v[key] : undefined;
    if (next === undefined) return false;
    v = next;
  }
  return hasRedactions(v);
}

const keyOf = (v: Violation): string => `${v.rule}\u0000${v.session}\u0000${v.seq}\u0000${v.path}`;

const messagesBySeq = (messages: readonly RecordedMessage[]): Map<number, RecordedMessage> => new Map(messages.map((m) => [m.seq, m]));

/**
 * The stored (live) verdicts of `session` that `rejudged` (the verdicts re-judging gave, of this
 * session or of the whole cassette) does not reproduce and whose evidence was masked at capture,
 * each once, marked `evidence: 'masked'`.
 */
export function maskedLiveVerdicts(session: RecordedSession, rejudged: readonly Violation[]): Verdict[] {
  const stored = session.violations ?? [];
  if (stored.length === 0) return [];
  const found = new Set(rejudged.map(keyOf));
  const bySeq = messagesBySeq(session.messages);
  const out: Verdict[] = [];
  for (const v of stored) {
    const key = keyOf(v);
    if (found.has(key) || !evidenceMasked(bySeq.get(v.seq), v.path)) continue;
    found.add(key);
    out.push({ ...v, session: session.id, evidence: 'masked' });
  }
  return out;
}

/** Stored (or live) verdicts with those whose evidence is masked in `messages` marked, for a
 * reader that shows them without re-judging (`view`, `record --ui`). */
export function markMaskedEvidence(messages: readonly RecordedMessage[], violations: readonly Violation[]): Verdict[] {
  const bySeq = messagesBySeq(messages);
  return violations.map((v) => (evidenceMasked(bySeq.get(v.seq), v.path) ? { ...v, evidence: 'masked' as const } : v));
}
