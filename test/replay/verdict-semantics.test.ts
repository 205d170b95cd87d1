/**
 * What real upgrades showed replay judging wrongly: negotiation by equality, absent annotations
 * taken for changes, isError results, zod's safe-integer bounds, unions and renames. The values
 * are the shapes published servers produce (zod 4 JSON Schema, v1 and v2 SDK answers).
 */
import test from 'ava';
import { compareSchemas } from '../../replay/schema-variance/index.js';
import { judgeResponse } from '../../replay/verdicts/index.js';

const kinds = (ds: { kind: string; verdict: string }[]) => ds.map((d) => `${d.verdict}:${d.kind}`).sort();
const init = (protocolVersion: string) => ({ result: { protocolVersion, capabilities: {}, serverInfo: { name: 's', version: '1' } } });

test('negotiation: granting the revision the client asked for is compatible; any other new answer breaks', (t) => {
  // The recorded server counter-offered 2024-11-05 to a client asking for 2025-06-18; the new one grants it.
  t.deepEqual(kinds(judgeResponse('initialize', init('2024-11-05'), init('2025-06-18'), { requested: '2025-06-18' })), [
    'compatible:protocol-version-negotiated',
  ]);
  // It now counter-offers something else than before: a client that does not speak it refuses.
  t.deepEqual(kinds(judgeResponse('initialize', init('2025-06-18'), init('2025-03-26'), { requested: '2025-06-18' })), [
    'breaking:protocol-version-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('initialize', init('2024-11-05'), init('2025-03-26'), { requested: '2025-06-18' })), [
    'breaking:protocol-version-changed',
  ]);
  t.deepEqual(judgeResponse('initialize', init('2025-06-18'), init('2025-06-18'), { requested: '2025-11-25' }), []);
});

const tools = (...list: unknown[]) => ({ result: { tools: list } });
const tool = (
  name: string,
  annotations?: Record<string, unknown>,
  inputSchema: unknown = { type: 'object', properties: { path: { type: 'string' } } },
) => ({ name, inputSchema, ...(annotations ? { annotations } : {}) });

test('annotations: an absent hint is its spec default', (t) => {
  // destructiveHint absent means true: "absent → true" is no change.
  t.deepEqual(judgeResponse('tools/list', tools(tool('rm')), tools(tool('rm', { destructiveHint: true }))), []);
  t.deepEqual(
    judgeResponse('tools/list', tools(tool('rm', { readOnlyHint: false, idempotentHint: false, openWorldHint: true })), tools(tool('rm'))),
    [],
  );
  // false → absent is a real change: the default is true.
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('rm', { destructiveHint: false })), tools(tool('rm')))), [
    'breaking:destructive-hint-gained',
  ]);
  // A read-only tool that lost readOnlyHint and says nothing of destruction is destructive now.
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('ls', { readOnlyHint: true })), tools(tool('ls', {})))), [
    'breaking:destructive-hint-gained',
    'breaking:readonly-hint-lost',
  ]);
  t.deepEqual(
    kinds(judgeResponse('tools/list', tools(tool('ls', { readOnlyHint: true })), tools(tool('ls', { destructiveHint: false })))),
    ['breaking:readonly-hint-lost'],
  );
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('ls', { openWorldHint: false })), tools(tool('ls')))), [
    'warning:tool-annotations-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('tools/list', tools(tool('ls', { title: 'List' })), tools(tool('ls', { title: 'List files' })))), [
    'warning:tool-annotations-changed',
  ]);
});

const ok = (text: string) => ({ result: { content: [{ type: 'text', text }] } });
const toolError = (text: string) => ({ result: { content: [{ type: 'text', text }], isError: true } });
const rpcError = (code: number, message: string) => ({ error: { code, message } });

test('tool failures: isError and JSON-RPC errors are both failures, a fix is no content change', (t) => {
  t.deepEqual(kinds(judgeResponse('tools/call', toolError('Error: ENOENT'), ok('hello'))), ['warning:tool-call-error-fixed']);
  t.deepEqual(kinds(judgeResponse('tools/call', rpcError(-32602, 'Tool nope not found'), ok('hello'))), ['warning:error-became-success']);
  t.deepEqual(kinds(judgeResponse('tools/call', ok('hello'), toolError('boom'))), ['breaking:tool-call-is-error']);
  t.deepEqual(kinds(judgeResponse('tools/call', ok('hello'), rpcError(-32603, 'boom'))), ['breaking:success-became-error']);
  t.deepEqual(kinds(judgeResponse('tools/call', toolError('Unknown tool: nope'), toolError('Tool nope not found'))), [
    'warning:tool-error-message-changed',
  ]);
  t.deepEqual(judgeResponse('tools/call', toolError('Unknown tool: nope'), toolError('Unknown tool: nope')), []);
  // An unknown tool: the v1 SDK answers with isError, the v2 SDK with -32602. Still a failure.
  const form = judgeResponse('tools/call', toolError('Tool nope not found'), rpcError(-32602, 'Tool nope not found'));
  t.deepEqual(kinds(form), ['warning:tool-error-form-changed']);
  t.notRegex(form[0]!.message, /now succeeds/);
  t.deepEqual(kinds(judgeResponse('tools/call', rpcError(-32602, 'Tool nope not found'), toolError('Tool nope not found'))), [
    'warning:tool-error-form-changed',
  ]);
  // Two JSON-RPC errors are judged as for any method.
  t.deepEqual(kinds(judgeResponse('tools/call', rpcError(-32602, 'a'), rpcError(-32603, 'a'))), ['breaking:error-code-changed']);
});

