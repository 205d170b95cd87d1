import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayCassette } from '../../replay/index.js';
import type { Difference, ReplayResult, Verdict } from '../../replay/index.js';
import { compareSchemas } from '../../replay/schema-variance/index.js';
import { judgeExchangeStatus } from '../../replay/verdicts/http-status.js';
import { judgeResponse } from '../../replay/verdicts/index.js';
import { weighSchemaEvidence } from '../../replay/verdicts/schema-evidence.js';
import type { InteractionResult } from '../../replay/index.js';
import { deepStandIn } from '../../lib/json-depth.js';
import { node, root } from '../helpers/paths.js';
import { runV1HttpScenario } from '../peers/v1-http-client.js';
import { recordSessionful, recordV1Sessionful, startSessionful } from './sessionful.js';
import { recordTargetCassette, replayTarget } from './target-client.js';
import { removeDir } from '../helpers/tmp.js';

// Every verdict kind docs/replay-verdicts.md documents is produced here, with the verdict the
// table gives it, and every kind the replay code can produce is in that table. Kinds that come
// from a server's behaviour are produced by real replays: cassettes recorded once through the real
// proxy with real SDK clients, replayed against the same test servers with a seeded regression
// (test/servers/replay-target.ts over stdio, test/servers/sessionful-target.ts over Streamable
// HTTP). Kinds that only compare two schemas or two answers may come from a direct call of the
// judging function, with realistic recorded and live values.

const dir = mkdtempSync(join(tmpdir(), 'mcp-cassette-verdict-kinds-'));
/** The replay target, both eras (stdio, v2 SDK client): lists, calls, reads, prompts. */
const targetCassette = join(dir, 'target.cassette.json');
/** The sessionful target (v1 SDK client): add, announce, confirm (an elicitation on the GET
 * stream), DELETE. */
const sessionfulCassette = join(dir, 'sessionful.cassette.json');
/** The replay target whose search asks the client for its roots (the client answers). */
const rootsCassette = join(dir, 'roots.cassette.json');
/** The same client against a sessionful target that answered the GET and the DELETE with 405. */
const refusingCassette = join(dir, 'refusing.cassette.json');

// One recording at a time: the recorder folds its journal into the cassette after the server
// exits, and the helpers wait for that only so long on a busy machine.
test.before(async () => {
  await recordTargetCassette(targetCassette);
  await recordTargetCassette(rootsCassette, { serverArgs: ['--regression', 'server-request'] });
  await recordV1Sessionful(sessionfulCassette);
  // No confirm: with no listen stream the server would have nowhere to send its elicitation.
  await recordSessionful(
    refusingCassette,
    (url) =>
      runV1HttpScenario(url, async (client) => ({
        add: await client.callTool({ name: 'add', arguments: { a: 2, b: 3 } }),
        announce: await client.callTool({ name: 'announce', arguments: { what: 'release' } }),
      })),
    ['--regression', 'get-405,delete-405'],
  );
});
test.after.always(() => removeDir(dir));

/** A difference and the interaction it was found on (`method[ name]`, `judge` for direct calls). */
interface Found {
  at: string;
  kind: string;
  verdict: Verdict;
  message: string;
}

interface Producer {
  /** `replay`: a real replay against a real server process; `judge`: a judging function called
   * directly with recorded and live values. */
  via: 'replay' | 'judge';
  how: string;
  /** Replays: the interaction the difference must be found on. */
  at?: string;
  /** `t` owns any server process the replay starts (it ends with the test). */
  run: (t: ExecutionContext) => Promise<Found[]>;
}

interface Case extends Producer {
  kind: string;
  verdict: Verdict;
}

/** At most two replays at a time: each starts server processes, on a shared machine. */
const slots: Array<() => void> = [];
let running = 0;
async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (running >= 2) await new Promise<void>((r) => slots.push(r));
  running++;
  try {
    return await work();
  } finally {
    running--;
    slots.shift()?.();
  }
}

const flatten = (r: ReplayResult): Found[] => {
  if (r.error) throw new Error(`the replay could not run: ${r.error.code} ${r.error.message}`);
  return r.sessions.flatMap((s) =>
    s.interactions.flatMap((i) =>
      i.differences.map((d) => ({ at: `${i.method}${i.name ? ` ${i.name}` : ''}`, kind: d.kind, verdict: d.verdict, message: d.message })),
    ),
  );
};

/** One replay per server configuration, however many kinds it is asked for. */
const replays = new Map<string, Promise<Found[]>>();
function once(key: string, run: () => Promise<ReplayResult>): Promise<Found[]> {
  let p = replays.get(key);
  if (!p) {
    p = limited(run).then(flatten);
    replays.set(key, p);
  }
  return p;
}

/** The stdio cassette replayed against the replay target started with `args`. */
function target(args: string[], at: string): Producer {
  return {
    via: 'replay',
    how: `replay-target ${args.join(' ')}`,
    at,
    run: () =>
      once(`target ${args.join(' ')}`, () =>
        replayCassette(targetCassette, { command: [node, replayTarget, ...args], config: false, timeoutMs: 20_000 }),
      ),
  };
}

const seeded = (regression: string, at: string) => target(['--regression', regression], at);

/** A sessionful recording replayed over Streamable HTTP against the sessionful target with
 * `regressions` (none: the plain server). */
