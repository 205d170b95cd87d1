import test from 'ava';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { loadCassette } from '../../../lib/cassette/store.js';
import { generateCases, type GenerateOptions } from '../../../validators/fuzz/cases.js';
import type { FuzzCase, FuzzStep, Json } from '../../../validators/fuzz/types.js';
import { derivePlan, isSafe, PV, type Plan, unsafeReason } from '../../../validators/probes/plan.js';
import { root } from '../../helpers/paths.js';

// Both eras with MRTR and tools without annotations (stdio and HTTP), and a 2025-only recording of
// server-everything whose tools say readOnlyHint true or false, with enums and draft-07 schemas.
const plans = new Map<string, Plan>();
/** The plan the fuzzer reads (2025 sessions known by their revision count as 2025). */
function plan(name: string): Plan {
  let p = plans.get(name);
  if (!p) plans.set(name, (p = derivePlan(loadCassette(join(root, 'cassettes', 'examples', `${name}.cassette.json`)), true)));
  return p;
}
const MODERN_AND_LEGACY = 'example-server';
const HTTP = 'example-server-http';
const EVERYTHING = 'server-everything';

/** Small sizes keep the tests fast; one test checks the defaults. */
const SMALL: Omit<GenerateOptions, 'allowSideEffects'> = { hugeStringBytes: 4096, maxDepth: 50 };

/** The systematic pass (ids without `#n`), then `extra` cases of the random stream. */
function take(p: Plan, seed: number, options: GenerateOptions, extra = 300): { systematic: FuzzCase[]; random: FuzzCase[] } {
  const systematic: FuzzCase[] = [];
  const random: FuzzCase[] = [];
  for (const c of generateCases(p, seed, options).cases) {
    if (!c.id.includes('#')) systematic.push(c);
    else if (random.push(c) >= extra) break;
  }
  return { systematic, random };
}

const textOf = (s: FuzzStep) => s.raw ?? JSON.stringify(s.message);
const digest = (c: FuzzCase) =>
  createHash('sha256')
    .update(JSON.stringify({ ...c, steps: c.steps.map((s) => ({ wait: s.wait, text: textOf(s) })) }))
    .digest('hex');
const requestsOf = (c: FuzzCase) => c.steps.map((s) => s.message).filter((m) => typeof m.method === 'string' && 'id' in m);
const all = (r: { systematic: FuzzCase[]; random: FuzzCase[] }) => [...r.systematic, ...r.random];

test('the same seed gives the same case ids and the same step bytes, and so does iterating the stream again', (t) => {
  const options = { allowSideEffects: true, ...SMALL };
  const a = all(take(plan(MODERN_AND_LEGACY), 1234, options));
  const b = all(take(plan(MODERN_AND_LEGACY), 1234, options));
  t.true(a.length > 600);
  t.deepEqual(
    b.map((c) => c.id),
    a.map((c) => c.id),
  );
  t.deepEqual(b.map(digest), a.map(digest));
  // The iterable starts over from the seed each time it is iterated.
  const { cases } = generateCases(plan(MODERN_AND_LEGACY), 1234, options);
  const first = [...take2(cases, 50)].map(digest);
  t.deepEqual([...take2(cases, 50)].map(digest), first);
  t.deepEqual(first, a.slice(0, 50).map(digest));
});

function* take2(cases: Iterable<FuzzCase>, n: number): Generator<FuzzCase> {
  for (const c of cases) {
    if (n-- <= 0) return;
    yield c;
  }
}

test('another seed shuffles the same systematic pass into another order, and draws other random cases', (t) => {
  const options = { allowSideEffects: true, ...SMALL };
  const a = take(plan(MODERN_AND_LEGACY), 1, options, 100);
  const b = take(plan(MODERN_AND_LEGACY), 2, options, 100);
  t.deepEqual(b.systematic.map((c) => c.id).sort(), a.systematic.map((c) => c.id).sort());
  t.notDeepEqual(
    b.systematic.map((c) => c.id),
    a.systematic.map((c) => c.id),
  );
  t.notDeepEqual(b.random.map(digest), a.random.map(digest));
});

