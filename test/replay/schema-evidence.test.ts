/**
 * Schema evidence (issue 30): an input schema that narrowed is weighed against the calls the
 * session replayed. A real server (test/servers/replay-target.ts with `--flag-tool`: `pin` takes
 * `pinned: boolean | string`) is recorded through the proxy with the v2 SDK client, calling pin
 * with a string and with a boolean, and search with a query; the replays run against its seeded
 * regressions: the listing narrowed while the handler still takes the string (flag-narrowed), the
 * handler refusing it too (flag-refused), and search closed to unknown arguments (input-closed).
 * The judging itself is also checked directly, for the cases no seeded server makes.
 */
import test from 'ava';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { replayCassette, type Difference, type InteractionResult, type ReplayResult } from '../../replay/index.js';
import { weighSchemaEvidence, type ReplayedCall } from '../../replay/verdicts/schema-evidence.js';
import { cli, node } from '../helpers/paths.js';
import { waitForSessions } from '../helpers/recording.js';
import { removeDir } from '../helpers/tmp.js';
import { replayTarget } from './target-client.js';

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-schema-evidence-'));
const cassette = join(dir, 'pin.cassette.json');

test.before(async () => {
  const client = new Client({ name: 'schema-evidence-client', version: '1.0.0' }, { capabilities: {} });
  const transport = new StdioClientTransport({
    command: node,
    args: [cli, 'record', '--log-level', 'warn', '--cassette', cassette, '--', node, replayTarget, '--flag-tool'],
    stderr: 'pipe',
  });
  transport.stderr?.on('data', () => {});
  await client.connect(transport);
  try {
    await client.listTools();
    await client.callTool({ name: 'pin', arguments: { item: 'report', pinned: 'yes' } });
    await client.callTool({ name: 'pin', arguments: { item: 'notes', pinned: true } });
    await client.callTool({ name: 'search', arguments: { query: 'cats' } });
  } finally {
    await client.close();
  }
  await waitForSessions(cassette, 1);
});
test.after.always(() => removeDir(dir));

const replay = (regression: string) =>
  replayCassette(cassette, { command: [node, replayTarget, '--flag-tool', '--regression', regression], config: false, timeoutMs: 20_000 });

/** The session's interactions of `method` (and `name`). */
function only(r: ReplayResult, method: string, name?: string): InteractionResult[] {
  if (r.error) throw new Error(`the replay could not run: ${r.error.code} ${r.error.message}`);
  return r.sessions[0]!.interactions.filter((i) => i.method === method && (name === undefined || i.name === name));
}

/** The seq of a recorded call, in recorded order: pin with "yes", pin with true, search. */
function seqOf(r: ReplayResult, tool: 'pin' | 'search', pinned?: unknown): number {
  const calls = only(r, 'tools/call', tool);
  return calls[tool === 'pin' && pinned !== 'yes' ? 1 : 0]!.seq;
}

test('boolean|string → boolean in the listing only: a warning that says the string call still succeeded', async (t) => {
  const r = await replay('flag-narrowed');
  const [list] = only(r, 'tools/list');
  const d = list!.differences.filter((x) => x.kind === 'input-type-narrowed');
  t.is(d.length, 1, JSON.stringify(list!.differences, null, 1));
  t.is(d[0]!.verdict, 'warning');
  t.is(d[0]!.path, '/result/tools/pin/inputSchema/properties/pinned/type');
  t.is(
    d[0]!.message,
    `tool "pin" input property "pinned" no longer accepts string (schema narrowed, calls unaffected: #${seqOf(r, 'pin', 'yes')} sent {"item":"report","pinned":"yes"}, which the new schema refuses, and it still succeeded)`,
  );
  t.is(list!.outcome, 'warning');
  t.deepEqual(
    only(r, 'tools/call').map((i) => i.outcome),
    ['same', 'same', 'same'],
  );
  t.is(r.sessions[0]!.outcome, 'warning');
  t.is(r.outcome, 'passed');
  t.is(r.summary.breaking, 0);
});