function sessionful(cassette: 'sessionful' | 'refusing', regressions: string, at: string): Producer {
  const path = cassette === 'sessionful' ? sessionfulCassette : refusingCassette;
  const args = regressions ? ['--regression', regressions] : [];
  return {
    via: 'replay',
    how: `${cassette} cassette, sessionful-target${regressions ? ` --regression ${regressions}` : ''}`,
    at,
    // The first test that asks starts the server; every test sharing the replay awaits it, so
    // the server outlives the replay and ends with that test.
    run: (t) =>
      once(`${cassette} ${regressions}`, async () =>
        replayCassette(path, { url: await startSessionful(t, args), config: false, timeoutMs: 20_000 }),
      ),
  };
}

function judge(how: string, diffs: () => Difference[]): Producer {
  return {
    via: 'judge',
    how,
    run: async () => diffs().map((d) => ({ at: 'judge', kind: d.kind, verdict: d.verdict, message: d.message })),
  };
}

// Realistic tool schemas, as SDKs emit them (zod 4 JSON Schema), for the variance cases.
const searchInput = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'What to look for' },
    limit: { type: 'integer', minimum: 1, maximum: 50 },
    mode: { type: 'string', enum: ['fast', 'deep'] },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['query'],
};
const searchOutput = {
  type: 'object',
  properties: {
    hits: { type: 'integer', minimum: 0, maximum: 1000 },
    mode: { type: 'string', enum: ['fast', 'deep'] },
    items: { type: 'array', items: { type: 'string' } },
    kind: { const: 'search' },
  },
  required: ['hits', 'mode'],
  additionalProperties: false,
};
type Schema = Record<string, unknown> & { properties: Record<string, Record<string, unknown>> };
/** `base` with `changes` merged into property `prop` (or the root, for `prop` undefined). */
function edit(base: object, prop: string | undefined, changes: Record<string, unknown>, drop: string[] = []): Schema {
  const s = structuredClone(base) as Schema;
  const target = prop === undefined ? s : (s.properties[prop] ??= {});
  Object.assign(target, changes);
  for (const k of drop) delete target[k];
  return s;
}
/** The search tool's input schema changed from `prev` to `next`, judged by variance. */
const input = (how: string, next: object, prev: object = searchInput) =>
  judge(`input schema: ${how}`, () =>
    compareSchemas(prev, next, 'input', ['result', 'tools', 'search', 'inputSchema'], 'tool "search" input'),
  );
const output = (how: string, next: object, prev: object = searchOutput) =>
  judge(`output schema: ${how}`, () =>
    compareSchemas(prev, next, 'output', ['result', 'tools', 'search', 'outputSchema'], 'tool "search" output'),
  );
/**
 * The search tool's input schema narrowed from `prev` to `next`, then weighed against the session's
 * one replayed call of search, which sent `args` and still succeeded (verdicts/schema-evidence.ts).
 */
const weighed = (how: string, next: object, args: object, prev: object = searchInput) =>
  judge(`schema evidence: ${how}, and the replayed call sent ${JSON.stringify(args)} and succeeded`, () => {
    const differences = compareSchemas(prev, next, 'input', ['result', 'tools', 'search', 'inputSchema'], 'tool "search" input');
    const list: InteractionResult = { seq: 2, method: 'tools/list', outcome: 'breaking', differences };
    const call: InteractionResult = { seq: 3, method: 'tools/call', name: 'search', outcome: 'same', differences: [] };
    weighSchemaEvidence([list, call], {
      calls: [{ seq: 3, tool: 'search', arguments: args, failedWhenRecorded: false }],
      recorded: new Map([['search', prev]]),
      live: new Map([['search', next]]),
    });
    return list.differences;
  });
const withoutProp = (base: object, prop: string, extra: Record<string, unknown> = {}): Schema => {
  const s = edit(base, undefined, extra);
  delete s.properties[prop];
  return s;
};

const tool = (extra: Record<string, unknown> = {}) => ({
  name: 'search',
  description: 'Searches the catalogue',
  inputSchema: searchInput,
  outputSchema: searchOutput,
  ...extra,
});
const tools = (...list: object[]) => ({ jsonrpc: '2.0', id: 2, result: { tools: list } });
const list = (field: string, ...items: object[]) => ({ jsonrpc: '2.0', id: 3, result: { [field]: items } });
const greet = (args: object[]) => ({ name: 'greet', description: 'Greets someone', arguments: args });
const template = (extra: object = {}) => ({ uriTemplate: 'example://notes/{id}', name: 'note', mimeType: 'text/plain', ...extra });
const initialize = (extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 0,
  result: {
    protocolVersion: '2025-11-25',
    capabilities: { tools: { listChanged: true }, logging: {} },
    serverInfo: { name: 'weather', version: '1.4.0' },
    ...extra,
  },
});
const discover = (extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 0,
  result: { supportedVersions: ['2026-07-28'], capabilities: { tools: {} }, resultType: 'complete', cacheScope: 'private', ...extra },
});
const callResult = (extra: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: 4,
  result: { content: [{ type: 'text', text: '3 hits for cats' }], ...extra },
});
const deepAnswer = (leaf: string) =>
  `{"jsonrpc":"2.0","id":5,"result":{"content":[],"structuredContent":{"v":${'['.repeat(300)}"${leaf}"${']'.repeat(300)}}}}`;