test('every family and every listed mutation kind appears for cassettes that allow them', (t) => {
  const options = { allowSideEffects: true, ...SMALL };
  const cases = [...all(take(plan(MODERN_AND_LEGACY), 9, options)), ...all(take(plan(EVERYTHING), 9, options))];
  const kinds = new Set(cases.map((c) => `${c.family}/${c.mutation}`));
  const expected = [
    ...[
      'wrong-type',
      'missing-required',
      'extra-property',
      'enum-outsider',
      'boundary',
      'huge-string',
      'empty-string',
      'unicode',
      'deep-nesting',
      'past-2^53',
      'negative-zero',
      'huge-number',
      'null',
      'combination',
    ].map((m) => `arguments/${m}`),
    ...[
      'id-string',
      'id-zero',
      'id-negative',
      'id-fraction',
      'id-past-2^53',
      'id-long-string',
      'id-unicode',
      'meta-version-missing',
      'meta-version-unknown',
      'meta-version-wrong-type',
      'meta-not-object',
      'meta-capabilities-wrong-type',
      'initialize-version-unknown',
      'initialize-version-empty',
      'jsonrpc-wrong',
      'unknown-method',
      'duplicate-id-key',
      'combination',
    ].map((m) => `protocol/${m}`),
    ...['before-handshake', 'cancel-mid-call', 'mrtr-repeat', 'duplicate-id', 'pipelined'].map((m) => `sequence/${m}`),
  ];
  t.deepEqual(
    expected.filter((k) => !kinds.has(k)),
    [],
  );
  // Every Unicode value reached a tool argument.
  for (const label of ['bidi-override', 'nul', 'emoji', 'combining', 'rtl', 'lone-surrogate'])
    t.true(
      cases.some((c) => c.tool && c.id.endsWith(`=${label}@legacy`)),
      label,
    );
  // Both eras, and the connection each needs.
  const eras = new Set(cases.map((c) => c.era));
  t.deepEqual([...eras].sort(), ['legacy', 'modern']);
});

test('a case of each era carries what that era needs: _meta with the protocol version on 2026-07-28, none on 2025', (t) => {
  const cases = all(take(plan(HTTP), 3, { allowSideEffects: true, ...SMALL }));
  const plain = cases.filter((c) => c.family === 'arguments');
  t.true(plain.some((c) => c.era === 'modern') && plain.some((c) => c.era === 'legacy'));
  for (const c of plain)
    for (const m of requestsOf(c)) {
      const meta = (m.params as Json)._meta as Json | undefined;
      if (c.era === 'modern') t.is(meta?.[PV], '2026-07-28', c.id);
      else t.is(meta?.[PV], undefined, c.id);
    }
  // A 2025 call before the handshake says so, and holds the handshake after it.
  const before = cases.find((c) => c.mutation === 'before-handshake');
  t.truthy(before);
  t.is(before!.era, 'legacy');
  t.true(before!.beforeHandshake);
  t.deepEqual(
    before!.steps.map((s) => s.message.method),
    [before!.steps[0]!.message.method, 'initialize', 'notifications/initialized', before!.steps[0]!.message.method],
  );
  t.is(before!.steps[0]!.wait, 'none');
});

test('a tool without readOnlyHint is never called without allowSideEffects and is listed as skipped once; with it, it is called', (t) => {
  const p = plan(EVERYTHING);
  // Read from the recorded tools/list itself: readOnlyHint false, or no annotations at all.
  const unsafe = [...p.tools.values()]
    .filter((tool) => (tool.annotations as Json | undefined)?.readOnlyHint !== true)
    .map((tool) => String(tool.name));
  t.true(unsafe.includes('toggle-simulated-logging') && unsafe.length < p.tools.size, unsafe.join());
  for (const tool of unsafe) t.false(isSafe(p, { method: 'tools/call', params: { name: tool } }), tool);
  const gated = generateCases(p, 5, { allowSideEffects: false, ...SMALL });
  t.deepEqual(
    gated.skipped,
    unsafe.map((tool) => ({ tool, reason: unsafeReason(p, { method: 'tools/call', params: { name: tool } }) })),
  );
  const called = (cases: FuzzCase[]) =>
    new Set(cases.flatMap((c) => requestsOf(c).filter((m) => m.method === 'tools/call')).map((m) => String((m.params as Json).name)));
  const safeRun = called(all(take(p, 5, { allowSideEffects: false, ...SMALL }, 500)));
  for (const tool of unsafe) t.false(safeRun.has(tool), tool);
  t.true(safeRun.has('get-sum') && safeRun.has('echo'));
  const allowed = generateCases(p, 5, { allowSideEffects: true, ...SMALL });
  t.deepEqual(allowed.skipped, []);
  const wideRun = called(all(take(p, 5, { allowSideEffects: true, ...SMALL }, 0)));
  for (const tool of unsafe) t.true(wideRun.has(tool), tool);

  // example-server annotates no tool: without the flag no tools/call is sent at all, on either era.
  const bare = plan(MODERN_AND_LEGACY);
  const none = all(take(bare, 5, { allowSideEffects: false, ...SMALL }, 500));
  t.is(called(none).size, 0);
  t.deepEqual(
    generateCases(bare, 5, { allowSideEffects: false }).skipped.map((s) => s.tool),
    ['add', 'confirm_action', 'count_slowly'],
  );
  t.true(none.length > 500);
});