test('boolean|string → boolean, and the handler refuses the string: breaking, naming the call that now fails', async (t) => {
  const r = await replay('flag-refused');
  const [list] = only(r, 'tools/list');
  const d = list!.differences.find((x) => x.kind === 'input-type-narrowed')!;
  t.is(d.verdict, 'breaking');
  t.is(
    d.message,
    `tool "pin" input property "pinned" no longer accepts string: #${seqOf(r, 'pin', 'yes')} sent {"item":"report","pinned":"yes"}, which the new schema refuses, and it now fails`,
  );
  t.is(list!.outcome, 'breaking');
  const [withString, withBoolean] = only(r, 'tools/call', 'pin');
  t.deepEqual(
    withString!.differences.map((x) => `${x.verdict}:${x.kind}`),
    ['breaking:tool-call-is-error'],
  );
  t.is(withBoolean!.outcome, 'same');
  t.is(r.outcome, 'breaking');
});

test('search closed to unknown arguments, and no replayed call sends one: a warning that says so', async (t) => {
  const r = await replay('input-closed');
  const [list] = only(r, 'tools/list');
  const d = list!.differences.find((x) => x.kind === 'input-additional-properties-closed')!;
  t.is(d.verdict, 'warning');
  t.is(
    d.message,
    `tool "search" input no longer accepts unknown properties (schema narrowed, and no replayed call sends anything it now refuses: #${seqOf(r, 'search')} checked against the old and the new schema)`,
  );
  t.is(list!.outcome, 'warning');
  t.is(r.outcome, 'passed');
});

// Direct judging, with the schemas and answers the seeded server gives.
const wide = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { item: { type: 'string' }, pinned: { type: ['boolean', 'string'] } },
  required: ['item', 'pinned'],
};
const narrow = { ...wide, properties: { item: { type: 'string' }, pinned: { type: 'boolean' } } };
const narrowed: Difference = {
  verdict: 'breaking',
  kind: 'input-type-narrowed',
  path: '/result/tools/pin/inputSchema/properties/pinned/type',
  message: 'tool "pin" input property "pinned" no longer accepts string',
  recorded: ['boolean', 'string'],
  live: 'boolean',
};
const session = (differences: Difference[], calls: Array<[number, InteractionResult['outcome'], Difference[]?]>): InteractionResult[] => [
  { seq: 2, method: 'tools/list', outcome: 'breaking', differences },
  ...calls.map(([seq, outcome, diffs]) => ({ seq, method: 'tools/call', name: 'pin', outcome, differences: diffs ?? [] })),
];
const call = (seq: number, pinned: unknown, failedWhenRecorded = false): ReplayedCall => ({
  seq,
  tool: 'pin',
  arguments: { item: 'report', pinned },
  failedWhenRecorded,
});
const schemas = (live: unknown = narrow, recorded: unknown = wide) => ({
  recorded: new Map([['pin', recorded]]),
  live: new Map([['pin', live]]),
});