const rpcError = (code: number, message: string, data?: unknown) => ({
  jsonrpc: '2.0',
  id: 5,
  error: { code, message, ...(data !== undefined ? { data } : {}) },
});

/**
 * kind → how it is produced, one row per verdict docs/replay-verdicts.md gives it. A documented
 * kind needs a row here and a row here needs the kind documented, with the same verdict.
 */
const CASES: Case[] = [
  // Breaking: the tool surface.
  { kind: 'tool-removed', verdict: 'breaking', ...seeded('tool-removed', 'tools/list') },
  { kind: 'prompt-removed', verdict: 'breaking', ...seeded('prompt-removed', 'prompts/list') },
  // A removal outright shifts a paginated list (other items on the recorded pages); a moved URI
  // keeps the pages aligned.
  { kind: 'resource-removed', verdict: 'breaking', ...seeded('resource-moved', 'resources/list') },
  {
    kind: 'resource-template-removed',
    verdict: 'breaking',
    ...judge('a template no longer listed', () =>
      judgeResponse('resources/templates/list', list('resourceTemplates', template()), list('resourceTemplates')),
    ),
  },
  { kind: 'readonly-hint-lost', verdict: 'breaking', ...seeded('readonly-lost', 'tools/list') },
  {
    kind: 'destructive-hint-gained',
    verdict: 'breaking',
    ...judge('destructiveHint false → true', () =>
      judgeResponse(
        'tools/list',
        tools(tool({ annotations: { readOnlyHint: false, destructiveHint: false } })),
        tools(tool({ annotations: { readOnlyHint: false, destructiveHint: true } })),
      ),
    ),
  },
  {
    kind: 'prompt-argument-required',
    verdict: 'breaking',
    ...judge('an optional prompt argument made required', () =>
      judgeResponse('prompts/list', list('prompts', greet([{ name: 'name' }])), list('prompts', greet([{ name: 'name', required: true }]))),
    ),
  },
  {
    kind: 'prompt-argument-removed',
    verdict: 'breaking',
    ...judge('a prompt argument dropped', () =>
      judgeResponse(
        'prompts/list',
        list('prompts', greet([{ name: 'name' }, { name: 'tone' }])),
        list('prompts', greet([{ name: 'name' }])),
      ),
    ),
  },
  // Breaking: input schemas (contravariant).
  { kind: 'input-required-added', verdict: 'breaking', ...seeded('new-required-input', 'tools/list') },
  { kind: 'input-enum-shrunk', verdict: 'breaking', ...seeded('enum-shrunk', 'tools/list') },
  {
    kind: 'input-additional-properties-closed',
    verdict: 'breaking',
    ...input('additionalProperties false added', edit(searchInput, undefined, { additionalProperties: false })),
  },
  {
    kind: 'input-schema-not-object',
    verdict: 'breaking',
    ...judge('an input schema that lost type "object" (filesystem 2025.7.1: nothing but $schema)', () =>
      judgeResponse('tools/list', tools(tool()), tools(tool({ inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } }))),
    ),
  },
  {
    kind: 'input-type-narrowed',
    verdict: 'breaking',
    ...input('limit integer → string', edit(searchInput, 'limit', { type: 'string' }, ['minimum', 'maximum'])),
  },
  {
    kind: 'input-constraint-tightened',
    verdict: 'breaking',
    ...input('limit maximum 50 → 20', edit(searchInput, 'limit', { maximum: 20 })),
  },
  { kind: 'input-const-changed', verdict: 'breaking', ...input('mode pinned by a const', edit(searchInput, 'mode', { const: 'fast' })) },
  {
    kind: 'input-property-removed',
    verdict: 'breaking',
    ...input(
      'tags removed, unknown properties refused',
      withoutProp(edit(searchInput, undefined, { additionalProperties: false }), 'tags'),
    ),
  },
  {
    kind: 'input-items-changed',
    verdict: 'breaking',
    ...input('tags items constrained', searchInput, edit(searchInput, 'tags', {}, ['items'])),
  },
  {
    kind: 'input-schema-changed',
    verdict: 'breaking',
    ...input(
      'a property schema true (anything) → string',
      edit(searchInput, 'extra', { type: 'string' }),
      edit(searchInput, undefined, { properties: { ...searchInput.properties, extra: true } }),
    ),
  },
  // Breaking: output schemas (covariant).
  { kind: 'output-enum-widened', verdict: 'breaking', ...seeded('output-enum-widened', 'tools/list') },
  { kind: 'output-property-removed', verdict: 'breaking', ...output('items removed', withoutProp(searchOutput, 'items')) },
  {
    kind: 'output-property-optional',
    verdict: 'breaking',
    ...output('mode no longer required', edit(searchOutput, undefined, { required: ['hits'] })),
  },
  {
    kind: 'output-type-changed',
    verdict: 'breaking',
    ...output('hits integer → integer|string', edit(searchOutput, 'hits', { type: ['integer', 'string'] })),
  },
  { kind: 'output-const-changed', verdict: 'breaking', ...output('kind const changed', edit(searchOutput, 'kind', { const: 'lookup' })) },
  {
    kind: 'output-constraint-loosened',
    verdict: 'breaking',
    ...output('hits maximum 1000 → 10000', edit(searchOutput, 'hits', { maximum: 10000 })),
  },
  {
    kind: 'output-additional-properties-opened',
    verdict: 'breaking',
    ...output('additionalProperties false dropped', edit(searchOutput, undefined, {}, ['additionalProperties'])),
  },
  {
    kind: 'output-items-changed',
    verdict: 'breaking',
    ...output('items no longer constrained', edit(searchOutput, 'items', {}, ['items'])),
  },
  {
    kind: 'output-schema-changed',
    verdict: 'breaking',
    ...output(
      'a property schema → true (anything)',
      edit(searchOutput, undefined, { properties: { ...searchOutput.properties, hits: true } }),
    ),
  },
  {
    kind: 'tool-renamed',
    verdict: 'breaking',
    ...judge('search gone, find appeared with the same input schema', () =>
      judgeResponse('tools/list', tools(tool()), tools(tool({ name: 'find' }))),
    ),
  },
  {
    kind: 'output-schema-removed',
    verdict: 'breaking',
    ...judge('a tool no longer declares its output schema', () =>
      judgeResponse('tools/list', tools(tool()), tools(tool({ outputSchema: undefined }))),
    ),
  },
  // Breaking: answers.
  { kind: 'success-became-error', verdict: 'breaking', ...seeded('tool-removed', 'tools/call stamp') },
  { kind: 'tool-call-is-error', verdict: 'breaking', ...seeded('is-error', 'tools/call search') },
  { kind: 'error-code-changed', verdict: 'breaking', ...seeded('error-code-changed', 'resources/read example://locked') },
  {
    kind: 'result-content-changed',
    verdict: 'breaking',
    ...judge('a structured value changed type (number 3 → string "3")', () =>
      judgeResponse(
        'tools/call',
        { result: { content: [{ type: 'text', text: '3 hits' }], structuredContent: { hits: 3 } } },
        { result: { content: [{ type: 'text', text: '3 hits' }], structuredContent: { hits: '3' } } },
      ),
    ),
  },
  { kind: 'output-changed', verdict: 'changed', ...seeded('content-changed', 'tools/call search') },
  // End to end against a real server: test/recorder/deep-json.test.ts.
  {
    kind: 'too-deep-changed',
    verdict: 'breaking',
    ...judge('an answer nested 300 levels deep changed its innermost value', () =>
      judgeResponse('tools/call', deepStandIn(deepAnswer('a')), deepStandIn(deepAnswer('b'))),
    ),
  },
  { kind: 'result-field-removed', verdict: 'breaking', ...seeded('mime-type-dropped', 'resources/read example://readme') },
  // On 2026-07-28 the seeded roots request is an input_required result instead of a complete one.
  { kind: 'result-type-changed', verdict: 'breaking', ...seeded('server-request', 'tools/call search') },
  { kind: 'unexpected-server-request', verdict: 'breaking', ...seeded('server-request', 'tools/call search') },
  // The recording's search asked for the roots once; the live one asks twice, the same request.
  {
    kind: 'server-request-repeated',
    verdict: 'warning',
    via: 'replay',
    how: 'roots cassette, replay-target --regression roots-twice',
    at: 'tools/call search',
    run: () =>
      once('roots roots-twice', () =>
        replayCassette(rootsCassette, { command: [node, replayTarget, '--regression', 'roots-twice'], config: false, timeoutMs: 20_000 }),
      ),
  },
  // Breaking: the handshake.
  { kind: 'capability-removed', verdict: 'breaking', ...seeded('logging-dropped', 'initialize') },
  { kind: 'protocol-version-dropped', verdict: 'breaking', ...target(['--legacy', 'reject'], 'initialize') },
  {
    kind: 'protocol-version-changed',
    verdict: 'breaking',
    ...judge('initialize answered an older revision', () =>
      judgeResponse('initialize', initialize(), initialize({ protocolVersion: '2025-06-18' })),
    ),
  },
  {
    kind: 'handshake-changed',
    verdict: 'breaking',
    ...judge('server/discover cacheScope private → public', () =>
      judgeResponse('server/discover', discover(), discover({ cacheScope: 'public' })),
    ),
  },
  // Breaking: HTTP.
  { kind: 'http-status-changed', verdict: 'breaking', ...sessionful('sessionful', 'delete-404', 'DELETE session end') },

  // Warnings.
  { kind: 'tool-description-changed', verdict: 'warning', ...seeded('description-changed', 'tools/list') },
  { kind: 'tool-title-changed', verdict: 'warning', ...seeded('title-changed', 'tools/list') },
  { kind: 'tool-annotations-changed', verdict: 'warning', ...seeded('annotation-added', 'tools/list') },
  {
    kind: 'tool-changed',
    verdict: 'warning',
    ...judge("a tool's icons changed", () =>
      judgeResponse(
        'tools/list',
        tools(tool({ icons: [{ src: 'https://example.com/a.png' }] })),
        tools(tool({ icons: [{ src: 'https://example.com/b.png' }] })),
      ),
    ),
  },
  {
    kind: 'tool-order-changed',
    verdict: 'warning',
    ...judge('two tools swapped', () =>
      judgeResponse('tools/list', tools(tool(), tool({ name: 'stamp' })), tools(tool({ name: 'stamp' }), tool())),
    ),
  },
  {
    kind: 'prompt-changed',
    verdict: 'warning',
    ...judge('a prompt description changed', () =>
      judgeResponse('prompts/list', list('prompts', greet([])), list('prompts', { ...greet([]), description: 'Greets a person by name' })),
    ),
  },
  {
    kind: 'resource-changed',
    verdict: 'warning',
    ...judge('a resource mimeType changed', () =>
      judgeResponse(
        'resources/list',
        list('resources', { uri: 'example://readme', name: 'readme', mimeType: 'text/plain' }),
        list('resources', { uri: 'example://readme', name: 'readme', mimeType: 'text/markdown' }),
      ),
    ),
  },
  {
    kind: 'resource-template-changed',
    verdict: 'warning',
    ...judge('a template mimeType changed', () =>
      judgeResponse(
        'resources/templates/list',
        list('resourceTemplates', template()),
        list('resourceTemplates', template({ mimeType: 'text/markdown' })),
      ),
    ),
  },
  {
    kind: 'schema-description-changed',
    verdict: 'warning',
    ...input('query description changed', edit(searchInput, 'query', { description: 'Words to search for' })),
  },
  { kind: 'schema-title-changed', verdict: 'warning', ...input('query title added', edit(searchInput, 'query', { title: 'Query' })) },
  { kind: 'input-pattern-changed', verdict: 'warning', ...input('query pattern added', edit(searchInput, 'query', { pattern: '^\\S' })) },
  {
    kind: 'output-pattern-changed',
    verdict: 'warning',
    ...output('items pattern added', edit(searchOutput, 'items', { items: { type: 'string', pattern: '^[a-z]' } })),
  },
  {
    kind: 'input-property-removed',
    verdict: 'warning',
    ...input('tags removed, unknown properties still accepted', withoutProp(searchInput, 'tags')),
  },
  // Warnings: input narrowings the session's replayed calls say otherwise about.
  { kind: 'input-additional-properties-closed', verdict: 'warning', ...seeded('input-closed', 'tools/list') },
  {
    kind: 'input-type-narrowed',
    verdict: 'warning',
    ...weighed('limit integer → string', edit(searchInput, 'limit', { type: 'string' }, ['minimum', 'maximum']), {
      query: 'cats',
      limit: 10,
    }),
  },
  {
    kind: 'input-enum-shrunk',
    verdict: 'warning',
    ...weighed('mode loses "deep"', edit(searchInput, 'mode', { enum: ['fast'] }), { query: 'cats', mode: 'fast' }),
  },
  {
    kind: 'input-constraint-tightened',
    verdict: 'warning',
    ...weighed('limit maximum 50 → 20', edit(searchInput, 'limit', { maximum: 20 }), { query: 'cats', limit: 10 }),
  },
  {
    kind: 'input-const-changed',
    verdict: 'warning',
    ...weighed('mode pinned by a const', edit(searchInput, 'mode', { const: 'fast' }), { query: 'cats' }),
  },
  {
    kind: 'input-items-changed',
    verdict: 'warning',
    ...weighed('tags items constrained', searchInput, { query: 'cats', tags: ['pets'] }, edit(searchInput, 'tags', {}, ['items'])),
  },
  {
    kind: 'input-schema-now-object',
    verdict: 'warning',
    ...judge('an input schema that gained type "object" (filesystem 2025.7.1 → 2025.11.25)', () =>
      judgeResponse('tools/list', tools(tool({ inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#' } })), tools(tool())),
    ),
  },
  {
    kind: 'prompt-argument-changed',
    verdict: 'warning',
    ...judge("a prompt argument's description removed (everything 2026.8.31's args-prompt)", () =>
      judgeResponse(
        'prompts/list',
        list('prompts', greet([{ name: 'name', description: 'Who to greet', required: true }])),
        list('prompts', greet([{ name: 'name', required: true }])),
      ),
    ),
  },
  {
    kind: 'input-schema-changed',
    verdict: 'warning',
    ...input('limit wrapped in anyOf', edit(searchInput, 'limit', { anyOf: [{ type: 'integer' }, { type: 'null' }] })),
  },
  { kind: 'output-schema-changed', verdict: 'warning', ...output('a format added', edit(searchOutput, 'mode', { format: 'uri' })) },
  {
    kind: 'result-meta-changed',
    verdict: 'warning',
    ...judge("a result's _meta value changed", () =>
      judgeResponse(
        'tools/call',
        callResult({ _meta: { 'example.com/cache': 'hit' } }),
        callResult({ _meta: { 'example.com/cache': 'miss' } }),
      ),
    ),
  },
  { kind: 'notifications-changed', verdict: 'warning', ...seeded('log-changed', 'notifications') },
  { kind: 'progress-changed', verdict: 'warning', ...seeded('progress-changed', 'tools/call count') },
  { kind: 'server-request-changed', verdict: 'warning', ...sessionful('sessionful', 'elicitation-changed', 'GET listen stream') },
  { kind: 'server-request-missing', verdict: 'warning', ...sessionful('sessionful', 'confirm-without-asking', 'GET listen stream') },
  {
    kind: 'listen-stream-refused',
    verdict: 'warning',
    ...sessionful('sessionful', 'get-405,delete-405,confirm-without-asking', 'GET listen stream'),
  },
  {
    kind: 'session-termination-refused',
    verdict: 'warning',
    ...sessionful('sessionful', 'get-405,delete-405,confirm-without-asking', 'DELETE session end'),
  },
  {
    kind: 'http-status-changed',
    verdict: 'warning',
    ...judge('a DELETE refused 404 is now refused 400', () => judgeExchangeStatus('DELETE', 404, 400)),
  },
  { kind: 'stdout-noise', verdict: 'warning', ...seeded('stdout-noise', 'stdout') },
  {
    kind: 'error-data-changed',
    verdict: 'warning',
    ...judge("an error's data changed", () =>
      judgeResponse(
        'resources/read',
        rpcError(-32602, 'not readable', { uri: 'example://locked' }),
        rpcError(-32602, 'not readable', { uri: 'example://locked', reason: 'permissions' }),
      ),
    ),
  },
  { kind: 'error-became-success', verdict: 'warning', ...seeded('error-fixed', 'resources/read example://locked') },
  {
    kind: 'tool-error-message-changed',
    verdict: 'warning',
    ...judge('isError with other text', () =>
      judgeResponse('tools/call', callResult({ isError: true }), {
        ...callResult({ isError: true }),
        result: { content: [{ type: 'text', text: 'search backend is down' }], isError: true },
      }),
    ),
  },
  {
    kind: 'tool-error-form-changed',
    verdict: 'warning',
    ...judge('an unknown tool: isError (v1 SDK) → -32602 (v2 SDK)', () =>
      judgeResponse('tools/call', callResult({ isError: true }), rpcError(-32602, 'Tool nope not found')),
    ),
  },
  {
    kind: 'output-schema-alternatives-added',
    verdict: 'warning',
    ...output('wrapped into anyOf next to an error shape', {
      anyOf: [searchOutput, { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] }],
    }),
  },
  {
    kind: 'tool-call-error-fixed',
    verdict: 'warning',
    ...judge('isError: true → a result', () => judgeResponse('tools/call', callResult({ isError: true }), callResult({}))),
  },
  {
    kind: 'capability-changed',
    verdict: 'warning',
    ...judge('tools.listChanged true → false', () =>
      judgeResponse('initialize', initialize(), initialize({ capabilities: { tools: { listChanged: false }, logging: {} } })),
    ),
  },
  {
    kind: 'server-info-changed',
    verdict: 'warning',
    ...judge('instructions changed', () =>
      judgeResponse(
        'initialize',
        initialize({ instructions: 'Use search first.' }),
        initialize({ instructions: 'Call search before stamp.' }),
      ),
    ),
  },

  // Compatible.
  { kind: 'tool-added', verdict: 'compatible', ...seeded('tool-added', 'tools/list') },
  { kind: 'resource-added', verdict: 'compatible', ...seeded('resource-moved', 'resources/list') },
  {
    kind: 'prompt-added',
    verdict: 'compatible',
    ...judge('a new prompt', () =>
      judgeResponse('prompts/list', list('prompts', greet([])), list('prompts', greet([]), { name: 'farewell' })),
    ),
  },
  {
    kind: 'resource-template-added',
    verdict: 'compatible',
    ...judge('a new template', () =>
      judgeResponse('resources/templates/list', list('resourceTemplates'), list('resourceTemplates', template())),
    ),
  },
  {
    kind: 'prompt-argument-changed',
    verdict: 'compatible',
    ...judge('a prompt argument no longer required', () =>
      judgeResponse('prompts/list', list('prompts', greet([{ name: 'name', required: true }])), list('prompts', greet([{ name: 'name' }]))),
    ),
  },
  {
    kind: 'prompt-argument-added',
    verdict: 'compatible',
    ...judge('an optional prompt argument added', () =>
      judgeResponse(
        'prompts/list',
        list('prompts', greet([{ name: 'name' }])),
        list('prompts', greet([{ name: 'name' }, { name: 'tone' }])),
      ),
    ),
  },
  {
    kind: 'tool-changed',
    verdict: 'compatible',
    ...judge('a tool gains icons', () =>
      judgeResponse('tools/list', tools(tool()), tools(tool({ icons: [{ src: 'https://example.com/a.png' }] }))),
    ),
  },
  {
    kind: 'prompt-changed',
    verdict: 'compatible',
    ...judge('a prompt gains a title', () =>
      judgeResponse('prompts/list', list('prompts', greet([])), list('prompts', { ...greet([]), title: 'Greeting' })),
    ),
  },
  {
    kind: 'resource-changed',
    verdict: 'compatible',
    ...judge('a resource gains a size', () =>
      judgeResponse(
        'resources/list',
        list('resources', { uri: 'example://readme', name: 'readme' }),
        list('resources', { uri: 'example://readme', name: 'readme', size: 20 }),
      ),
    ),
  },
  {
    kind: 'resource-template-changed',
    verdict: 'compatible',
    ...judge('a template gains a title', () =>
      judgeResponse(
        'resources/templates/list',
        list('resourceTemplates', template()),
        list('resourceTemplates', template({ title: 'Note' })),
      ),
    ),
  },
  { kind: 'capability-added', verdict: 'compatible', ...seeded('capability-added', 'initialize') },
  {
    kind: 'handshake-field-added',
    verdict: 'compatible',
    ...judge('instructions added', () => judgeResponse('initialize', initialize(), initialize({ instructions: 'Use search first.' }))),
  },
  {
    kind: 'protocol-version-negotiated',
    verdict: 'compatible',
    ...judge('the client asked for 2025-11-25; recorded counter-offer 2025-06-18, now granted', () =>
      judgeResponse('initialize', initialize({ protocolVersion: '2025-06-18' }), initialize(), { requested: '2025-11-25' }),
    ),
  },
  {
    kind: 'input-schema-changed',
    verdict: 'compatible',
    ...input('limit → true (anything)', edit(searchInput, undefined, { properties: { ...searchInput.properties, limit: true } })),
  },
  {
    kind: 'output-schema-changed',
    verdict: 'compatible',
    ...output(
      'hits true (anything) → integer',
      searchOutput,
      edit(searchOutput, undefined, { properties: { ...searchOutput.properties, hits: true } }),
    ),
  },
  {
    kind: 'protocol-version-added',
    verdict: 'compatible',
    ...judge('server/discover used to fail, now lists 2026-07-28', () =>
      judgeResponse('server/discover', rpcError(-32601, 'Method not found'), discover()),
    ),
  },
  {
    kind: 'input-property-added',
    verdict: 'compatible',
    ...input('an optional property added', edit(searchInput, 'lang', { type: 'string' })),
  },
  {
    kind: 'input-type-widened',
    verdict: 'compatible',
    ...input('limit integer → integer|string', edit(searchInput, 'limit', { type: ['integer', 'string'] })),
  },
  {
    kind: 'input-enum-widened',
    verdict: 'compatible',
    ...input('mode gains "exhaustive"', edit(searchInput, 'mode', { enum: ['fast', 'deep', 'exhaustive'] })),
  },
  {
    kind: 'input-constraint-loosened',
    verdict: 'compatible',
    ...input('limit maximum 50 → 100', edit(searchInput, 'limit', { maximum: 100 })),
  },
  {
    kind: 'input-required-removed',
    verdict: 'compatible',
    ...input('query no longer required', edit(searchInput, undefined, { required: [] })),
  },
  {
    kind: 'input-additional-properties-opened',
    verdict: 'compatible',
    ...input('additionalProperties false dropped', searchInput, edit(searchInput, undefined, { additionalProperties: false })),
  },
  {
    kind: 'input-items-changed',
    verdict: 'compatible',
    ...input('tags items no longer constrained', edit(searchInput, 'tags', {}, ['items'])),
  },
  { kind: 'output-property-added', verdict: 'compatible', ...output('a property added', edit(searchOutput, 'took', { type: 'number' })) },
  {
    kind: 'output-type-narrowed',
    verdict: 'compatible',
    ...output('hits integer|string → integer', searchOutput, edit(searchOutput, 'hits', { type: ['integer', 'string'] })),
  },
  { kind: 'output-enum-narrowed', verdict: 'compatible', ...output('mode loses "deep"', edit(searchOutput, 'mode', { enum: ['fast'] })) },
  {
    kind: 'output-constraint-tightened',
    verdict: 'compatible',
    ...output('hits maximum 1000 → 100', edit(searchOutput, 'hits', { maximum: 100 })),
  },
  {
    kind: 'output-required-added',
    verdict: 'compatible',
    ...output('items always present', edit(searchOutput, undefined, { required: ['hits', 'mode', 'items'] })),
  },
  {
    kind: 'output-items-changed',
    verdict: 'compatible',
    ...output('items constrained', searchOutput, edit(searchOutput, 'items', {}, ['items'])),
  },
  {
    kind: 'output-schema-added',
    verdict: 'compatible',
    ...judge('a tool now declares an output schema', () =>
      judgeResponse('tools/list', tools(tool({ outputSchema: undefined })), tools(tool())),
    ),
  },
  { kind: 'result-field-added', verdict: 'compatible', ...seeded('content-added', 'tools/call search') },
  { kind: 'error-message-changed', verdict: 'compatible', ...seeded('error-message-changed', 'resources/read example://locked') },
  { kind: 'listen-stream-offered', verdict: 'compatible', ...sessionful('refusing', '', 'GET listen stream') },
  { kind: 'session-termination-offered', verdict: 'compatible', ...sessionful('refusing', '', 'DELETE session end') },
];

/** The kinds issue 13 found no test producing: each must come from a real replay. */
const FROM_REPLAY = [
  'server-request-repeated',
  'prompt-removed',
  'resource-removed',
  'input-additional-properties-closed',
  'output-enum-widened',
  'result-field-removed',
  'result-field-added',
  'tool-title-changed',
  'server-request-missing',
  'listen-stream-offered',
  'capability-removed',
];

for (const c of CASES) {
  test(`${c.verdict} ${c.kind}: ${c.how}`, async (t) => {
    const found = await c.run(t);
    const hits = found.filter((f) => f.kind === c.kind);
    const seen = found.map((f) => `${f.at}: ${f.verdict} ${f.kind}`).join('\n');
    t.true(hits.length > 0, `${c.kind} not produced; found:\n${seen}`);
    if (c.at)
      t.true(
        hits.some((h) => h.at === c.at),
        `${c.kind} not found on ${c.at}; found:\n${seen}`,
      );
    for (const h of hits) t.is(h.verdict, c.verdict, `${h.at}: ${h.message}`);
  });
}

/** `kind` → the verdicts docs/replay-verdicts.md gives it: every table row there whose first cell
 * holds kinds (backticked lower-case hyphenated words) and whose second cell is a verdict. */
function documentedKinds(): Map<string, Set<string>> {
  const doc = readFileSync(join(root, 'docs', 'replay-verdicts.md'), 'utf8').split('\n');
  const out = new Map<string, Set<string>>();
  for (const line of doc) {
    const l = line.trim();
    if (!l.startsWith('|')) continue;
    const cells = l
      .slice(1, l.endsWith('|') ? -1 : undefined)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim());
    const verdict = cells[1];
    if (verdict !== 'breaking' && verdict !== 'changed' && verdict !== 'warning' && verdict !== 'compatible') continue;
    for (const m of cells[0]!.matchAll(/`([a-z][a-z0-9]*(?:-[a-z0-9]+)+)`/g)) {
      let set = out.get(m[1]!);
      if (!set) out.set(m[1]!, (set = new Set()));
      set.add(verdict);
    }
  }
  return out;
}

const pairs = (m: Map<string, Set<string>>) => [...m].flatMap(([k, vs]) => [...vs].map((v) => `${k}: ${v}`)).sort();

test("the verdict table (docs/replay-verdicts.md) and this file's cases hold the same kinds, with the same verdicts", (t) => {
  const documented = documentedKinds();
  t.true(documented.size > 40, `kinds found in docs/replay-verdicts.md: ${documented.size}`);
  const covered = new Map<string, Set<string>>();
  for (const c of CASES) {
    let set = covered.get(c.kind);
    if (!set) covered.set(c.kind, (set = new Set()));
    set.add(c.verdict);
  }
  const doc = pairs(documented);
  const cov = pairs(covered);
  t.deepEqual(
    doc.filter((p) => !cov.includes(p)),
    [],
    'documented, but no case here produces it with that verdict',
  );
  t.deepEqual(
    cov.filter((p) => !doc.includes(p)),
    [],
    'produced here, but not documented with that verdict',
  );
});

test('the kinds issue 13 found untested come from real replays against real servers', (t) => {
  for (const kind of FROM_REPLAY)
    t.true(
      CASES.some((c) => c.kind === kind && c.via === 'replay'),
      kind,
    );
});

/** Kinds built from templates in the replay code, by their source text: the values the template
 * takes there. A new template must be listed here so its kinds are checked against docs/replay-verdicts.md. */
const TEMPLATES: Record<string, string[]> = {
  '${polarity}-schema-changed': ['input-schema-changed', 'output-schema-changed'],
  '${polarity}-const-changed': ['input-const-changed', 'output-const-changed'],
  "${polarity}-constraint-${narrowed ? 'tightened' : 'loosened'}": [
    'input-constraint-tightened',
    'input-constraint-loosened',
    'output-constraint-tightened',
    'output-constraint-loosened',
  ],
  '${polarity}-pattern-changed': ['input-pattern-changed', 'output-pattern-changed'],
  'schema-${key}-changed': ['schema-description-changed', 'schema-title-changed'],
  '${polarity}-property-added': ['input-property-added', 'output-property-added'],
  '${polarity}-additional-properties-opened': ['input-additional-properties-opened', 'output-additional-properties-opened'],
  '${polarity}-items-changed': ['input-items-changed', 'output-items-changed'],
  'tool-${key}-changed': ['tool-description-changed', 'tool-title-changed'],
  "${noun.replace(' ', '-')}-removed": ['prompt-removed', 'resource-removed', 'resource-template-removed'],
  "${noun.replace(' ', '-')}-changed": ['prompt-changed', 'resource-changed', 'resource-template-changed'],
  "${noun.replace(' ', '-')}-added": ['prompt-added', 'resource-added', 'resource-template-added'],
};

/** Every kind the replay code can produce: the string literals and templates assigned to `kind`
 * in every .ts file under replay/ (`kind: …` up to the next top-level comma, `const kind = …`). */
function producedKinds(): { kinds: Set<string>; unknownTemplates: string[] } {
  const kinds = new Set<string>();
  const unknownTemplates: string[] = [];
  const files = (readdirSync(join(root, 'replay'), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  for (const f of files) {
    const src = readFileSync(join(root, 'replay', f), 'utf8');
    for (const m of src.matchAll(/\bkind(?::|\s*=)\s*((?:'[^']*'|`[^`]*`|[^,;'`\n])+)/g)) {
      const expr = m[1]!;
      for (const lit of expr.matchAll(/'([a-z][a-z0-9]*(?:-[a-z0-9]+)+)'|`([^`]*)`/g)) {
        if (lit[1]) kinds.add(lit[1]);
        else if (TEMPLATES[lit[2]!]) for (const k of TEMPLATES[lit[2]!]!) kinds.add(k);
        else unknownTemplates.push(`${f}: \`${lit[2]}\``);
      }
    }
  }
  return { kinds, unknownTemplates };
}

test('every kind the replay code can produce is in the verdict table (docs/replay-verdicts.md)', (t) => {
  const { kinds, unknownTemplates } = producedKinds();
  t.deepEqual(unknownTemplates, [], 'kind templates this test does not know: add their values to TEMPLATES');
  t.true(kinds.size > 40, `kinds found in replay/**/*.ts: ${kinds.size}`);
  const documented = documentedKinds();
  t.deepEqual(
    [...kinds].filter((k) => !documented.has(k)).sort(),
    [],
    'produced by replay/*.ts but not in the verdict table (docs/replay-verdicts.md)',
  );
});
