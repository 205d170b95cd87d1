import test from 'ava';
import type { RecordedSession } from '../../lib/cassette/cassette.js';
import { frameToMessage, type RecordedMessage } from '../../lib/message.js';
import { SessionValidator, validateSession } from '../../validators/engine.js';
import { ServerContext } from '../../validators/server-context.js';
import type { Rule } from '../../validators/rule.js';
import { RULES } from '../../validators/rules/index.js';

/** A stdio session: the 2025-11-25 handshake, then `lists` answered to tools/list in turn. */
function session(lists: unknown[][], raw?: number): RecordedSession {
  const lines: [string, unknown][] = [
    [
      'stdin',
      {
        jsonrpc: '2.0',
        id: 0,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
      },
    ],
    [
      'stdout',
      {
        jsonrpc: '2.0',
        id: 0,
        result: { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 's', version: '1' } },
      },
    ],
    ['stdin', { jsonrpc: '2.0', method: 'notifications/initialized' }],
  ];
  lists.forEach((tools, i) => {
    lines.push(['stdin', { jsonrpc: '2.0', id: i + 1, method: 'tools/list' }]);
    lines.push(['stdout', { jsonrpc: '2.0', id: i + 1, result: { tools } }]);
  });
  const messages: RecordedMessage[] = lines.map(([channel, json], i) => {
    // `raw`: that answer's bytes are not JSON.stringify's (a space after the colon).
    const text = i === raw ? JSON.stringify(json).replace('"result":', '"result": ') : JSON.stringify(json);
    const stdin = channel === 'stdin';
    return frameToMessage(Buffer.from(text), {
      seq: i + 1,
      t: i,
      direction: stdin ? 'client-to-server' : 'server-to-client',
      channel: stdin ? 'stdin' : 'stdout',
      terminated: true,
    });
  });
  return { id: 's1', transport: 'stdio', messages } as unknown as RecordedSession;
}

const good = { name: 'add', inputSchema: { type: 'object', properties: { a: { type: 'number' } } } };
const invalid = { name: 'broken', inputSchema: { type: 'object', properties: { a: { type: 7 } } } };
const noParams = { name: 'now', inputSchema: { type: 'object' } };
const oldDialect = { name: 'old', inputSchema: { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' } };
const A = [good, invalid, noParams];
const B = [good, oldDialect, { ...invalid, name: 'broken2' }];
/** A `resultOnly` rule on tools/list answers whose check is `check` (it counts its runs). */
const countingRule = (check: Rule['check']): Rule => ({
  id: 'TEST-COUNT',
  level: 'MUST',
  obs: '1',
  era: 'all',
  source: 'server/tools.mdx §Tool',
  title: 'counts its runs',
  on: ['result tools/list'],
  resultOnly: true,
  check,
});
const SCHEMA_RULES = ['TOOLS-INPUTSCHEMA-OBJ', 'TOOLS-SCHEMA-VALID', 'TOOLS-DIALECT-UNSUPPORTED', 'TOOLS-NOPARAM'];

test('a tools/list result repeated identically, then changed, then back: the same verdicts with and without skipping unchanged results', (t) => {
  const s = session([A, A, A, B, B, A, [good], [good], A]);
  const skipped = validateSession(s, { rules: RULES });
  const rerun = validateSession(s, { rules: RULES, rerunUnchanged: true });
  t.deepEqual(skipped, rerun);
  // What the schema rules say about each answer (seq → rule and path): the repeats say it again,
  // a changed list says what is true of it.
  const at = (seq: number): string[] =>
    skipped
      .filter((v) => v.seq === seq && SCHEMA_RULES.includes(v.rule))
      .map((v) => `${v.rule} ${v.path}`)
      .sort();
  const answers = s.messages.filter((m) => m.direction === 'server-to-client' && m.seq > 2).map((m) => m.seq);
  const ofA = at(answers[0]!);
  t.true(ofA.includes('TOOLS-SCHEMA-VALID /result/tools/1/inputSchema'), ofA.join(', '));
  t.true(ofA.includes('TOOLS-NOPARAM /result/tools/2/inputSchema'), ofA.join(', '));
  for (const i of [1, 2, 5, 8]) t.deepEqual(at(answers[i]!), ofA, `answer ${i} (A again)`);
  const ofB = at(answers[3]!);
  t.notDeepEqual(ofB, ofA);
  t.true(ofB.includes('TOOLS-SCHEMA-VALID /result/tools/2/inputSchema'), ofB.join(', '));
  t.true(ofB.includes('TOOLS-DIALECT-UNSUPPORTED /result/tools/1/inputSchema/$schema'), ofB.join(', '));
  t.deepEqual(at(answers[4]!), ofB);
  t.deepEqual(at(answers[6]!), [], 'a clean list after a broken one: nothing repeated from before');
  t.deepEqual(at(answers[7]!), []);
});

test('a result-only rule runs once per distinct result; a result stored with raw bytes is always judged', (t) => {
  let runs = 0;
  const counting = countingRule((o, report) => {
    runs++;
    report('/result/tools', `seen ${JSON.stringify(o.json?.result).length} bytes`);
  });
  const lists = [A, A, B, B, B, A];
  const count = (raw?: number): { runs: number; found: number } => {
    runs = 0;
    const found = validateSession(session(lists, raw), { rules: [counting] }).length;
    return { runs, found };
  };
  t.deepEqual(count(), { runs: 3, found: 6 }, 'A, B, A judged; every answer reported');
  // The second A answer (line index 6) carries raw: judged again, and the one after it too.
  t.deepEqual(count(6), { runs: 4, found: 6 });
  runs = 0;
  const v = new SessionValidator({ id: 's', transport: 'stdio' }, { rules: [counting], rerunUnchanged: true });
  for (const m of session(lists).messages) v.check(m);
  t.is(runs, 6, 'rerunUnchanged judges every answer');
});

test('stateless exchanges that share a server context judge an unchanged tools/list once for all of them, with the same verdicts', (t) => {
  let runs = 0;
  const counting = countingRule((_o, report) => {
    runs++;
    report('/result/tools', 'seen');
  });
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientInfo': { name: 'c', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  /** One stateless exchange: a tools/list and its answer, a session of its own. */
  const exchange = (i: number, tools: unknown[]): RecordedMessage[] =>
    [
      { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: meta } },
      { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', tools } },
    ].map((json, k) =>
      frameToMessage(Buffer.from(JSON.stringify(json)), {
        seq: k + 1,
        t: i,
        direction: k === 0 ? 'client-to-server' : 'server-to-client',
        channel: 'http',
        terminated: true,
        http: { exchange: i, part: k === 0 ? 'request' : 'response' },
      }),
    );
  const lists = [A, A, A, B, A];
  const judge = (rules: readonly Rule[], rerunUnchanged: boolean): string[] => {
    const context = new ServerContext();
    return lists.flatMap((tools, i) => {
      const v = new SessionValidator({ id: `x${i}`, transport: 'streamable-http' }, { rules, rerunUnchanged }, context);
      return exchange(i, tools).flatMap((m) => v.check(m).map((f) => `${f.session} ${f.seq} ${f.rule} ${f.path} ${f.message}`));
    });
  };
  runs = 0;
  const shared = judge([counting], false);
  t.is(runs, 3, 'A, B, A: judged once per change, not once per exchange');
  runs = 0;
  t.deepEqual(judge([counting], true), shared);
  t.is(runs, 5);
  t.is(shared.length, 5, 'every answer still reported, in its own session');
  t.deepEqual(judge(RULES, false), judge(RULES, true), 'every rule: the same verdicts shared or not');
});