test('invalidArguments is exactly what ajv says of every generated tools/call', (t) => {
  for (const name of [MODERN_AND_LEGACY, EVERYTHING]) {
    const p = plan(name);
    const compiled = new Map<string, (data: unknown) => boolean>();
    const validator = (tool: string) => {
      let v = compiled.get(tool);
      if (!v) {
        const schema = p.tools.get(tool)!.inputSchema as Json;
        const options = { strict: false, validateFormats: false };
        const ajv = String(schema.$schema).includes('draft-07') ? new Ajv(options) : new Ajv2020(options);
        const { $schema: _s, ...rest } = schema;
        compiled.set(tool, (v = ajv.compile(rest)));
      }
      return v;
    };
    let judged = 0;
    const verdicts = new Set<boolean>();
    for (const c of all(take(p, 11, { allowSideEffects: true, ...SMALL }))) {
      const calls = c.steps.filter((s) => s.message.method === 'tools/call');
      if (!calls.length || c.family === 'sequence') continue;
      const sent = JSON.parse(textOf(calls[0]!)) as Json;
      if (typeof sent.params !== 'object' || Array.isArray(sent.params)) continue;
      const params = sent.params as Json;
      const tool = String(params.name);
      t.is(c.tool, tool, c.id);
      const args = 'arguments' in params ? params.arguments : {};
      const ajvSays = !validator(tool)(args);
      t.is(c.invalidArguments, ajvSays, c.id);
      verdicts.add(ajvSays);
      judged++;
    }
    t.true(judged > 100, `${name}: ${judged}`);
    t.deepEqual([...verdicts].sort(), [false, true]);
  }
});

test('a number past 2^53 goes out with its exact digits in the raw text', (t) => {
  const cases = take(plan(EVERYTHING), 4, { allowSideEffects: false, ...SMALL }, 0).systematic;
  const big = cases.filter((c) => c.mutation === 'past-2^53' || c.mutation === 'id-past-2^53');
  t.true(big.length > 5);
  for (const c of big) {
    const step = c.steps[0]!;
    t.truthy(step.raw, c.id);
    // The digits as the text has them, read as a BigInt (a double would round them to ...992).
    const m = /[:,]\s*(-?\d{16,})\s*[,}]/.exec(step.raw!);
    t.truthy(m, c.id);
    t.is(BigInt(m![1]!.replace('-', '')), 2n ** 53n + 1n, c.id);
    // JSON.stringify of the message cannot say it: that is why the raw text is there.
    t.false(JSON.stringify(step.message).includes('9007199254740993'), c.id);
    t.is(JSON.stringify(JSON.parse(step.raw!)), JSON.stringify(step.message), c.id);
  }
});

test('a lone surrogate goes out as the JSON escape \\ud800: valid JSON text, well-formed, parsed back to the lone code unit', (t) => {
  const cases = take(plan(EVERYTHING), 4, { allowSideEffects: false, ...SMALL }, 0).systematic;
  const lone = cases.filter((c) => c.id.endsWith('=lone-surrogate@legacy'));
  t.true(lone.length > 0);
  for (const c of lone) {
    const raw = c.steps[0]!.raw!;
    t.true(raw.includes('"a\\ud800b"'), c.id);
    // Well-formed UTF-16 (no lone surrogate in the text itself): it survives UTF-8 unchanged.
    t.is(Buffer.from(raw, 'utf8').toString('utf8'), raw, c.id);
    t.true(strings(JSON.parse(raw)).includes('a\ud800b'), c.id);
  }
});

