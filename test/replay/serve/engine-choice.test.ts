/**
 * Which recorded answer the serve engine picks, in process: the choice is indexed (by method, key
 * and revision, with cursors past the used answers), and these pin down what the index must keep:
 * the live revision's sessions first, then the same era's, then the other era's; within the first
 * of those that holds the request, recorded order, then the last answer again (or none, strict);
 * `--match order` against the next unused request of that revision; client notifications release
 * their trailing frames in recorded order.
 */
import test from 'ava';
import type { Cassette, RecordedSession } from '../../../lib/cassette/cassette.js';
import type { RecordedMessage } from '../../../lib/message.js';
import { ServeEngine } from '../../../replay/serve/engine.js';
import { LiveSession } from '../../../replay/serve/live-session.js';
import type { Plan } from '../../../replay/serve/request-choice.js';
import type { MatchMode } from '../../../replay/serve/matcher.js';

type Json = Record<string, unknown>;

/** A stdio session: `steps` are client messages, each with the frames the server sent for it. */
function session(id: string, revision: string, steps: Array<{ request: Json; answer?: Json; after?: Json[] }>): RecordedSession {
  const messages: RecordedMessage[] = [];
  const add = (direction: 'client-to-server' | 'server-to-client', json: Json) => {
    const kind = typeof json.method === 'string' ? ('id' in json ? 'request' : 'notification') : 'error' in json ? 'error' : 'response';
    messages.push({
      seq: messages.length,
      t: messages.length,
      direction,
      channel: direction === 'client-to-server' ? 'stdin' : 'stdout',
      kind,
      bytes: 1,
      json,
    });
  };
  for (const s of steps) {
    add('client-to-server', s.request);
    if (s.answer) add('server-to-client', s.answer);
    for (const f of s.after ?? []) add('server-to-client', f);
  }
  return {
    id,
    transport: 'stdio',
    startedAt: '2026-01-01T00:00:00Z',
    target: { command: ['x'], cwd: '/' },
    protocol: { revision },
    proxy: { pid: 1, version: '0' },
    messages,
  };
}

let nextId = 1;
const call = (name: string, text: string) => {
  const id = nextId++;
  return {
    request: { jsonrpc: '2.0', id, method: 'tools/call', params: { name } },
    answer: { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } },
  };
};
const init = (revision: string) => {
  const id = nextId++;
  return {
    request: { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion: revision } },
    answer: { jsonrpc: '2.0', id, result: { protocolVersion: revision } },
  };
};
const note = (k: number) => ({
  request: { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
  after: [{ jsonrpc: '2.0', method: 'notifications/message', params: { k } }],
});

const cassette = (): Cassette =>
  ({
    sessions: [
      session('a', '2025-06-18', [init('2025-06-18'), call('roll', 'a1'), note(1), call('flip', 'a2'), call('roll', 'a3')]),
      session('b', '2025-11-25', [init('2025-11-25'), call('roll', 'b1'), call('spin', 'b2'), note(2)]),
      session('c', '2026-07-28', [call('spin', 'c1'), call('roll', 'c2')]),
    ],
  }) as unknown as Cassette;

/** The text of the answer each request gets, or the kind of plan when none was matched. */
function serve(match: MatchMode, requests: Array<{ name: string; revision?: string }>): string[] {
  const engine = new ServeEngine(cassette(), { match });
  const live = new LiveSession('t');
  const out: string[] = [];
  for (const [i, r] of requests.entries()) {
    const request = { jsonrpc: '2.0', id: 100 + i, method: 'tools/call', params: { name: r.name } };
    const plan: Plan = engine.plan(request, live, r.revision ? { revision: r.revision } : {});
    if (plan.kind !== 'matched') {
      out.push(plan.kind === 'unmatched' ? `unmatched: ${plan.report.message}` : plan.kind);
      continue;
    }
    const text = ((plan.interaction.response!.json.result as Json).content as Json[])[0]!.text as string;
    out.push(plan.repeated ? `${text} again` : text);
    void engine.play(plan, request, live, { send: () => {} });
  }
  return out;
}

test("the live revision's answers come first, in recorded order, then the last of them again", (t) => {
  const r = '2025-06-18';
  t.deepEqual(
    serve('params', [
      { name: 'roll', revision: r },
      { name: 'roll', revision: r },
      { name: 'roll', revision: r },
    ]),
    ['a1', 'a3', 'a3 again'],
  );
  t.deepEqual(
    serve('strict', [
      { name: 'roll', revision: r },
      { name: 'roll', revision: r },
      { name: 'roll', revision: r },
    ]).slice(0, 2),
    ['a1', 'a3'],
  );
  t.regex(
    serve('strict', [
      { name: 'roll', revision: r },
      { name: 'roll', revision: r },
      { name: 'roll', revision: r },
    ])[2]!,
    /^unmatched: .*already used/,
  );
});

test('a request the live revision lacks comes from the same era, then from the other era', (t) => {
  t.deepEqual(
    serve('params', [
      { name: 'spin', revision: '2025-06-18' },
      { name: 'spin', revision: '2025-06-18' },
    ]),
    ['b2', 'b2 again'],
  );
  t.deepEqual(
    serve('params', [
      { name: 'flip', revision: '2026-07-28' },
      { name: 'roll', revision: '2026-07-28' },
      { name: 'roll', revision: '2026-07-28' },
    ]),
    ['a2', 'c2', 'c2 again'],
  );
  t.deepEqual(serve('params', [{ name: 'roll' }, { name: 'roll' }, { name: 'roll' }, { name: 'roll' }, { name: 'roll' }]), [
    'a1',
    'a3',
    'b1',
    'c2',
    'c2 again',
  ]);
});

test('--match order: a request is refused when the next unused request of its revision is another', (t) => {
  const r = '2025-06-18';
  const got = serve('order', [
    { name: 'roll', revision: r },
    { name: 'roll', revision: r },
    { name: 'flip', revision: r },
    { name: 'roll', revision: r },
  ]);
  t.is(got[0], 'a1');
  t.regex(got[1]!, /out of order: the next recorded request is tools\/call "flip"/);
  t.deepEqual(got.slice(2), ['a2', 'a3']);
});

test("client notifications release their recorded trailing frames in order, then the revision's again", async (t) => {
  const engine = new ServeEngine(cassette());
  const sent: Json[] = [];
  const outlet = { send: (f: Json) => void sent.push(f) };
  const live = new LiveSession('t');
  const changed = { jsonrpc: '2.0', method: 'notifications/roots/list_changed' };
  for (let i = 0; i < 3; i++) await engine.notify(changed, live, outlet);
  live.revision = '2025-11-25';
  await engine.notify(changed, live, outlet);
  t.deepEqual(
    sent.map((f) => (f.params as Json).k),
    [1, 2, 1, 2],
  );
});
