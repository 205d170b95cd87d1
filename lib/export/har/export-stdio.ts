import type { RecordedSession } from '../../cassette/cassette.js';
import { messageBytes, type RecordedMessage } from '../../message.js';
import type { HarEntry } from './har-types.js';
import { isoAt, ms } from './har-types.js';

/**
 * stdio has no HTTP, so each JSON-RPC request of a stdio session becomes a synthetic entry with
 * its answer: `POST stdio://server/<method>` for a request the client sent (the server answers),
 * `POST stdio://client/<method>` for one the server sent (sampling, elicitation, roots). The
 * request's bytes are the post data; the answer's bytes the 200 response (`_error` and status 0
 * when no answer was recorded). A notification is an entry answered `202 Accepted` with no body,
 * as Streamable HTTP answers one. A batch is `stdio://<answerer>/batch`, answered by the first
 * batch from the other side that holds one of its ids. stderr lines and frames that are no
 * JSON-RPC request, notification or answer to one have no place in HAR: they are counted in
 * `left`, and the command says how many on stderr.
 */
export function stdioEntries(session: RecordedSession, pageref: string): { entries: HarEntry[]; left: number } {
  const entries: { entry: HarEntry; request: RecordedMessage }[] = [];
  const pending = new Map<string, { entry: HarEntry; request: RecordedMessage }>();
  const batches: { ids: Set<string>; from: RecordedMessage['direction']; slot: { entry: HarEntry; request: RecordedMessage } }[] = [];
  let left = 0;
  const idKey = (from: RecordedMessage['direction'], id: unknown): string => `${from}:${JSON.stringify(id)}`;
  const other = (d: RecordedMessage['direction']) => (d === 'client-to-server' ? 'server-to-client' : 'client-to-server');

  for (const m of session.messages) {
    if (m.channel === 'stderr') {
      left++;
      continue;
    }
    const json = m.json as { id?: unknown; method?: unknown } | unknown[] | undefined;
    if (m.kind === 'request' || m.kind === 'notification') {
      const method = String((json as { method: string }).method);
      const slot = { entry: entryFor(session, m, method, pageref), request: m };
      entries.push(slot);
      if (m.kind === 'request') pending.set(idKey(m.direction, (json as { id: unknown }).id), slot);
      else answer(slot, undefined, 202);
      continue;
    }
    if ((m.kind === 'response' || m.kind === 'error') && json && !Array.isArray(json)) {
      const key = idKey(other(m.direction), json.id);
      const slot = pending.get(key);
      if (slot) {
        pending.delete(key);
        answer(slot, m, 200);
        continue;
      }
    }
    if (m.kind === 'batch' && Array.isArray(json)) {
      const ids = json.map((i) => (i as { id?: unknown }).id).filter((id) => id !== undefined);
      const isAnswer = json.every((i) => !(i as { method?: unknown }).method);
      const open = isAnswer
        ? batches.findIndex((b) => b.from === other(m.direction) && ids.some((id) => b.ids.has(JSON.stringify(id))))
        : -1;
      if (open !== -1) {
        answer(batches[open]!.slot, m, 200);
        batches.splice(open, 1);
        continue;
      }
      if (!isAnswer) {
        const slot = { entry: entryFor(session, m, 'batch', pageref), request: m };
        entries.push(slot);
        if (ids.length > 0) batches.push({ ids: new Set(ids.map((id) => JSON.stringify(id))), from: m.direction, slot });
        else answer(slot, undefined, 202);
        continue;
      }
    }
    left++;
  }
  for (const slot of [...pending.values(), ...batches.map((b) => b.slot)]) slot.entry.response._error = 'no answer was recorded';
  return { entries: entries.map((s) => s.entry), left };

  function answer(slot: { entry: HarEntry; request: RecordedMessage }, m: RecordedMessage | undefined, status: number): void {
    const wait = ms((m?.t ?? slot.request.t) - slot.request.t);
    const r = slot.entry.response;
    r.status = status;
    r.statusText = status === 200 ? 'OK' : 'Accepted';
    slot.entry.time = wait;
    slot.entry.timings.wait = wait;
    if (m) {
      const text = messageBytes(m).toString('utf8');
      r.headers = [{ name: 'content-type', value: 'application/json' }];
      r.content = { size: Buffer.byteLength(text), mimeType: 'application/json', text };
      r.bodySize = r.content.size;
      slot.entry._mcpCassette!.seq!.push(m.seq);
    }
  }
}

function entryFor(session: RecordedSession, m: RecordedMessage, method: string, pageref: string): HarEntry {
  const text = messageBytes(m).toString('utf8');
  const answerer = m.direction === 'client-to-server' ? 'server' : 'client';
  return {
    pageref,
    startedDateTime: isoAt(session.startedAt, m.t),
    time: 0,
    request: {
      method: 'POST',
      url: new URL(`stdio://${answerer}/${method.split('/').map(encodeURIComponent).join('/')}`).href,
      httpVersion: 'stdio',
      cookies: [],
      headers: [{ name: 'content-type', value: 'application/json' }],
      queryString: [],
      postData: { mimeType: 'application/json', text },
      headersSize: -1,
      bodySize: Buffer.byteLength(text),
    },
    response: {
      status: 0,
      statusText: '',
      httpVersion: 'stdio',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: 0,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, ssl: -1, send: 0, wait: 0, receive: 0 },
    _mcpCassette: { session: session.id, seq: [m.seq] },
  };
}
