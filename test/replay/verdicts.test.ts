import test from 'ava';
import { compileIgnore, normalise } from '../../replay/normalise.js';
import { compareSchemas } from '../../replay/schema-variance/index.js';
import { carryArgvRedactions, carryRedactions, hashPlaceholder, isHashPlaceholder, maskLike } from '../../lib/masked-values.js';
import { isRevisionRefused, judgeResponse } from '../../replay/verdicts/index.js';

const kinds = (ds: { kind: string; verdict: string }[]) => ds.map((d) => `${d.verdict}:${d.kind}`).sort();

test('normalisation: ids, key order, volatile values and id types never differ', (t) => {
  const a = {
    jsonrpc: '2.0',
    id: 7,
    result: {
      b: 1,
      at: '2026-01-01T10:00:00.123Z',
      uuid: '0b5d3c1e-9a4f-4f8e-8c1b-2d3e4f5a6b7c',
      createdAt: 1764500000000,
      nextCursor: 'abc',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1.0.1' } },
    },
  };
  const b = {
    result: {
      _meta: { 'io.modelcontextprotocol/serverInfo': { version: '2.0.0', name: 's' } },
      nextCursor: 'zzz',
      createdAt: 1764599999999,
      uuid: 'ffffffff-9a4f-4f8e-8c1b-2d3e4f5a6b7c',
      at: '2027-05-05T00:00:00Z',
      b: 1,
    },
    id: 'x-1',
    jsonrpc: '2.0',
  };
  t.deepEqual(judgeResponse('tools/call', normalise(a), normalise(b)), []);
});

test('ignore patterns: JSON Pointers, * and ** globs, bare names', (t) => {
  const msg = {
    result: {
      content: [
        { text: 'a', etag: 1 },
        { text: 'b', etag: 2 },
      ],
      deep: { x: { etag: 3 } },
    },
  };
  t.deepEqual(normalise(msg, [compileIgnore('/result/content/*/text')]), {
    result: { content: [{ etag: 1 }, { etag: 2 }], deep: { x: { etag: 3 } } },
  });
  t.deepEqual(normalise(msg, [compileIgnore('etag')]), { result: { content: [{ text: 'a' }, { text: 'b' }], deep: { x: {} } } });
  t.deepEqual(normalise(msg, [compileIgnore('/result/**/etag')]), normalise(msg, [compileIgnore('etag')]));
  t.deepEqual(normalise(msg, [compileIgnore('/result/deep')]), { result: { content: msg.result.content } });
});

test('input schemas are contravariant: narrowing breaks, widening is compatible', (t) => {
  const old = {
    type: 'object',
    properties: { q: { type: 'string' }, n: { type: 'integer', maximum: 10 }, m: { enum: ['a', 'b'] } },
    required: ['q'],
  };
  t.deepEqual(
    kinds(compareSchemas(old, { ...old, properties: { ...old.properties, n: { type: 'integer', maximum: 5 } } }, 'input', [], 'x')),
    ['breaking:input-constraint-tightened'],
  );
  t.deepEqual(
    kinds(
      compareSchemas(old, { ...old, properties: { ...old.properties, n: { type: ['integer', 'string'], maximum: 10 } } }, 'input', [], 'x'),
    ),
    ['compatible:input-type-widened'],
  );
  t.deepEqual(kinds(compareSchemas(old, { ...old, properties: { ...old.properties, q: { type: 'number' } } }, 'input', [], 'x')), [
    'breaking:input-type-narrowed',
  ]);
  t.deepEqual(kinds(compareSchemas(old, { ...old, properties: { ...old.properties, m: { enum: ['a', 'b', 'c'] } } }, 'input', [], 'x')), [
    'compatible:input-enum-widened',
  ]);
  t.deepEqual(kinds(compareSchemas(old, { ...old, properties: { ...old.properties, z: { type: 'string' } } }, 'input', [], 'x')), [
    'compatible:input-property-added',
  ]);
  t.deepEqual(kinds(compareSchemas(old, { ...old, required: [] }, 'input', [], 'x')), ['compatible:input-required-removed']);
});

test('output schemas are covariant: a removed or retyped property breaks, an added one is compatible', (t) => {
  const old = { type: 'object', properties: { sum: { type: 'number' }, unit: { type: 'string' } }, required: ['sum'] };
  t.deepEqual(
    kinds(compareSchemas(old, { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] }, 'output', [], 'x')),
    ['breaking:output-property-removed'],
  );
  t.deepEqual(kinds(compareSchemas(old, { ...old, properties: { ...old.properties, sum: { type: 'string' } } }, 'output', [], 'x')), [
    'breaking:output-type-changed',
  ]);
  t.deepEqual(kinds(compareSchemas(old, { ...old, properties: { ...old.properties, extra: { type: 'string' } } }, 'output', [], 'x')), [
    'compatible:output-property-added',
  ]);
  t.deepEqual(kinds(compareSchemas(old, { ...old, required: [] }, 'output', [], 'x')), ['breaking:output-property-optional']);
});

