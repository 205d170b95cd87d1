import test from 'ava';
import { validateSession } from '../../validators/engine.js';
import { boundsProblem, dataProblem, riskyPattern } from '../../validators/json-schema.js';
import { RULES } from '../../validators/rules/index.js';
import { fixtureSession } from '../helpers/fixtures.js';

const META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} };
const SMETA = { 'io.modelcontextprotocol/serverInfo': { name: 's', version: '1' } };

function deep(levels: number): Record<string, unknown> {
  const root: Record<string, unknown> = { type: 'object' };
  let cur = root;
  for (let i = 0; i < levels; i++) cur = (cur.properties = { x: { type: 'object' } }).x as Record<string, unknown>;
  return root;
}

test('patterns that can backtrack exponentially are recognised; ordinary ones are not', (t) => {
  for (const p of ['^(a+)+$', '^(a|aa)*$', '(\\w+\\s?)*$', '^(.*a){2,}$', '^((a+))+$', '^(?:(a+))+$', '^((a)+)+$', '^(a)\\1*$'])
    t.true(riskyPattern(p), p);
  for (const p of ['^[a-z]+$', '^(ab)+$', '^\\d{3}-\\d{4}$', '^[A-Za-z0-9_.-]{1,128}$']) t.false(riskyPattern(p), p);
});

test('schemas too deep or too composed are not compiled, whatever their size in bytes', (t) => {
  t.regex(boundsProblem(deep(5000)) ?? '', /deeper than/);
  t.regex(boundsProblem({ anyOf: Array.from({ length: 5000 }, (_, i) => ({ const: i })) }) ?? '', /composition/);
  t.is(boundsProblem(deep(10)), undefined);
  // Not compiled means not judged: no verdict, no crash.
  t.is(dataProblem(deep(5000), { x: 1 }), undefined);
});

test('a server advertising hostile schemas cannot hang or crash the validator', (t) => {
  // `t`: groups within groups, which the quick check alone let through to run on 5,000 characters.
  const hostile = {
    type: 'object',
    properties: { s: { type: 'string', pattern: '^(a+)+$' }, t: { type: 'string', pattern: '^((a+))+$' } },
    required: ['s'],
  };
  const session = fixtureSession({
    rule: 'bounds',
    name: 'hostile',
    description: 'hostile schemas',
    transport: 'stdio',
    expect: [],
    messages: [
      ['c', { jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: META } }],
      [
        's',
        {
          jsonrpc: '2.0',
          id: 1,
          result: {
            resultType: 'complete',
            _meta: SMETA,
            ttlMs: 0,
            cacheScope: 'private',
            tools: [
              { name: 'redos', inputSchema: hostile, outputSchema: hostile },
              { name: 'deep', inputSchema: deep(1000) },
              {
                name: 'wide',
                inputSchema: { type: 'object', anyOf: Array.from({ length: 5000 }, (_, i) => ({ properties: { n: { const: i } } })) },
              },
            ],
          },
        },
      ],
      [
        'c',
        {
          jsonrpc: '2.0',
          id: 2,
          method: 'tools/call',
          params: { name: 'redos', arguments: { s: 'a'.repeat(5000) + '!', t: 'a'.repeat(5000) + '!' }, _meta: META },
        },
      ],
      [
        's',
        {
          jsonrpc: '2.0',
          id: 2,
          result: {
            resultType: 'complete',
            _meta: SMETA,
            content: [{ type: 'text', text: JSON.stringify({ s: 'a'.repeat(5000) + '!' }) }],
            structuredContent: { s: 'a'.repeat(5000) + '!', t: 'a'.repeat(5000) + '!' },
          },
        },
      ],
    ],
  });
  const errors: string[] = [];
  const violations = validateSession(session, { rules: RULES, onRuleError: (rule, err) => errors.push(`${rule}: ${String(err)}`) });
  // The risky pattern is not enforced, so the non-matching value is not reported either way.
  t.false(violations.some((v) => v.rule === 'TOOLS-OUTPUT-CONFORM'));
  t.deepEqual(errors, [], 'no rule threw');
});

test('a request nested past the depth bound and answered: not judged, and its envelope not called missing (found by mcp-cassette fuzz)', (t) => {
  let nested: unknown = 'x';
  for (let i = 0; i < 1000; i++) nested = [nested];
  const session = fixtureSession({
    rule: 'bounds',
    name: 'deep-request',
    description: 'a tools/call whose argument nests 1,000 arrays deep, answered with a result',
    transport: 'stdio',
    expect: [],
    messages: [
      ['c', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: nested }, _meta: META } }],
      [
        's',
        { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', _meta: SMETA, content: [{ type: 'text', text: 'ok' }], isError: true } },
      ],
    ],
  });
  t.true(session.messages[0]!.tooDeep);
  const found = validateSession(session, { rules: RULES });
  t.deepEqual(
    found.map((v) => v.rule),
    ['PROXY-SCHEMA-BOUNDS'],
  );
});
