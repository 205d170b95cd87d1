/**
 * Ties the traffic of a replay (recorded through the proxy into a cassette of its own) back to
 * the cassette that was replayed, so a violation in the live traffic is reported at the recorded
 * message that prompted it: the line a reviewer opens, and the recorded value next to the live
 * one. The replay sends the recorded client messages in order (with ids of its own), so a replayed
 * session is the next recorded session whose first client methods are the same, and a live message
 * is tied to the client message it answers (same id) or follows, and that to the recorded client
 * message in the same position (the first one with its method, when the positions disagree).
 */
import type { RecordedSession } from '../lib/cassette/cassette.js';
import type { RecordedMessage } from '../lib/message.js';
import { pointerKeys, valueAtKeys } from '../lib/json-pointer.js';
import { isObject as isPlainObject } from '../lib/plain-object.js';

type Json = Record<string, unknown>;
const obj = (m: RecordedMessage | undefined): Json | undefined => (isPlainObject(m?.json) ? (m!.json as Json) : undefined);
const method = (m: RecordedMessage | undefined): unknown => obj(m)?.method;
/** The first client methods of a session: what a replay of it starts with too. */
const sig = (s: RecordedSession): string => JSON.stringify(clientMessages(s).slice(0, 3).map(method));
const clientMessages = (s: RecordedSession): RecordedMessage[] => s.messages.filter((m) => m.direction === 'client-to-server');

/** For each live session, the index of its recorded session (or -1): the next unused one that
 * starts with the same client methods, else with the same first one (a replay cut short sends
 * fewer). */
export function matchSessions(recorded: readonly RecordedSession[], live: readonly RecordedSession[]): number[] {
  const used = new Set<number>();
  let from = 0;
  const find = (key: (s: RecordedSession) => string, want: string): number => {
    for (let i = from; i < recorded.length; i++) if (!used.has(i) && key(recorded[i]!) === want) return i;
    return -1;
  };
  const first = (s: RecordedSession): string => JSON.stringify(method(clientMessages(s)[0]) ?? null);
  return live.map((l) => {
    let i = find(sig, sig(l));
    if (i === -1) i = find(first, first(l));
    if (i === -1) return -1;
    used.add(i);
    from = i + 1;
    return i;
  });
}

/** The value at a JSON Pointer, or undefined. */
export const valueAt = (json: unknown, pointer: string): unknown => valueAtKeys(json, pointerKeys(pointer));

export interface Traced {
  /** The recorded client message the live one belongs to (its seq locates the finding). */
  anchor?: RecordedMessage;
  /** The recorded message in the live one's place (same direction), for the recorded value. */
  counterpart?: RecordedMessage;
  live?: RecordedMessage;
}

export function traceMessage(recorded: RecordedSession | undefined, live: RecordedSession, seq: number): Traced {
  const index = live.messages.findIndex((m) => m.seq === seq);
  const message = live.messages[index];
  if (!message) return {};
  if (!recorded) return { live: message };
  const id = obj(message)?.id;
  const isResponse = message.direction === 'server-to-client' && id !== undefined && obj(message)?.method === undefined;
  let liveAnchor: RecordedMessage | undefined;
  if (message.direction === 'client-to-server') liveAnchor = message;
  else if (isResponse) liveAnchor = live.messages.find((m) => m.direction === 'client-to-server' && obj(m)?.id === id);
  liveAnchor ??= live.messages
    .slice(0, index)
    .reverse()
    .find((m) => m.direction === 'client-to-server');
  if (!liveAnchor) return { live: message };
  const liveClients = clientMessages(live);
  const recordedClients = clientMessages(recorded);
  const same = recordedClients[liveClients.indexOf(liveAnchor)];
  const anchor = method(same) === method(liveAnchor) ? same : (recordedClients.find((m) => method(m) === method(liveAnchor)) ?? same);
  let counterpart: RecordedMessage | undefined;
  if (message === liveAnchor) counterpart = anchor;
  else if (isResponse && anchor && obj(anchor)?.id !== undefined)
    counterpart = recorded.messages.find(
      (m) => m.direction === 'server-to-client' && obj(m)?.id === obj(anchor)?.id && obj(m)?.method === undefined,
    );
  return { ...(anchor ? { anchor } : {}), ...(counterpart ? { counterpart } : {}), live: message };
}