function strings(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (v === null || typeof v !== 'object') return [];
  return (Array.isArray(v) ? v : Object.values(v)).flatMap(strings);
}

test('every raw text is one line of JSON that parses to the message it stands for', (t) => {
  for (const name of [MODERN_AND_LEGACY, EVERYTHING])
    for (const c of all(take(plan(name), 21, { allowSideEffects: true, ...SMALL })))
      for (const s of c.steps) {
        if (s.raw === undefined) continue;
        t.false(s.raw.includes('\n'), c.id);
        t.is(JSON.stringify(JSON.parse(s.raw)), JSON.stringify(s.message), c.id);
      }
});

test('case ids are unique, and request ids are unique within a case unless the ids are the mutation', (t) => {
  for (const name of [MODERN_AND_LEGACY, HTTP, EVERYTHING]) {
    const cases = all(take(plan(name), 77, { allowSideEffects: true, ...SMALL }, 400));
    const ids = cases.map((c) => c.id);
    t.is(new Set(ids).size, ids.length, name);
    for (const c of cases) {
      const reqIds = requestsOf(c).map((m) => JSON.stringify(m.id));
      if (!c.fixedIds) t.is(new Set(reqIds).size, reqIds.length, c.id);
    }
    // The duplicate-id case is the one that repeats an id, on purpose.
    const dup = cases.find((c) => c.mutation === 'duplicate-id')!;
    t.true(dup.fixedIds);
    t.is(requestsOf(dup)[0]!.id, requestsOf(dup)[1]!.id);
  }
});

test('cancellation mid-call sends the call without waiting, cancels its id, then a request that must be answered', (t) => {
  const cases = take(plan(MODERN_AND_LEGACY), 8, { allowSideEffects: true, ...SMALL }, 0).systematic;
  for (const era of ['legacy', 'modern'] as const) {
    const c = cases.find((x) => x.mutation === 'cancel-mid-call' && x.era === era && x.tool === 'count_slowly')!;
    t.truthy(c, era);
    const [call, cancel, live] = c.steps;
    t.is(call!.wait, 'none');
    t.is(cancel!.message.method, 'notifications/cancelled');
    t.is((cancel!.message.params as Json).requestId, call!.message.id);
    t.is(live!.wait, undefined);
    // 2026-07-28 has no ping: a recorded request that is safe to re-send stands in.
    t.is(live!.message.method, era === 'legacy' ? 'ping' : 'tools/list');
  }
  const mrtr = cases.find((c) => c.mutation === 'mrtr-repeat')!;
  t.is(mrtr.era, 'modern');
  t.is(mrtr.steps.length, 2);
  for (const s of mrtr.steps) t.truthy((s.message.params as Json).inputResponses);
  t.deepEqual((mrtr.steps[0]!.message.params as Json).requestState, (mrtr.steps[1]!.message.params as Json).requestState);
});

test('the default sizes: a 1 MiB string and arrays and objects nested 1,000 deep', (t) => {
  let huge: FuzzCase | undefined;
  let deep: FuzzCase | undefined;
  for (const c of generateCases(plan(EVERYTHING), 3, { allowSideEffects: false }).cases) {
    if (c.mutation === 'huge-string' && c.tool) huge = c;
    if (c.mutation === 'deep-nesting' && c.id.includes('=array-') && c.tool) deep = c;
    if ((huge && deep) || c.id.includes('#')) break;
  }
  const value = (c: FuzzCase) => Object.values(((c.steps[0]!.message.params as Json).arguments as Json) ?? {});
  t.true(value(huge!).some((v) => typeof v === 'string' && v.length === 1024 * 1024));
  let v = value(deep!).find((x) => Array.isArray(x));
  let depth = 0;
  while (Array.isArray(v)) {
    depth++;
    v = v[0];
  }
  t.is(depth, 1000);
});
