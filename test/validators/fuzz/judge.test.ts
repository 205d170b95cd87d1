/**
 * The judge's attribution of what the validator says: seen on server-filesystem (a duplicate-key
 * call answered after the ping that followed it) and server-memory (a duplicate id answered twice,
 * the second after its case ended), an answer to an earlier case's request arriving among a later
 * case's frames must not become a finding of the later case's tool.
 */
import test from 'ava';
import type { RecordedMessage } from '../../../lib/message.js';
import type { Violation } from '../../../lib/violation.js';
import { judgeCase } from '../../../validators/fuzz/judge.js';
import type { FuzzCase } from '../../../validators/fuzz/types.js';

const frame = (seq: number, direction: RecordedMessage['direction'], json: Record<string, unknown>): RecordedMessage => ({
  seq,
  t: seq,
  direction,
  channel: direction === 'client-to-server' ? 'stdin' : 'stdout',
  kind: 'method' in json ? 'request' : 'error' in json ? 'error' : 'response',
  bytes: JSON.stringify(json).length,
  json,
});

const violation = (seq: number, rule: string): Violation => ({
  rule,
  severity: 'warning',
  session: 'fuzz',
  seq,
  direction: 'server-to-client',
  path: '/result',
  message: `${rule} at ${seq}`,
  spec: '',
});

const readFile: FuzzCase = {
  id: 'arguments/empty-string/read_file.path=empty@legacy',
  family: 'arguments',
  mutation: 'empty-string',
  change: 'path=empty',
  era: 'legacy',
  tool: 'read_file',
  steps: [{ message: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_file', arguments: { path: '' } } } }],
};

test("a violation on a late answer to an earlier case's request is not the case's; one on its own answer is", (t) => {
  const frames = [
    frame(11, 'client-to-server', readFile.steps[0]!.message),
    // get_file_info's answer from the case before, overtaken by that case's ping.
    frame(12, 'server-to-client', { jsonrpc: '2.0', id: 2, result: { content: [], structuredContent: { size: 6 } } }),
    frame(13, 'server-to-client', { jsonrpc: '2.0', id: 1, result: { content: [], structuredContent: { x: 1 } } }),
  ];
  const judged = (violations: Violation[]) =>
    judgeCase({ case: readFile, results: [{ answer: frames[2]!.json as never }], frames, stderr: [], violations, timeoutMs: 1000 });
  t.deepEqual(judged([violation(12, 'TOOLS-STRUCT-MIRROR'), violation(12, 'ENV-RES-ID-MATCH')]), []);
  const own = judged([violation(13, 'TOOLS-STRUCT-MIRROR')]);
  t.deepEqual(
    own.map((o) => [o.kind, o.rule, o.tool, o.seq]),
    [['rule', 'TOOLS-STRUCT-MIRROR', 'read_file', 11]],
  );
  // An error with a null id answers this case's request whose id the server could not read.
  const unreadable = frame(14, 'server-to-client', { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } });
  const withNull = judgeCase({
    case: readFile,
    results: [{}],
    frames: [frames[0]!, unreadable],
    stderr: [],
    violations: [violation(14, 'ENV-ERR-ID')],
    timeoutMs: 1000,
  });
  t.deepEqual(
    withNull.map((o) => o.rule),
    ['ENV-ERR-ID'],
  );
});