test('schemas: zod 4 safe-integer bounds are no tightening', (t) => {
  const old = { type: 'object', properties: { n: { type: 'integer' } } };
  const zod = { type: 'object', properties: { n: { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 } } };
  t.deepEqual(compareSchemas(old, zod, 'input', [], 'x'), []);
  t.deepEqual(compareSchemas(zod, old, 'input', [], 'x'), []);
  t.deepEqual(kinds(compareSchemas(old, { type: 'object', properties: { n: { type: 'integer', maximum: 100 } } }, 'input', [], 'x')), [
    'breaking:input-constraint-tightened',
  ]);
});

test('schemas: unions judged branch by branch', (t) => {
  const flag = (s: unknown) => ({ type: 'object', properties: { flag: s } });
  // boolean → boolean | string (zod's anyOf, or a type list): callers' booleans still pass.
  t.deepEqual(
    kinds(compareSchemas(flag({ type: 'boolean' }), flag({ anyOf: [{ type: 'boolean' }, { type: 'string' }] }), 'input', [], 'x')),
    ['compatible:input-type-widened'],
  );
  t.deepEqual(kinds(compareSchemas(flag({ type: 'boolean' }), flag({ type: ['boolean', 'string'] }), 'input', [], 'x')), [
    'compatible:input-type-widened',
  ]);
  t.deepEqual(
    compareSchemas(flag({ type: ['boolean', 'string'] }), flag({ anyOf: [{ type: 'string' }, { type: 'boolean' }] }), 'input', [], 'x'),
    [],
  );
  // boolean | string → boolean narrows.
  t.deepEqual(
    kinds(compareSchemas(flag({ anyOf: [{ type: 'boolean' }, { type: 'string' }] }), flag({ type: 'boolean' }), 'input', [], 'x')),
    ['breaking:input-type-narrowed'],
  );
  // An output schema wrapped into anyOf with its old shape as a branch: nothing was removed.
  const shape = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] };
  const wrapped = { anyOf: [shape, { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] }] };
  const d = compareSchemas(shape, wrapped, 'output', ['outputSchema'], 'x');
  t.deepEqual(kinds(d), ['warning:output-schema-alternatives-added']);
  t.false(d.some((x) => x.kind === 'output-property-removed'));
  t.deepEqual(kinds(compareSchemas(wrapped, shape, 'output', [], 'x')), ['compatible:output-type-narrowed']);
  // A branch whose own shape breaks is still found and judged.
  t.deepEqual(
    kinds(
      compareSchemas(
        { oneOf: [{ type: 'string' }, shape] },
        {
          oneOf: [
            { type: 'string' },
            { type: 'object', properties: { sum: { type: 'number' }, unit: { type: 'string' } }, required: ['sum'] },
          ],
        },
        'output',
        [],
        'x',
      ),
    ),
    ['compatible:output-property-added'],
  );
});

test('a tool removed while another with the same input schema appeared is a likely rename', (t) => {
  const schema = { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] };
  const d = judgeResponse(
    'tools/list',
    tools(tool('add', undefined, schema), tool('echo')),
    tools(tool('get-sum', undefined, schema), tool('echo')),
  );
  t.deepEqual(kinds(d), ['breaking:tool-renamed']);
  t.regex(d[0]!.message, /"add".*"get-sum"/);
  // Two candidates with that schema: no guess.
  t.deepEqual(
    kinds(
      judgeResponse(
        'tools/list',
        tools(tool('add', undefined, schema)),
        tools(tool('sum', undefined, schema), tool('plus', undefined, schema)),
      ),
    ),
    ['breaking:tool-removed', 'compatible:tool-added', 'compatible:tool-added'],
  );
  // Tools without parameters all look alike: they pair only with equal descriptions.
  const bare = (name: string, description: string) => ({ name, description, inputSchema: { type: 'object', properties: {} } });
  t.deepEqual(kinds(judgeResponse('tools/list', tools(bare('printEnv', 'Prints env')), tools(bare('get-env', 'Returns env')))), [
    'breaking:tool-removed',
    'compatible:tool-added',
  ]);
  t.deepEqual(kinds(judgeResponse('tools/list', tools(bare('printEnv', 'Prints env')), tools(bare('print-env', 'Prints env')))), [
    'breaking:tool-renamed',
  ]);
});

test('capability flags: turned off is the same change whether set to false or dropped', (t) => {
  const caps = (resources: Record<string, unknown>) => ({
    result: { protocolVersion: '2025-11-25', capabilities: { resources }, serverInfo: { name: 's', version: '1' } },
  });
  // resources/subscribe now fails: breaking either way.
  t.deepEqual(kinds(judgeResponse('initialize', caps({ subscribe: true }), caps({ subscribe: false }))), ['breaking:capability-removed']);
  t.deepEqual(kinds(judgeResponse('initialize', caps({ subscribe: true }), caps({}))), ['breaking:capability-removed']);
  // No more list_changed notifications, the lists still answer: a warning either way.
  t.deepEqual(kinds(judgeResponse('initialize', caps({ listChanged: true }), caps({ listChanged: false }))), [
    'warning:capability-changed',
  ]);
  t.deepEqual(kinds(judgeResponse('initialize', caps({ listChanged: true }), caps({}))), ['warning:capability-changed']);
  t.deepEqual(judgeResponse('initialize', caps({ listChanged: false }), caps({})), [], 'off either way');
  t.deepEqual(kinds(judgeResponse('initialize', caps({ subscribe: false }), caps({ subscribe: true }))), ['compatible:capability-added']);
});