test('judged directly: what stays breaking, and what the evidence turns into a warning', (t) => {
  // No replayed call of the tool: nothing replayed contradicts the narrowed schema, a warning that says so.
  let s = session([narrowed], []);
  weighSchemaEvidence(s, { calls: [call(3, 'yes')], ...schemas() });
  t.is(s[0]!.differences[0]!.verdict, 'warning');
  t.regex(s[0]!.differences[0]!.message, /this session never calls "pin", so no replayed call sends anything it now refuses\)$/);
  t.is(s[0]!.outcome, 'warning');
  // Called, but not replayed (skipped): the same.
  s = session([narrowed], [[3, 'skipped']]);
  weighSchemaEvidence(s, { calls: [call(3, 'yes')], ...schemas() });
  t.is(s[0]!.differences[0]!.verdict, 'warning');
  // A schema ajv cannot compile (draft-04's boolean exclusiveMaximum read as draft-07): as it is.
  s = session([narrowed], [[3, 'same']]);
  weighSchemaEvidence(s, { calls: [call(3, 'yes')], ...schemas({ ...narrow, $schema: 'http://json-schema.org/draft-04/schema#' }) });
  t.is(s[0]!.differences[0]!.verdict, 'breaking');
  s = session([narrowed], [[3, 'same']]);
  weighSchemaEvidence(s, {
    calls: [call(3, 'yes')],
    ...schemas({ ...narrow, $schema: undefined, properties: { pinned: { maximum: 'ten' } } }),
  });
  t.is(s[0]!.differences[0]!.verdict, 'breaking');
  // A call the old schema refused too is not this narrowing's doing.
  s = session(
    [narrowed],
    [
      [3, 'same'],
      [4, 'same'],
    ],
  );
  weighSchemaEvidence(s, { calls: [call(3, 42, true), call(4, true)], ...schemas() });
  t.is(s[0]!.differences[0]!.verdict, 'warning');
  t.regex(
    s[0]!.differences[0]!.message,
    /no replayed call sends anything it now refuses: #3, #4 checked against the old and the new schema\)$/,
  );
  t.is(s[0]!.outcome, 'warning');
  // A refused call that failed when recorded and still does: it answers as recorded.
  s = session([narrowed], [[3, 'same']]);
  weighSchemaEvidence(s, { calls: [call(3, 'yes', true)], ...schemas() });
  t.regex(s[0]!.differences[0]!.message, /, which the new schema refuses, and it answers as recorded\)$/);
  // A call that now fails for the narrowing keeps it breaking.
  s = session([narrowed], [[3, 'breaking', [{ verdict: 'breaking', kind: 'success-became-error', path: '/error', message: 'x' }]]]);
  weighSchemaEvidence(s, { calls: [call(3, 'yes')], ...schemas() });
  t.is(s[0]!.differences[0]!.verdict, 'breaking');
  t.regex(s[0]!.differences[0]!.message, /: #3 sent \{"item":"report","pinned":"yes"\}, which the new schema refuses, and it now fails$/);
  // Contract kinds are never weighed: a new required argument, a removed tool.
  const required: Difference = {
    verdict: 'breaking',
    kind: 'input-required-added',
    path: '/result/tools/pin/inputSchema/required',
    message: 'tool "pin" input property "note" is now required',
  };
  const removed: Difference = { verdict: 'breaking', kind: 'tool-removed', path: '/result/tools/pin', message: 'tool "pin" was removed' };
  s = session([required, removed], [[3, 'same']]);
  weighSchemaEvidence(s, { calls: [call(3, true)], ...schemas({ ...wide, required: ['item', 'pinned', 'note'] }) });
  t.deepEqual(
    s[0]!.differences.map((d) => d.verdict),
    ['breaking', 'breaking'],
  );
  t.is(s[0]!.outcome, 'breaking');
});

test('judged directly: each narrowing of a tool is weighed by the calls refused for it', (t) => {
  // pinned narrowed and the object closed; the call sends a string (refused at pinned's type) and
  // nothing unknown: the closing is not contradicted, the narrowing is, and the call still succeeds.
  const closed: Difference = {
    verdict: 'breaking',
    kind: 'input-additional-properties-closed',
    path: '/result/tools/pin/inputSchema/additionalProperties',
    message: 'tool "pin" input no longer accepts unknown properties',
  };
  const s = session([narrowed, closed], [[3, 'same']]);
  weighSchemaEvidence(s, { calls: [call(3, 'yes')], ...schemas({ ...narrow, additionalProperties: false }) });
  const [a, b] = s[0]!.differences;
  t.is(a!.verdict, 'warning');
  t.regex(a!.message, /calls unaffected: #3 sent/);
  t.is(b!.verdict, 'warning');
  t.regex(b!.message, /no replayed call sends anything it now refuses: #3 checked/);
  t.is(s[0]!.outcome, 'warning');
});
