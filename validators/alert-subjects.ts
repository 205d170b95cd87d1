import type { RecordedMessage } from '../lib/message.js';
import { isObject } from './rule.js';
import { idKey } from './session-state.js';

/**
 * What a message is about, for the live summary: the tool or prompt a request names
 * (`params.name`) or the resource (`params.uri`), and the same for the answer to it and for a
 * notification about a resource. Repeats of a finding are counted under their first alert; the
 * summary names each distinct subject they were seen on.
 */
export class AlertSubjects {
  /** Subjects of requests still awaiting their answer, by direction and id. */
  readonly #pending = new Map<string, string>();

  /** The subject of one message, in the order the session's messages come. */
  of(msg: RecordedMessage): string | undefined {
    const json = isObject(msg.json) ? msg.json : undefined;
    if (!json) return undefined;
    if (typeof json.method === 'string') {
      const p = isObject(json.params) ? json.params : {};
      const subject = typeof p.name === 'string' ? p.name : typeof p.uri === 'string' ? p.uri : undefined;
      if (subject !== undefined && 'id' in json) this.#pending.set(`${msg.direction} ${idKey(json.id)}`, subject);
      return subject;
    }
    if (!('result' in json) && !('error' in json)) return undefined;
    const asked = msg.direction === 'server-to-client' ? 'client-to-server' : 'server-to-client';
    const key = `${asked} ${idKey(json.id)}`;
    const subject = this.#pending.get(key);
    this.#pending.delete(key);
    return subject;
  }
}