test('tool surface: order, annotations, output schema and prompts', (t) => {
  const tool = (name: string, extra = {}) => ({ name, inputSchema: { type: 'object' }, ...extra });
  const rec = { result: { tools: [tool('a', { annotations: { readOnlyHint: true } }), tool('b', { outputSchema: { type: 'object' } })] } };
  t.deepEqual(kinds(judgeResponse('tools/list', rec, { result: { tools: [rec.result.tools[1], rec.result.tools[0]] } })), [
    'warning:tool-order-changed',
  ]);
  // destructiveHint means nothing while readOnlyHint is true (spec: "meaningful only when readOnlyHint == false").
  t.deepEqual(
    kinds(
      judgeResponse('tools/list', rec, {
        result: { tools: [tool('a', { annotations: { readOnlyHint: true, destructiveHint: true } }), tool('b')] },
      }),
    ),
    ['breaking:output-schema-removed'],
  );
  const prompts = { result: { prompts: [{ name: 'p', arguments: [{ name: 'x' }] }] } };
  t.deepEqual(
    kinds(
      judgeResponse('prompts/list', prompts, {
        result: { prompts: [{ name: 'p', arguments: [{ name: 'x', required: true }] }, { name: 'q' }] },
      }),
    ),
    ['breaking:prompt-argument-required', 'compatible:prompt-added'],
  );
  t.deepEqual(
    kinds(
      judgeResponse(
        'initialize',
        { result: { protocolVersion: '2025-11-25', capabilities: { tools: {} } } },
        { result: { protocolVersion: '2025-06-18', capabilities: { tools: {}, logging: {} } } },
      ),
    ),
    ['breaking:protocol-version-changed', 'compatible:capability-added'],
  );
});

test('redactions carry over: a masked recorded value masks the live one, whole or in part, and a value of another shape is masked whole', (t) => {
  t.is(maskLike('[REDACTED]', 'sk-live-123'), '[REDACTED]');
  t.is(maskLike('Bearer [REDACTED]', 'Bearer abc.def'), 'Bearer [REDACTED]');
  t.is(maskLike('Say hi to [REDACTED]', 'Say hi to Grace'), 'Say hi to [REDACTED]');
  t.is(maskLike('key=[REDACTED]&page=[REDACTED]', 'key=k1&page=2'), 'key=[REDACTED]&page=[REDACTED]');
  t.is(maskLike('Bearer [REDACTED]', 'Basic dXNlcg=='), '[REDACTED]', 'another shape: masked whole');
  t.is(maskLike('plain', 'other'), 'other');
  const recorded = { result: { token: '[REDACTED]', items: [{ secret: 'x=[REDACTED]' }], n: 1 } };
  const live = { result: { token: { nested: true }, items: [{ secret: 'x=42', extra: 'kept' }, { secret: 'y' }], n: 2, added: 'kept' } };
  t.deepEqual(carryRedactions(recorded, live), {
    result: { token: '[REDACTED]', items: [{ secret: 'x=[REDACTED]', extra: 'kept' }, { secret: 'y' }], n: 2, added: 'kept' },
  });
  t.deepEqual(carryArgvRedactions(['node', 's.js', '--key=[REDACTED]'], ['node', 's.js', '--key=abc']), [
    'node',
    's.js',
    '--key=[REDACTED]',
  ]);
  t.deepEqual(
    carryArgvRedactions(['node', '[REDACTED]'], ['node', 's.js', 'x']),
    ['node', 's.js', 'x'],
    'another shape: left to the recorder rules',
  );
});

test('a refused revision: a failing handshake, -32022, or a 2026-07-28 request answered without resultType', (t) => {
  const ok = { result: { protocolVersion: '2025-11-25' } };
  t.true(isRevisionRefused('initialize', ok, { error: { code: -32601, message: 'Method not found' } }));
  t.true(
    isRevisionRefused('server/discover', { result: { supportedVersions: ['2026-07-28'] } }, { error: { code: -32601, message: 'x' } }),
  );
  t.true(isRevisionRefused('tools/list', { result: { tools: [] } }, { error: { code: -32022, message: 'Unsupported protocol version' } }));
  t.true(isRevisionRefused('tools/list', { result: { tools: [], resultType: 'complete' } }, { result: { tools: [] } }));
  t.false(
    isRevisionRefused('tools/list', { result: { tools: [] } }, { error: { code: -32603, message: 'x' } }),
    'other errors are ordinary changes',
  );
  t.false(isRevisionRefused('initialize', { error: { code: -32601, message: 'x' } }, { error: { code: -32601, message: 'x' } }));
  t.deepEqual(
    kinds(
      judgeResponse(
        'server/discover',
        { error: { code: -32601, message: 'Method not found' } },
        { result: { supportedVersions: ['2026-07-28'] } },
      ),
    ),
    ['compatible:protocol-version-added'],
  );
  t.deepEqual(kinds(judgeResponse('initialize', ok, { error: { code: -32022, message: 'Unsupported protocol version' } })), [
    'breaking:protocol-version-dropped',
  ]);
});

test('hash placeholders (record --capture hashed) stand for any value: compared as equal, re-hashed on --update', (t) => {
  const recorded = { text: hashPlaceholder('recorded'), n: hashPlaceholder(7), plain: 'kept', flag: true };
  const live = { text: 'live', n: 8, plain: 'changed', flag: false };
  t.deepEqual(carryRedactions(recorded, live), { text: recorded.text, n: recorded.n, plain: 'changed', flag: false });
  t.deepEqual(carryRedactions(recorded, live, { rehash: true }), {
    text: hashPlaceholder('live'),
    n: hashPlaceholder(8),
    plain: 'changed',
    flag: false,
  });
  t.false(isHashPlaceholder('sha256:abc:3'), 'only the full form');
  t.true(isHashPlaceholder(hashPlaceholder('x')));
});
