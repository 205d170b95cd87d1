/**
 * The live validator's HTTP framer and the cassette fold name sessions and number messages alike
 * (lib/cassette/http-session-ids.ts), in the orders real traffic does not show on demand: a
 * request that learns its session from its answer while a later one already names it, exchanges
 * that end out of order, and a `record --cassette-dir` rotation in the middle of an open stream.
 */
import test from 'ava';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { foldHttpJournal } from '../../lib/cassette/fold-http.js';
import { NEW_JOURNAL_FILE } from '../../lib/cassette/http-session-ids.js';
import { JOURNAL_FORMAT, JOURNAL_VERSION, type JournalHeader, type JournalRecord } from '../../lib/cassette/journal.js';
import type { LiveRecord } from '../../lib/live-journal.js';
import { HttpLiveFramer } from '../../validators/live-http.js';

let now = 0;
const at = (): number => ++now;
const request = (x: number, sid?: string, method = 'POST'): JournalRecord => ({
  t: at(),
  ev: 'http-request',
  x,
  method,
  path: '/mcp',
  headers: { 'content-type': 'application/json', ...(sid ? { 'mcp-session-id': sid } : {}) },
  mcp: true,
});
const body = (x: number, json: unknown): JournalRecord[] => [
  { t: at(), c: 'http-request', x, data: Buffer.from(JSON.stringify(json)) },
  { t: at(), ev: 'http-request-end', x },
];
const head = (x: number, type: string, sid?: string): JournalRecord => ({
  t: at(),
  ev: 'http-response',
  x,
  status: 200,
  headers: { 'content-type': type, ...(sid ? { 'mcp-session-id': sid } : {}) },
});
const chunk = (x: number, text: string): JournalRecord => ({ t: at(), c: 'http-response', x, data: Buffer.from(text) });
const end = (x: number, outcome = 'complete'): JournalRecord => ({ t: at(), ev: 'http-end', x, outcome });
const call = (id: number, method = 'tools/list'): unknown => ({ jsonrpc: '2.0', id, method });
const answer = (id: number): string => JSON.stringify({ jsonrpc: '2.0', id, result: {} });
const sse = (id: number): string => `data: ${answer(id)}\n\n`;

function fold(sessionId: string, records: JournalRecord[]): RecordedSession[] {
  const header: JournalHeader = {
    format: JOURNAL_FORMAT,
    version: JOURNAL_VERSION,
    sessionId,
    startedAt: new Date(0).toISOString(),
    pid: 1,
    hostname: 'test',
    session: { transport: 'streamable-http', target: { url: 'http://127.0.0.1:1/mcp', listen: 'http://127.0.0.1:2/mcp' } },
  };
  return foldHttpJournal({ header, records, torn: false });
}

/** Each message of the folded sessions as `<session>#<seq> x<exchange>`. */
const placed = (sessions: RecordedSession[]): string[] =>
  sessions.flatMap((s) => s.messages.map((m) => `${s.id}#${m.seq} x${m.http!.exchange}`)).sort();

/** The same, as the live worker numbers what the framer hands it (validators/live-worker.ts). */
function live(sessionId: string, records: (JournalRecord | LiveRecord)[]): string[] {
  const seqs = new Map<string, number>();
  const out: string[] = [];
  const number = (id: string, x: number): void => {
    const seq = (seqs.get(id) ?? 0) + 1;
    seqs.set(id, seq);
    out.push(`${id}#${seq} x${x}`);
  };
  const framer = new HttpLiveFramer((s, _x, _msg, ref) => number(s.id, ref.x), { sessionId, onAgain: (s, _x, ref) => number(s.id, ref.x) });
  for (const r of records) framer.push(r as LiveRecord);
  return out.sort();
}

test('a session is named after its first exchange, once every earlier request knows its session: live as folded', (t) => {
  const records = [
    // 1: initialize, answered with the session it opens; 2 names that session before 1's answer.
    request(1),
    ...body(1, call(1, 'initialize')),
    request(2, 'S'),
    ...body(2, call(2)),
    head(2, 'application/json'),
    chunk(2, answer(2)),
    end(2),
    head(1, 'application/json', 'S'),
    chunk(1, answer(1)),
    end(1),
    // 3 and 4: stateless, 4 answered first; 5: a GET stream of S, still open at the end.
    request(3),
    ...body(3, call(3)),
    request(4),
    ...body(4, call(4)),
    head(4, 'text/event-stream'),
    chunk(4, sse(4)),
    end(4),
    head(3, 'application/json'),
    chunk(3, answer(3)),
    end(3),
    request(5, 'S', 'GET'),
    head(5, 'text/event-stream'),
    chunk(5, sse(9)),
  ];
  const sessions = fold('run', records);
  t.deepEqual(
    sessions.map((s) => [s.id, s.mcpSessionId]),
    [
      ['run-1', 'S'],
      ['run-3', undefined],
      ['run-4', undefined],
    ],
  );
  t.deepEqual(live('run', records), placed(sessions));
});

test('a --cassette-dir rotation: the sessions of the new file are named by its id, the open exchanges go on in them, live as folded', (t) => {
  // File 1: a session S (initialize, then a POST whose SSE answer is still open) and a stateless
  // exchange whose answer has not begun; the rotation moves both on.
  const before = [
    request(1),
    ...body(1, call(1, 'initialize')),
    head(1, 'application/json', 'S'),
    chunk(1, answer(1)),
    end(1),
    request(2, 'S'),
    ...body(2, call(2, 'tools/call')),
    head(2, 'text/event-stream'),
    chunk(2, `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/progress', params: {} })}\n\n`),
    request(3),
    ...body(3, call(3)),
  ];
  // As recorder/rotation/rotating-journal.ts writes them: the open exchanges end `continued` in
  // the old file and begin the new one again (request, body, response head if any).
  const file1 = [...before, end(2, 'continued'), end(3, 'continued')];
  const again = [request(2, 'S'), ...body(2, call(2, 'tools/call')), head(2, 'text/event-stream'), request(3), ...body(3, call(3))];
  const after = [
    chunk(2, sse(2)),
    end(2),
    head(3, 'application/json'),
    chunk(3, answer(3)),
    end(3),
    request(4, 'S'),
    ...body(4, call(4)),
    head(4, 'application/json'),
    chunk(4, answer(4)),
    end(4),
  ];
  const folded = [...fold('one', file1), ...fold('two', [...again, ...after])];
  t.deepEqual(
    folded.map((s) => s.id),
    ['one-1', 'one-3', 'two-2', 'two-3'],
  );
  const marker: LiveRecord = { t: at(), ev: NEW_JOURNAL_FILE, sessionId: 'two' };
  t.deepEqual(live('one', [...before, marker, ...after]), placed(folded));
});
